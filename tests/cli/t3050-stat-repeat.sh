#!/bin/sh
# t3050-stat-repeat.sh - vmmprof stat -r N: N runs of a command, the mean of
# each count with perf's relative spread "( +- x% )" (the standard deviation
# of the mean over the mean, tools/perf/util/stat.c), the elapsed time's
# mean and spread, and failing runs (perf goes on and exits as the last run)
. "$(dirname "$0")/lib.sh"

W="$VP_HELPERS/workload"

# The command of run k (k = 0, 1, 2, ... from the file n) burns (k + 1) * 100 ms
# of CPU: task-clock runs of about 100, 200 and 300 ms.
cat >"$TRASH/burn.sh" <<EOS
n=\$(cat n); echo \$((n + 1)) >n
exec "$W" --cpu-ms \$(((n + 1) * 100))
EOS

test_expect_success '-r 3 --json: three runs, each task-clock what its run burned' '
	echo 0 >n &&
	vmmprof stat -r 3 --json -o j -e task-clock,page-faults -- sh burn.sh &&
	test "$(cat n)" = 3 &&
	python3 - j <<-PY
	import json, sys
	s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
	assert s["type"] == "summary" and s["runs"] == 3, s
	assert s["exit_status"] == [0, 0, 0], s["exit_status"]
	tc = [e for e in s["events"] if e["event"] == "task-clock"][0]
	runs = tc["runs"]
	assert len(runs) == 3, runs
	# each run burned (k+1)*100 ms of CPU; task-clock adds the start-up of sh and of
	# the workload and its exit: tens of ms, up to ~100 ms in a sanitizer build on
	# a loaded machine (CI saw 190, 291, 389).  That overhead is the same in each
	# run, so the step from one run to the next is the 100 ms burned
	for k, v in enumerate(runs):
	    want = (k + 1) * 100
	    assert 0.97 * want <= v <= want + 250, (k, v, runs)
	for a, b in zip(runs, runs[1:]):
	    assert 60 <= b - a <= 140, (a, b, runs)
	# a run is single-threaded: it cannot use more CPU than the time it took
	for v, el in zip(runs, s["elapsed_runs"]):
	    assert v / 1000 <= el * 1.02 + 0.002, (v, el)
	PY
'

test_expect_success '-r 3 --json: mean, stddev and noise_pct computed from the runs as perf does' '
	python3 - j <<-PY
	import json, math, sys
	s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
	def check(runs, mean, sd, what):
	    n = len(runs)
	    m = sum(runs) / n
	    # perf stddev_stats(): sqrt(sum((x - mean)^2) / (n - 1) / n)
	    want_sd = math.sqrt(sum((x - m) ** 2 for x in runs) / (n - 1) / n)
	    assert abs(mean - m) <= 1e-9 * abs(m) + 1e-12, (what, mean, m)
	    assert abs(sd - want_sd) <= 1e-6 * want_sd + 1e-12, (what, sd, want_sd)
	    return m, want_sd
	for e in s["events"]:
	    m, sd = check(e["runs"], e["value"], e["stddev"], e["event"])
	    assert abs(e["noise_pct"] - 100 * sd / m) <= 1e-6, e
	check(s["elapsed_runs"], s["elapsed"], s["elapsed_stddev"], "elapsed")
	tc = [e for e in s["events"] if e["event"] == "task-clock"][0]
	# runs of 100, 200, 300 ms: sd of the mean 57.7 ms, 28.9 % of 200 ms; the
	# start-up added to every run (at most 250 ms, above) makes the share
	# smaller: 57.7 / (200 + 250) = 12.8 %.  On a loaded machine the steps
	# between runs wander (60..140 ms, above): at the widest, runs of 97, 237
	# and 377 ms have an sd of the mean of 80.8 ms, 34.1 % of their mean 237
	assert 12 <= tc["noise_pct"] <= 34.1, tc["noise_pct"]
	assert abs(tc["count"] - tc["value"] * 1e6) <= 1e-6 * tc["count"], tc
	assert tc["metric_unit"] == "CPUs utilized", tc
	PY
'

