#!/bin/sh
# daemon-soak.sh - runs a daemon on loopback for SOAK_SECONDS (default 1800)
# with churning sessions (each recorded, on short-lived processes and on one
# that lives), a stream per session and a top stream, and prints every
# SOAK_EVERY seconds (default 60) the daemon's RSS, descriptors, threads,
# CPU time, and the frames lost: frames a stopped session reported that
# its recording does not hold (DELETE's "frames" minus "recorded").  A
# performance script, not a test: traffic only to 127.0.0.1.
#
#   VMMPROF=build/vmmprof sh bench/daemon-soak.sh
set -u
V=${VMMPROF:-$(dirname "$0")/../build/vmmprof}
secs=${SOAK_SECONDS:-1800}
every=${SOAK_EVERY:-60}
dir=$(mktemp -d "${TMPDIR:-/tmp}/vmmprof-soak.XXXXXX")
cd "$dir" || exit 1
mkdir recs
printf 'session_keep_s = 5\n' >conf
"$V" user add op --role operator --users users >op.tok 2>/dev/null
"$V" serve --listen 127.0.0.1:0 --users users --recordings-dir recs --config conf 2>err &
D=$!
sleep 120000 &
LIVE=$!
cleanup() { kill "$D" "$LIVE" 2>/dev/null; wait "$D" 2>/dev/null; cd /; rm -rf "$dir"; }
trap cleanup EXIT INT TERM
i=0
while ! grep -q "listening on" err; do sleep 0.1; i=$((i + 1)); [ $i -gt 300 ] && { cat err; exit 1; }; done
U=$(sed -n 's|^vmmprofd: listening on \(http://[^ ]*\)/ .*|\1|p' err)
H="Authorization: Bearer $(cat op.tok)"
clk=$(getconf CLK_TCK)
cpu_s() { awk -v t="$clk" '{ printf "%.1f", ($14 + $15) / t }' "/proc/$D/stat"; }
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | tr -d '"'; }

echo "seconds rss_kb fds threads cpu_s sessions frames recorded lost"
start=$(date +%s)
next=$((start + every))
sessions=0 frames=0 recorded=0
curl -sS -N --max-time "$secs" -H "$H" "$U/api/v1/top/stream?interval_ms=1000" >/dev/null 2>&1 &
while [ $(($(date +%s) - start)) -lt "$secs" ]; do
	# one short-lived process and the live one, each in a recorded session
	sleep 3 &
	short=$!
	for pid in "$short" "$LIVE"; do
		curl -sS -o new.json -H "$H" -d "{\"pids\":[$pid],\"interval_ms\":200,\"record\":true}" \
			"$U/api/v1/sessions" || continue
		id=$(field id new.json)
		[ -n "$id" ] || continue
		curl -sS -N --max-time 4 -H "$H" "$U/api/v1/sessions/$id/stream" >/dev/null 2>&1 &
		echo "$id" >>ids
	done
	sleep 4
	while read -r id; do
		curl -sS -o del.json -H "$H" -X DELETE "$U/api/v1/sessions/$id" || continue
		f=$(field frames del.json) r=$(field recorded del.json)
		[ -n "$f" ] && [ -n "$r" ] || continue
		sessions=$((sessions + 1)) frames=$((frames + f)) recorded=$((recorded + r))
	done <ids
	rm -f ids recs/*.vmmdb recs/*.vmmrec
	now=$(date +%s)
	if [ "$now" -ge "$next" ]; then
		echo "$((now - start)) $(awk '/^VmRSS/ {print $2}' "/proc/$D/status") $(ls "/proc/$D/fd" | wc -l) $(ls "/proc/$D/task" | wc -l) $(cpu_s) $sessions $frames $recorded $((frames - recorded))"
		next=$((next + every))
	fi
done
