#!/bin/sh
# t11040-diagnose-process-exits.sh - diagnose -p over a process that exits
# mid-run keeps what was counted before the exit, and says it exited
. "$(dirname "$0")/lib.sh"

HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME
W=${VP_HELPERS:+$VP_HELPERS/workload}

if [ -z "$W" ] || [ ! -x "$W" ]; then
	test_skip 'diagnose -p of a process that exits mid-run' 'tests/helpers/workload is not built (VP_HELPERS)'
else
test_expect_success 'diagnose -p: a process burning 200 ms then exiting early in a 5 s run is diagnosed, not lost' '
	# the work starts once diagnose has attached (its "collecting" line), not
	# after a fixed delay that a loaded machine spent starting diagnose;
	# 200 ms of CPU in 5 s: at load 10 on two CPUs 400 ms took longer than 3 s
	rm -f go err w.rep &&
	"$W" --wait-file go --cpu-ms 200 --report w.rep &
	wp=$! &&
	wait_report w.rep pid &&
	{ "$VMMPROF" diagnose --json -p $wp -d 5 >d.json 2>err & dp=$!; } &&
	i=0 && while [ $i -lt 400 ] && ! grep -q "collecting for" err; do sleep 0.05; i=$((i + 1)); done &&
	touch go && wait $dp &&
	wait $wp &&
	test "$(json_get d.json "len(j[\"diagnosis\"][\"vms\"])")" = 1 &&
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"vm\"]")" = workload &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "exited during the run, counted until then: process .workload. (pid $wp)" notes &&
	# no PMU here: cycles are task-clock (ns) x MHz / 1000, over the 200 ms burnt after attaching
	mhz=$(awk -F: "/^cpu MHz/ {print \$2; exit}" /proc/cpuinfo) &&
	work=$(report work_cpu_ns w.rep) && proc=$(report proc_cpu_ns w.rep) &&
	cyc=$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"cycles\"]") &&
	python3 -c "import sys; c, w, p, m = map(float, sys.argv[1:]);
assert 0.8 * w * m / 1e3 <= c <= 1.25 * p * m / 1e3, (c, w, p, m)" "$cyc" "$work" "$proc" "$mhz"
'
fi

test_expect_success 'the text report names the process, not "No VM found"' '
	# the process ends 0.5 s after diagnose has attached (its "collecting" line), not
	# 0.5 s after it was started: on a loaded machine the start-up took longer than that
	rm -f go err d.txt &&
	{ sh -c "while [ ! -e go ]; do sleep 0.05; done; sleep 0.5" & sp=$!; } &&
	{ "$VMMPROF" diagnose -p $sp -d 3 >d.txt 2>err & dp=$!; } &&
	i=0 && while [ $i -lt 400 ] && ! grep -q "collecting for" err; do sleep 0.05; i=$((i + 1)); done &&
	touch go && wait $dp &&
	! grep -q "No VM found" d.txt &&
	grep_q "exited during the run" d.txt
'

test_done