test_expect_success '-r 3 table: "(3 runs)", "( +- x% )" after the metric, elapsed "a +- b"' '
	echo 0 >n &&
	vmmprof stat -r 3 -e task-clock -- sh burn.sh 2>t &&
	grep_q "^ Performance counter stats for .sh burn.sh. (3 runs):$" t &&
	grep "msec task-clock" t >row &&
	grep_q "# *[0-9.]* CPUs utilized   ( +- *[0-9.]*% )$" row &&
	pct=$(sed -n "s/.*( +- *\([0-9.]*\)% )$/\1/p" row) &&
	awk -v p="$pct" "BEGIN { exit !(p >= 12 && p <= 29) }" &&
	grep "seconds time elapsed" t >el &&
	# perf: " %17.*f +- %.*f seconds time elapsed" with as many decimals on both sides
	grep_q "^ *[0-9]*\.[0-9]* +- [0-9]*\.[0-9]* seconds time elapsed" el &&
	a=$(sed "s/^ *[0-9]*\.\([0-9]*\) +- .*/\1/" el) && b=$(sed "s/.* +- [0-9]*\.\([0-9]*\) sec.*/\1/" el) &&
	test ${#a} = ${#b} && test ${#a} -le 9 &&
	! grep -q "seconds user" t
'

test_expect_success '-r 3 -x,: a "x.xx%" spread field after the event, then run-ns and pct' '
	echo 0 >n &&
	vmmprof stat -r 3 -x, -e task-clock -- sh burn.sh 2>c &&
	test "$(wc -l <c)" = 1 &&
	awk -F, "{ exit !(\$2 == \"msec\" && \$3 == \"task-clock\" && \$4 ~ /^[0-9]+\.[0-9][0-9]%$/ && \$6 == \"100.00\") }" c ||
		{ cat c; false; } &&
	pct=$(cut -d, -f4 c | tr -d %) &&
	awk -v p="$pct" "BEGIN { exit !(p >= 12 && p <= 29) }"
'

test_expect_success 'a failing run: the runs go on, are counted, the exit code is the last run'"'"'s' '
	echo 0 >n &&
	cat >fail2.sh <<-EOS &&
	n=\$(cat n); echo \$((n + 1)) >n
	test \$n != 1
	EOS
	vmmprof stat -r 3 --json -o j -e task-clock -- sh fail2.sh &&
	test "$(cat n)" = 3 &&
	json_get j "j[\"exit_status\"]" >st && test "$(cat st)" = "[0, 1, 0]" &&
	json_get j "len(j[\"events\"][0][\"runs\"])" >nr && test "$(cat nr)" = 3 &&
	echo 0 >n &&
	vmmprof stat -r 3 -e task-clock -- sh fail2.sh 2>t &&
	grep_q "^ Note: run 2 of 3: the command exited with 1" t &&
	expect_exit 3 vmmprof stat -r 2 -e task-clock -o t -- sh -c "exit 3"
'

test_expect_success '-r 1 is one plain run (no spread, user and sys times)' '
	vmmprof stat -r 1 -e task-clock -- true 2>t &&
	grep_q "^ Performance counter stats for .true.:$" t &&
	grep_q "seconds user" t &&
	! grep -q "+-" t
'

test_expect_success 'usage: -r 0, -r x, -r without a command, with -I, with -m' '
	expect_exit 2 vmmprof stat -r 0 -- true 2>e && grep_q "must be 1 to 100000" e &&
	expect_exit 2 vmmprof stat -r x -- true 2>e &&
	expect_exit 2 vmmprof stat -r 2 -a 2>e && grep_q "repeats a command" e &&
	expect_exit 2 vmmprof stat -r 2 -I 100 -- true 2>e && grep_q "exclude each other" e &&
	expect_exit 2 vmmprof stat -r 2 -m software -- true 2>e && grep_q "exclude each other" e
'

test_expect_success 'a command that cannot run stops the runs: exit 127' '
	expect_exit 127 vmmprof stat -r 3 -e task-clock -- ./no-such-command 2>e &&
	grep_q "cannot run" e
'

test_expect_success 'Ctrl-C ends the runs after the one it interrupts, and exits as that run did' '
	{ "$VMMPROF" stat -r 5 --json -o j -e task-clock -- sleep 1 & vp=$!; } &&
	sleep 1.5 && kill -INT $vp; wait $vp; rc=$?
	test $rc = 130 &&
	python3 - j <<-PY
	import json, sys
	s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
	# SIGINT reached the second run (or, on a slow machine, the first)
	assert 1 <= s["runs"] < 5, s["runs"]
	assert s["exit_status"][-1] == 130 and all(x == 0 for x in s["exit_status"][:-1]), s["exit_status"]
	assert len(s["events"][0]["runs"]) == s["runs"], s
	PY
	{ "$VMMPROF" stat -r 5 -e task-clock -o t -- sleep 1 & vp=$!; } &&
	sleep 1.5 && kill -INT $vp; wait $vp
	grep_q "^ Note: interrupted during run [12] of 5 (its command exited with 130)" t &&
	! grep -q "the runs went on" t
'

test_expect_success 'help and man page describe -r' '
	vmmprof help stat >h &&
	grep_q "^  -r, --repeat N  *run the command N times" h &&
	grep_q "standard deviation of the mean" h &&
	vmmprof help --man stat >m &&
	grep_q "repeat N" m
'

test_done
