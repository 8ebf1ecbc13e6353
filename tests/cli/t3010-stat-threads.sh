#!/bin/sh
# t3010-stat-threads.sh - vmmprof stat on a command, a process (-p) and a thread (-t), live:
# counts against what the workload measured itself and against perf stat in the same run
. "$(dirname "$0")/lib.sh"

W="$VP_HELPERS/workload"
EV=task-clock,page-faults,context-switches,sched:sched_switch

csv_value() { awk -F, -v e="$1" '$3 == e { print $1; exit }' "$2"; }
# wait_counting FILE EVENT: until a counter printed a row of EVENT (perf -o writes its
# "# started on" header before its counters are open: a line is not enough there)
wait_counting() {
	i=0
	while ! grep -q ",$2," "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 600 ] && { echo "no $2 row in $1"; return 1; }
		sleep 0.05
	done
}
# end_counting PID...: Ctrl-C the counters once the workload reported (its work is done, it
# holds): they then count what the workload measured, t0 to t1, and not the process exit
# after it, whose CPU time has no bound (a sanitizer runtime's leak check runs there, and
# takes longer the busier the machine).  perf stat exits 130 on SIGINT.
end_counting() {
	kill -INT "$@" &&
	for p in "$@"; do
		wait "$p"; rc=$?
		[ $rc = 0 ] || [ $rc = 130 ] || { echo "counter $p exited $rc"; return 1; }
	done
}
# isum EVENT FILE: sum of the interval values of EVENT in -I -x, output (perf and vmmprof)
isum() { awk -F, -v e="$1" '$4 == e && $2 !~ /^</ { s += $2 } END { printf "%.6f\n", s }' "$2"; }
# near A B REL ABS: |A - B| <= REL * B + ABS (floats)
near() {
	awk -v a="$1" -v b="$2" -v r="$3" -v t="$4" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		if (d <= r * b + t) exit 0
		printf "%s vs %s: differ by %s, more than %s * %s + %s\n", a, b, d, r, b, t; exit 1 }'
}

test_expect_success 'command: task-clock within 5% of the CPU time it burned, faults >= pages' '
	# the workload without LeakSanitizer: its scan at exit (tens of ms, more on a busy
	# machine) is CPU time after the report, which the bound below cannot know; vmmprof
	# itself keeps it
	vmmprof stat -x, -e $EV -- env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"$W" --cpu-ms 200 --pages 3000 --switches 20 --report r 2>c &&
	cpu_ms=$(awk -v w="$(report work_cpu_ns r)" "BEGIN { print w / 1e6 }") &&
	all_ms=$(awk -v w="$(report proc_cpu_ns r)" "BEGIN { print w / 1e6 }") &&
	tc=$(csv_value task-clock c) &&
	# task-clock counts from the exec: the work, the start-up before it (the
	# sanitizer runtime takes tens of ms) and the exit after the report
	awk -v tc="$tc" -v w="$cpu_ms" -v a="$all_ms" "BEGIN { exit !(tc >= 0.97 * w && tc <= 1.05 * a + 25) }" ||
		{ echo "task-clock $tc ms, workload $cpu_ms ms ($all_ms ms with its start-up)"; false; } &&
	test "$(csv_value page-faults c)" -ge 3000 &&
	test "$(csv_value context-switches c)" -ge 20
'

test_expect_success 'context-switches and sched:sched_switch agree (per task: the same switches)' '
	vmmprof stat -x, -e context-switches,sched:sched_switch -- "$W" --switches 100 2>c &&
	cs=$(csv_value context-switches c) && ss=$(csv_value sched:sched_switch c) &&
	test "$cs" -ge 100 && near "$ss" "$cs" 0.05 3
'

if command -v perf >/dev/null; then
	test_expect_success '-p: every thread, new threads included; same counts as perf stat -p in the same run' '
		rm -f r go v p; "$W" --wait-file go --cpu-ms 200 --thread-ms 100 --pages 2000 --switches 30 --hold-ms 60000 --report r &
		wpid=$! &&
		wait_report r pid && pid=$(report pid r) &&
		# both count in intervals: their first row says the counters are open
		{ "$VMMPROF" stat -x, -I 100 -p $pid -e $EV 2>v & vp=$!; } &&
		{ perf stat -x, -I 100 -p $pid -e $EV -o p & pp=$!; } &&
		wait_counting v task-clock && wait_counting p task-clock && touch go &&
		wait_report r work_cpu_ns && end_counting $vp $pp &&
		{ kill $wpid; wait $wpid; true; } &&
		work=$(report work_cpu_ns r) &&
		tc=$(isum task-clock v) && ptc=$(isum task-clock p) &&
		near "$tc" "$(awk -v w=$work "BEGIN { print w / 1e6 }")" 0.05 20 &&
		near "$tc" "$ptc" 0.03 5 &&
		near "$(isum page-faults v)" "$(isum page-faults p)" 0.01 5 &&
		test "$(isum page-faults v | cut -d. -f1)" -ge 2000 &&
		near "$(isum context-switches v)" "$(isum context-switches p)" 0.05 5 &&
		near "$(isum sched:sched_switch v)" "$(isum sched:sched_switch p)" 0.05 5
	'
