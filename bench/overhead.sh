#!/bin/sh
# overhead.sh - what counting costs: CPU time `vmmprof stat -a -I 1000` spends per second
# against `perf stat -a -I 1000` with the same software events in the same run, and the
# cost per interval of reading 1,000 per-thread counters.  Not a timed test: it prints the
# figures (record them in docs/performance.md).
#
#   bench/overhead.sh [SECONDS]      default 10 s of steady state per measurement
#
# CPU time is the first field of /proc/PID/schedstat (ns on CPU), read after a warm-up
# second and again SECONDS later, so start-up (opening the counters) is left out.
set -u
cd "$(dirname "$0")/.."
D=${1:-10}
V=${VMMPROF:-build/vmmprof}
W=${VP_HELPERS:-build/helpers}/workload
EV=task-clock,context-switches,cpu-migrations,page-faults
[ -x "$V" ] && [ -x "$W" ] || { echo "overhead: build first (make)" >&2; exit 1; }
command -v perf >/dev/null || echo "overhead: perf not installed: the perf column stays empty" >&2

cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat" 2>/dev/null || echo 0; }

# measure PID...: CPU ns each spends over D seconds after a 1 s warm-up
measure() {
	sleep 1
	for p in "$@"; do eval "a_$p=$(cpu_ns "$p")"; done
	sleep "$D"
	for p in "$@"; do eval "b_$p=$(cpu_ns "$p")"; done
}
per_sec() { eval "awk -v a=\$a_$1 -v b=\$b_$1 -v d=$D 'BEGIN { printf \"%.3f\", (b - a) / d / 1e6 }'"; }

echo "== system-wide, $EV, -I 1000, ${D} s, $(nproc) CPUs"
"$V" stat -a -I 1000 -e "$EV" -o /dev/null &
vp=$!
pp=""
if command -v perf >/dev/null; then
	perf stat -a -I 1000 -e "$EV" -o /dev/null &
	pp=$!
fi
measure $vp $pp
v_ms=$(per_sec $vp)
p_ms=""
[ -n "$pp" ] && p_ms=$(per_sec $pp)
kill -INT $vp $pp 2>/dev/null
wait $vp $pp 2>/dev/null
printf "vmmprof stat: %s ms CPU per second\n" "$v_ms"
[ -n "$pp" ] && printf "perf stat:    %s ms CPU per second\n" "$p_ms" &&
	awk -v v="$v_ms" -v p="$p_ms" 'BEGIN { if (p > 0) printf "ratio vmmprof/perf: %.2f\n", v / p; else print "ratio: perf used no measurable CPU" }'

for nev in 1 4; do
	ev=task-clock
	[ $nev = 4 ] && ev=$EV
	echo "== 1,000 threads (-p), $nev event(s) each: $((nev * 1000)) counters, -I 1000, ${D} s"
	"$W" --idle-threads 999 --hold-ms $(( (D + 8) * 1000 )) &
	wp=$!
	sleep 1
	n=$(ls /proc/$wp/task | wc -l)
	"$V" stat -p $wp -I 1000 -e "$ev" -o /dev/null &
	vp=$!
	pp=""
	if command -v perf >/dev/null; then
		perf stat -p $wp -I 1000 -e "$ev" -o /dev/null 2>/dev/null &
		pp=$!
	fi
	measure $vp $pp
	v_ms=$(per_sec $vp)
	p_ms=""
	[ -n "$pp" ] && p_ms=$(per_sec $pp)
	kill -INT $vp $pp 2>/dev/null
	kill $wp
	wait $vp $pp $wp 2>/dev/null
	printf "threads: %d\nvmmprof stat: %s ms CPU per 1 s interval = %s %% of one core\n" "$n" "$v_ms" \
		"$(awk -v v="$v_ms" 'BEGIN { printf "%.3f", v / 10 }')"
	[ -n "$pp" ] && printf "perf stat:    %s ms CPU per 1 s interval = %s %% of one core\n" "$p_ms" \
		"$(awk -v v="$p_ms" 'BEGIN { printf "%.3f", v / 10 }')"
done
