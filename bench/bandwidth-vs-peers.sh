#!/bin/sh
# bandwidth-vs-peers.sh - our bandwidth kernels against mbw, sysbench memory and
# stress-ng --stream on this machine, in this run; and the spread of our DRAM
# latency over five runs.  A performance script, not a test: it prints the
# figures (and a markdown table for docs/performance.md) and exits 0 unless a
# tool is missing or fails.
#
#   bench/bandwidth-vs-peers.sh [VMMPROF]     (default build/vmmprof)
#
# Counting: mbw reports MiB copied (one side), sysbench MiB read or written,
# stress-ng MB read and MB written separately.  Our copy figure counts read +
# write (STREAM), so it is halved against mbw; everything is converted to
# GB/s (10^9 B/s).  Each pair is run interleaved, twice, best of each kept,
# so a noisy neighbour hurts both sides alike.
set -eu
cd "$(dirname "$0")/.."
VMMPROF=${1:-build/vmmprof}
[ -x "$VMMPROF" ] || { echo "build first: make" >&2; exit 1; }
for t in mbw sysbench stress-ng python3; do
	if ! command -v $t >/dev/null; then
		echo "installing $t (Debian package)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"$( [ $t = python3 ] && echo python3 || echo $t)" >/dev/null
	fi
done
ncpu=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ARRAY_MIB=256          # per array: several times any LLC here
SECS=${SECS:-4}

ours() {   # ours KERNEL THREADS -> GB/s (best of the bandwidth sweep row)
	"$VMMPROF" bench bandwidth --json -q --time "$SECS" >"$tmp/bw.json"
	python3 - "$tmp/bw.json" "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["scenarios"]["bandwidth"]
row = [r for r in j["sweep"] if r["threads"] == int(sys.argv[3])][0]
print(row[sys.argv[2]])
PY
}

mbw_copy() {   # single thread memcpy, MiB/s -> GB/s
	mbw -q -n 5 -t0 "$ARRAY_MIB" | awk '/^AVG/ {for (i = 1; i <= NF; i++) if ($i == "Copy:") print $(i + 1) * 1048576 / 1e9}'
}

sysbench_mem() {   # sysbench_mem read|write THREADS -> GB/s
	# --memory-scope=local: a buffer per thread, as ours has.  sysbench's
	# default (global) has every thread read the one buffer, so a line one
	# thread brought into the shared L3 can be a hit for the other: bytes
	# counted that DRAM never delivered.
	sysbench memory --memory-block-size="${ARRAY_MIB}M" --memory-total-size=1000G \
		--memory-scope=local \
		--memory-oper="$1" --memory-access-mode=seq --threads="$2" --time="$SECS" run |
		awk -F'[()]' '/MiB\/sec/ {split($2, a, " "); print a[1] * 1048576 / 1e9}'
}

stressng_stream() {   # THREADS -> "read_GBs write_GBs" (MB/s from its log)
	# its three arrays are 4x the "L3 size" each: ARRAY_MIB each, like ours
	stress-ng --stream "$1" --stream-l3-size $((ARRAY_MIB / 4 * 1024 * 1024)) -t $((SECS * 2)) \
		--metrics 2>&1 | awk '/memory rate/ {
			for (i = 1; i <= NF; i++) { if ($(i+1) == "MB" && $(i+2) == "read/sec,") r += $i;
				if ($(i+1) == "MB" && $(i+2) == "write/sec,") w += $i }
		} END { if (r + w > 0) printf "%.3f %.3f\n", r / 1000, w / 1000 }'
}