else
	test_skip '-p: every thread, new threads included; same counts as perf stat -p in the same run' 'perf is not installed (linux-perf)'
fi

test_expect_success '-p: a thread created after the counters attached is counted (inherit)' '
	rm -f r go j; "$W" --wait-file go --cpu-ms 100 --late-thread-ms 200 --hold-ms 60000 --report r &
	wpid=$! &&
	wait_report r pid && pid=$(report pid r) &&
	{ "$VMMPROF" stat --json -o j -I 100 -p $pid -e task-clock & vp=$!; } &&
	wait_lines j && touch go &&
	wait_report r work_cpu_ns && end_counting $vp &&
	{ kill $wpid; wait $wpid; true; } &&
	test "$(report late_cpu_ns r | cut -d. -f1)" -gt 150000000 &&
	python3 - j "$(report work_cpu_ns r)" "$(report late_tid r)" <<-PY
	import json, sys
	ls = [json.loads(l) for l in open(sys.argv[1])]
	work, late = float(sys.argv[2]), int(sys.argv[3])
	s = ls[-1]
	assert s["type"] == "summary", s
	tc = s["events"][0]["count"]
	# main 100 ms + the late thread 200 ms: the late thread folds into the counters
	# of the thread that created it, and is no series of its own
	assert abs(tc - work) <= 0.05 * work + 20e6, (tc, work)
	assert not any(e.get("tid") == late for e in s["ended"]), s["ended"]
	PY
'

test_expect_success '-t: one thread only, against the CPU time that thread measured' '
	rm -f r go v; "$W" --wait-file go --cpu-ms 150 --thread-ms 250 --hold-ms 100 --report r &
	wpid=$! &&
	wait_report r thread_tid && tid=$(report thread_tid r) &&
	{ "$VMMPROF" stat -x, -I 100 -t $tid -e task-clock 2>v & vp=$!; } &&
	wait_lines v && touch go &&
	wait $vp && wait $wpid &&
	# the thread start and exit around its measured burn (longer in a sanitizer build) add a few ms
	near "$(isum task-clock v)" "$(awk -v w=$(report thread_cpu_ns r) "BEGIN { print w / 1e6 }")" 0.05 15
'

test_expect_success 'a thread that exits mid-run ends its series; the run goes on' '
	# the work starts once the counters are open (their first interval line), not
	# after a fixed delay: under load the start-up outlasted the delay (14.8 ms counted)
	rm -f r go j; "$W" --wait-file go --thread-ms 100 --cpu-ms 50 --hold-ms 900 --report r &
	wpid=$! &&
	wait_report r thread_tid && pid=$(report pid r) && tid=$(report thread_tid r) &&
	{ "$VMMPROF" stat --json -o - -I 100 -p $pid -e task-clock >j 2>err & sp=$!; } &&
	wait_lines j && touch go &&
	wait $sp && wait $wpid &&
	python3 - j $tid <<-PY
	import json, sys
	lines = [json.loads(l) for l in open(sys.argv[1])]
	tid = int(sys.argv[2])
	ivals = [l for l in lines if l["type"] == "interval"]
	ended = [i for i, l in enumerate(ivals) for e in l["ended"] if e["tid"] == tid]
	assert len(ended) == 1, ended
	# counting went on after the thread ended, with the main thread
	assert len(ivals) > ended[0] + 3, (len(ivals), ended)
	summ = lines[-1]
	assert summ["type"] == "summary"
	assert any(e["tid"] == tid for e in summ["ended"]), summ["ended"]
	assert summ["events"][0]["value"] >= 140, summ["events"][0]
	PY
'

test_expect_success 'a thread that exits mid-run is noted in the table' '
	rm -f r; "$W" --delay 300 --thread-ms 100 --hold-ms 600 --report r &
	wpid=$! &&
	wait_report r thread_tid && pid=$(report pid r) && tid=$(report thread_tid r) &&
	vmmprof stat -p $pid -e task-clock 2>err && wait $wpid &&
	grep_q "Note: thread $tid (process $pid) ended after" err
'

test_expect_success 'too few descriptors: says how many the request needs' '
	"$W" --idle-threads 99 --hold-ms 20000 &
	wpid=$! &&
	i=0 && while [ "$(ls /proc/$wpid/task 2>/dev/null | wc -l)" -lt 100 ]; do
		i=$((i + 1)); [ $i -lt 200 ] || break; sleep 0.05; done &&
	# 100 threads x 2 events = 200 counters; without CAP_SYS_RESOURCE the hard
	# limit of 64 cannot be raised
	{ prlimit --nofile=64:64 setpriv --bounding-set -sys_resource --inh-caps -sys_resource \
		"$VMMPROF" stat -p $wpid -e task-clock,page-faults -o /dev/null 2>err; rc=$?; } ;
	kill $wpid; wait $wpid;
	test $rc = 1 &&
	grep_q "counting needs [0-9]* file descriptors (200 counters plus [0-9]* already open) but RLIMIT_NOFILE allows 64: raise it with .ulimit -n" err
'

test_done
