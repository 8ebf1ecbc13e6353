#!/bin/sh
# t3060-stat-per-thread.sh - vmmprof stat --per-thread: one row per thread and
# event, named comm-tid as perf names them, each thread's own counts
. "$(dirname "$0")/lib.sh"

W="$VP_HELPERS/workload"

test_expect_success '-p --per-thread --json: each thread its own task-clock and switches' '
	rm -f r go j; "$W" --wait-file go --cpu-ms 300 --thread-ms 150 --switches 20 --hold-ms 100 --report r &
	wpid=$! &&
	wait_report r thread_tid && pid=$(report pid r) && tid=$(report thread_tid r) &&
	{ "$VMMPROF" stat --per-thread --json -o j -I 100 -p $pid -e task-clock,context-switches & vp=$!; } &&
	wait_lines j && touch go &&
	wait $vp && wait $wpid &&
	python3 - j $pid $tid "$(report work_cpu_ns r)" "$(report thread_cpu_ns r)" <<-PY
	import json, sys
	ls = [json.loads(l) for l in open(sys.argv[1])]
	pid, tid, work, th = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
	s = ls[-1]
	assert s["type"] == "summary", s
	rows = {(e["event"], e["tid"]): e for e in s["events"]}
	# perf names a thread comm-tid; the workload is called "workload"
	for (ev, t), e in rows.items():
	    assert e["thread"] == "workload-%d" % t and e["pid"] == pid, e
	tcm, tct = rows[("task-clock", pid)]["count"], rows[("task-clock", tid)]["count"]
	# the burner thread measured its own CPU time; the main thread the rest of the work
	assert 0.95 * th <= tct <= 1.05 * th + 15e6, (tct, th)
	assert 0.95 * (work - th) <= tcm <= 1.05 * work + 30e6, (tcm, work, th)
	# the 20 sleeps are the main thread'"'"'s: at least 20 switches there
	assert rows[("context-switches", pid)]["count"] >= 20, rows[("context-switches", pid)]
	# rows go event by event, as perf prints them
	evs = [e["event"] for e in s["events"]]
	assert evs == sorted(evs, key=lambda x: x != "task-clock"), evs
	# the per-thread CPUs-utilized metric is of that thread
	m = rows[("task-clock", tid)]
	assert abs(m["metric"] - m["count"] / (s["elapsed"] * 1e9)) <= 0.01, m
	PY
'

test_expect_success '-p --per-thread table: perf'"'"'s "%16s-%-7d" thread column, one row per thread' '
	"$W" --idle-threads 2 --hold-ms 1500 &
	wpid=$! && sleep 0.3 &&
	n=$(ls /proc/$wpid/task | wc -l) &&
	vmmprof stat --per-thread -e task-clock -p $wpid 2>t &&
	wait $wpid &&
	test "$(grep -c "msec task-clock" t)" = "$n" &&
	grep_q "^        workload-$wpid *[0-9.,]* msec task-clock" t &&
	# comm padded to 16 columns, "-", tid left-aligned in 7, a blank: 25 columns
	line=$(grep "workload-$wpid " t) &&
	test "$(printf "%s" "$line" | cut -c1-25)" = "$(printf "%16s-%-7d " workload $wpid)"
'

test_expect_success 'a command --per-thread -x,: one row named after the command, its threads folded in' '
	vmmprof stat --per-thread -x, -e task-clock -- "$W" --cpu-ms 100 --thread-ms 100 --report r 2>c &&
	test "$(wc -l <c)" = 1 &&
	pid=$(report pid r) &&
	test "$(cut -d, -f1 c)" = "workload-$pid" &&
	test "$(cut -d, -f3 c)" = msec &&
	# the thread it started inherits the counter: both burns are in the one row
	awk -F, "{ exit !(\$2 >= 0.95 * 200) }" c || { cat c; false; }
'

test_expect_success '-t --per-thread: the one thread asked for' '
	rm -f r go; "$W" --wait-file go --thread-ms 100 --hold-ms 100 --report r &
	wpid=$! &&
	wait_report r thread_tid && tid=$(report thread_tid r) &&
	{ "$VMMPROF" stat --per-thread -x, -I 100 -t $tid -e task-clock 2>v & vp=$!; } &&
	wait_lines v && touch go && wait $vp && wait $wpid &&
	# interval lines: time, thread, value...; the last says the thread ended
	grep -v " # thread $tid .* ended" v >rows &&
	test -s rows &&
	awk -F, -v t="workload-$tid" "\$2 != t { bad = 1 } END { exit bad }" rows || { cat v; false; }
'

test_expect_success 'usage: --per-thread with -a, -C, -G, -r or -m' '
	expect_exit 2 vmmprof stat --per-thread -a -- true 2>e && grep_q "goes with -p, -t or a command" e &&
	expect_exit 2 vmmprof stat --per-thread -C 0 -- true 2>e &&
	expect_exit 2 vmmprof stat --per-thread -r 2 -- true 2>e &&
	expect_exit 2 vmmprof stat --per-thread -m software -- true 2>e
'

test_expect_success 'help and man page describe --per-thread' '
	vmmprof help stat >h &&
	grep_q "^  --per-thread  *one row per thread" h &&
	vmmprof help --man stat >m &&
	grep_q "per\\\\-thread" m
'

test_done
