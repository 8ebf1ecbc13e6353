#!/bin/sh
# scale.sh - what watching a host of many vCPUs costs: N stand-in QEMU processes of M vCPU
# threads each (bench/fake-qemu.c, argv[0] qemu-system-x86_64, threads "CPU n/KVM", each busy
# BUSY_US every second), watched in the same run by `vmmprof top --batch -d 1`, `vmmprof record
# -I 1000`, a daemon session (every VM, 1000 ms) with one client streaming it, and the peer,
# `perf stat -e task-clock,context-switches -p <every stand-in> -I 1000`, counting the same
# threads.  Prints each one's CPU per second (ms of CPU per s, % of one core), its ratio to the
# peer's, its RSS, the threads each found, and how long `list vms` takes.  A benchmark, not a
# timed test: record the figures in docs/performance.md (issue 22).
#
#   bench/scale.sh [NxM ...]        default: 5x20 50x20 (100 and 1,000 vCPUs)
#   SECS=10 (measured), WARM=4 (seconds left out: start-up, opening the counters), BUSY_US=200,
#   TMO=10 (seconds an API request may take; 10,000 vCPUs need more to start a session)
#   BEFORE=path/to/vmmprof: a second binary (an older build) watched in the same run on the
#   same threads (its own top, record and daemon session), so that before and after meet the
#   same load; its rows are marked "(before)"
#   PROFILE=dir: `perf record -e cpu-clock --call-graph dwarf` on top, record and the daemon over the measured
#   SECS, into dir/{top,record,daemon}-NxM.data (their CPU figures then include the sampling's)
#
# CPU time is the first field of /proc/PID/task/*/schedstat (ns on a CPU) summed over the
# process's threads, read after the warm-up and SECS later.  When perf cannot count here (not
# installed, or perf_event_paranoid), `vmmprof stat -p` is the peer and the output says so.
set -u
cd "$(dirname "$0")/.."
V=${VMMPROF:-$PWD/build/vmmprof}
B=${BEFORE:-}
SECS=${SECS:-10}
WARM=${WARM:-4}
BUSY_US=${BUSY_US:-200}
[ -x "$V" ] || { echo "scale: build first (make)" >&2; exit 1; }
[ $# -gt 0 ] || set -- 5x20 50x20
dir=$(mktemp -d /tmp/vmmprof-scale.XXXXXX)
fakes= mon= dpid= bdpid=
stop() {
	for p in $mon; do kill -INT "$p" 2>/dev/null; done
	for p in $dpid $bdpid; do kill "$p" 2>/dev/null; done
	for p in $mon $dpid $bdpid; do wait "$p" 2>/dev/null; done
	for p in $fakes; do kill "$p" 2>/dev/null; done
	for p in $fakes; do wait "$p" 2>/dev/null; done
	mon= dpid= bdpid= fakes=
}
trap 'stop; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

cc -O2 -pthread -o "$dir/qemu-system-x86_64" bench/fake-qemu.c || exit 1
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

peer=perf
if ! command -v perf >/dev/null || ! perf stat -e task-clock -o /dev/null true 2>/dev/null; then
	peer=vmmprof-stat
	echo "scale: perf cannot count here: the peer is 'vmmprof stat -p' (same events)" >&2
fi

# every thread's (the daemon samples in a thread of its own)
cpu_ns() { cat /proc/$1/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
rss_mib() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo "?"; }
hwm_mib() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo "?"; }

# the daemon: one operator, started once for every size
"$V" user add bench --role operator --users "$dir/users" --token-out "$dir/token" >"$dir/user.log" 2>&1 ||
	{ cat "$dir/user.log" >&2; exit 1; }
tok=$(cat "$dir/token")
api() { # METHOD PATH [BODY]
	curl -s --max-time "${TMO:-10}" -X "$1" -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
		${3:+-d "$3"} "$url/api/v1$2"
}

[ -z "$B" ] || [ -x "$B" ] || { echo "scale: BEFORE='$B' is not an executable" >&2; exit 1; }
echo "scale: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC'), vmmprof $("$V" --version 2>/dev/null | head -1)"
for size in "$@"; do
	n=${size%x*} m=${size#*x}
	echo "== $n processes x $m vCPU threads = $((n * m)) vCPUs; ${SECS} s after ${WARM} s, each vCPU busy ${BUSY_US} us/s"
	i=0
	while [ $i -lt "$n" ]; do
		"$dir/qemu-system-x86_64" -name "guest=scale$i-$$,debug-threads=on" -smp "$m" \
			-busy-us "$BUSY_US" &
		fakes="$fakes $!"
		i=$((i + 1))
	done
	pids=$(echo $fakes | tr ' ' ',')
	sleep 1
	# list vms: wall time and what it finds (before anything else runs)
	t0=$(date +%s%N)
	"$V" list vms --json >"$dir/vms.json" 2>"$dir/vms.err"
	t1=$(date +%s%N)
	found=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); t = sys.argv[2]