best() { printf '%s\n%s\n' "$1" "$2" | grep . | sort -g | tail -1; }
# a figure with two decimals, n/a when a tool printed nothing usable
num() { python3 -c "import sys
try: print('%.2f' % float(sys.argv[1]))
except ValueError: print('n/a')" "${1:-}"; }
ratio() { python3 -c "import sys
try: a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.2f' % (a / b) if b > 0 else 'n/a')
except ValueError: print('n/a')" "${1:-}" "${2:-}"; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $ncpu CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "peers: $(mbw 2>&1 | head -0; dpkg-query -W -f='mbw ${Version}, ' mbw)$(sysbench --version), $(stress-ng --version | cut -d, -f1)"
echo
rows=""
add() {
	a=$(num "$3"); b=$(num "$4")
	rows="$rows
| $1 | $2 | $a | $b | $5 | $6 |"
	printf '%-34s %8s %8s GB/s   ratio %s\n' "$1 ($2)" "$a" "$b" "$5"
}

# copy, 1 thread: ours (read+write counted) / 2 against mbw memcpy
o1=$(ours copy 1); p1=$(mbw_copy); o2=$(ours copy 1); p2=$(mbw_copy)
o=$(python3 -c "print(max($o1, $o2) / 2)"); p=$(best "$p1" "$p2")
add "copy, bytes copied" "1 thread" "$o" "$p" "$(ratio "$o" "$p")" "mbw -t0 (memcpy)"

for thr in 1 $ncpu; do
	[ "$thr" = 1 ] || [ "$ncpu" -gt 1 ] || continue
	for op in read write; do
		o1=$(ours $op $thr); p1=$(sysbench_mem $op $thr); o2=$(ours $op $thr); p2=$(sysbench_mem $op $thr)
		o=$(best "$o1" "$o2"); p=$(best "$p1" "$p2")
		add "$op" "$thr thread(s)" "$o" "$p" "$(ratio "$o" "$p")" "sysbench memory --memory-oper=$op"
	done
	# stress-ng's stream is a triad: 2 reads + 1 write per element
	o1=$(ours triad $thr); s1=$(stressng_stream $thr); o2=$(ours triad $thr); s2=$(stressng_stream $thr)
	o=$(best "$o1" "$o2")
	p=$(printf '%s\n%s\n' "$s1" "$s2" | awk '{t = $1 + $2; if (t > m) m = t} END {if (m > 0) print m}')
	add "triad, read+write" "$thr thread(s)" "$o" "$p" "$(ratio "$o" "$p")" "stress-ng --stream (triad)"
done

echo
echo "DRAM latency, five runs (vmmprof bench latency --matrix, the (0,0) cell),"
echo "each followed by bench/ref-chase.c (a plain mean-of-one-chase, 128 MiB, the same CPU):"
cc -O2 -D_GNU_SOURCE -Isrc -o "$tmp/ref-chase" bench/ref-chase.c src/bench/refchase.c -lm
lat=""; ref=""; quiet=""
for i in 1 2 3 4 5; do
	"$VMMPROF" bench latency --matrix --json -q --time "$SECS" >"$tmp/lat.json"
	v=$(python3 -c "import json; print(round(json.load(open('$tmp/lat.json'))['scenarios']['latency']['matrix_ns'][0][0], 2))")
	q=$(python3 -c "import json; print(round(json.load(open('$tmp/lat.json'))['scenarios']['latency']['sample_spread_pct'], 1))")
	r=$("$tmp/ref-chase" 128 "$(python3 -c "print($SECS * 0.4)")" "$i")
	lat="$lat $v"; ref="$ref $r"; quiet="$quiet $q"
	echo "  run $i: $v ns (its samples' median $q % above)   reference $r ns"
done
spread() { python3 -c "import sys, statistics as s; v = [float(x) for x in sys.argv[1:]]; print('%.1f' % ((max(v) - min(v)) / s.median(v) * 100))" "$@"; }
spread=$(spread $lat); rspread=$(spread $ref)
echo "  spread (max - min) / median: $spread %  (target < 3 %); the reference's: $rspread %"
echo "  (the reference has no method to blame: its spread is the machine's own variation)"
echo "  within each run the samples sat$quiet % above the figure: over 3 % the run itself"
echo "  says the machine was not quiet (bench latency's sample_spread_pct, docs/bench.md)"
echo
echo "markdown:"
echo "| operation | threads | vmmprof GB/s | peer GB/s | ratio | peer |"
echo "|---|---|---|---|---|---|$rows"
echo "| DRAM latency, 5 runs | 1 | $lat ns | $ref ns | spread $spread % (reference $rspread %) | bench/ref-chase.c |"