vs = [v for v in d["vms"] if v["name"].endswith("-" + t)]
print(len(vs), sum(len(v["vcpus"]) for v in vs))' "$dir/vms.json" "$$" 2>/dev/null || echo "? ?")
	echo "list vms: $(( (t1 - t0) / 1000000 )) ms wall; found ${found% *} of $n VMs, ${found#* } of $((n * m)) vCPUs"

	# daemon BIN SUFFIX: a daemon with one session streamed by one client; sets dp, sid, cp, url
	daemon() {
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		url=http://127.0.0.1:$port
		"$1" serve --listen "127.0.0.1:$port" --users "$dir/users" --audit-log "$dir/audit$2.log" \
			>"$dir/daemon$2.log" 2>&1 &
		dp=$!
		k=0
		until api GET /whoami >/dev/null 2>&1 && [ -n "$(api GET /whoami)" ]; do
			k=$((k + 1)); [ $k -gt 100 ] && { echo "scale: the daemon did not start" >&2; cat "$dir/daemon$2.log" >&2; kill "$dp"; exit 1; }
			sleep 0.1
		done
		sid=$(api POST /sessions '{"interval_ms":1000}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])') ||
			{ echo "scale: no session" >&2; cat "$dir/daemon$2.log" >&2; kill "$dp"; exit 1; }
		curl -sN -H "Authorization: Bearer $tok" "$url/api/v1/sessions/$sid/stream" >"$dir/stream$2" &
		cp=$!
	}
	btp= brp= bdp= bcpid=
	if [ -n "$B" ]; then
		daemon "$B" .b
		bdpid=$dp bdp=$dp bsid=$sid bcpid=$cp burl=$url
	fi
	daemon "$V" ""
	dpid=$dp cpid=$cp

	"$V" top --batch -d 1 -n $((WARM + SECS + 5)) >"$dir/top.out" 2>"$dir/top.err" &
	tp=$!
	rm -f "$dir/r.vmmdb" "$dir/rb.vmmdb"
	"$V" record -q -I 1000 -o "$dir/r.vmmdb" 2>"$dir/rec.err" &
	rp=$!
	if [ -n "$B" ]; then
		"$B" top --batch -d 1 -n $((WARM + SECS + 5)) >"$dir/topb.out" 2>"$dir/topb.err" &
		btp=$!
		"$B" record -q -I 1000 -o "$dir/rb.vmmdb" 2>"$dir/recb.err" &
		brp=$!
	fi
	if [ $peer = perf ]; then
		perf stat -e task-clock,context-switches -p "$pids" -I 1000 -o /dev/null &
	else
		"$V" stat -e task-clock,context-switches -p "$pids" -I 1000 -o /dev/null &
	fi
	pp=$!
	mon="$tp $rp $pp $cpid $btp $brp $bcpid"
	all="$tp $rp $dpid $pp $btp $brp $bdp"
	sleep "$WARM"
	for p in $all; do eval "a_$p=$(cpu_ns $p)"; done
	profs=
	if [ -n "${PROFILE:-}" ]; then
		mkdir -p "$PROFILE"
		for w in top:$tp record:$rp daemon:$dpid; do
			perf record -q -e cpu-clock --call-graph dwarf,16384 -p "${w#*:}" -o "$PROFILE/${w%%:*}-$size.data" -- sleep "$SECS" \
				>/dev/null 2>&1 &
			profs="$profs $!"
		done
	fi
	sleep "$SECS"
	for p in $all; do eval "b_$p=$(cpu_ns $p)"; done
	for p in $all; do eval "r_$p=$(rss_mib $p) h_$p=$(hwm_mib $p)"; done
	frames=$(grep -c '^event: frame' "$dir/stream")
	[ -n "$B" ] && bframes=$(grep -c '^event: frame' "$dir/stream.b")
	[ -z "$profs" ] || wait $profs
	kill -INT $tp $rp $pp $btp $brp 2>/dev/null
	wait $tp $rp $pp $btp $brp 2>/dev/null
	kill $cpid $bcpid 2>/dev/null; wait $cpid $bcpid 2>/dev/null
	dp=$dpid
	ms() { eval "awk -v a=\$a_$1 -v b=\$b_$1 -v d=$SECS 'BEGIN { printf \"%.2f\", (b - a) / d / 1e6 }'"; }
	pms=$(ms $pp)
	printf '%-34s %10s %8s %7s %9s %9s\n' "who" "ms CPU/s" "% core" "ratio" "RSS MiB" "peak MiB"
	set -- "top --batch -d 1:$tp" "record -I 1000:$rp" "daemon, 1 session, 1 stream:$dp"
	[ -n "$B" ] && set -- "$@" "top --batch -d 1 (before):$btp" "record -I 1000 (before):$brp" \
		"daemon, 1 session (before):$bdp"
	for w in "$@" "$peer stat -I 1000 (peer):$pp"; do
		p=${w##*:} name=${w%:*}
		v=$(ms $p)
		eval "r=\$r_$p h=\$h_$p"
		printf '%-34s %10s %8s %7s %9s %9s\n' "$name" "$v" "$(awk -v v="$v" 'BEGIN { printf "%.2f", v / 10 }')" \
			"$(awk -v v="$v" -v p="$pms" 'BEGIN { if (p > 0) printf "%.1f", v / p; else print "-" }')" "$r" "$h"
	done
	# the request alone is timed (a python3 start takes over a second on this loaded machine)
	t0=$(date +%s%N)
	resp=$(TMO=5 api GET "/sessions/$sid")
	t1=$(date +%s%N)
	targets=$(printf '%s' "$resp" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("targets", "?"))' 2>/dev/null)
	[ -n "$targets" ] || targets="? (GET /sessions/ID did not answer within 5 s)"
	echo "GET /sessions/ID answered in $(( (t1 - t0) / 1000000 )) ms"
	echo "the daemon session counts $targets threads and streamed $frames frames; top wrote $(grep -c . "$dir/top.out") lines"
	[ -n "$B" ] && echo "before: its daemon streamed $bframes frames; its top wrote $(grep -c . "$dir/topb.out") lines"
	[ -s "$dir/recb.err" ] && echo "record (before) said: $(tail -1 "$dir/recb.err")"
	[ -s "$dir/rec.err" ] && echo "record said: $(tail -1 "$dir/rec.err")"
	kill $dpid $bdpid 2>/dev/null; wait $dpid $bdpid 2>/dev/null
	mon= dpid= bdpid=
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "load average after: $load"
	stop
	sleep 1
done
