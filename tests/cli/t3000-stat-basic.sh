#!/bin/sh
# t3000-stat-basic.sh - vmmprof stat: usage errors, perf's output shapes (table, CSV, JSON),
# default events and what this machine cannot count, exit status of the command
. "$(dirname "$0")/lib.sh"

W="$VP_HELPERS/workload"
no_core_pmu() { ! ls /sys/bus/event_source/devices/ 2>/dev/null | grep -qE '^(cpu|cpu_core|cpu_atom|armv[0-9].*)$'; }

# csv_value EVENT FILE: the first field of the CSV row whose third field is EVENT
csv_value() { awk -F, -v e="$1" '$3 == e { print $1; exit }' "$2"; }

test_expect_success 'unknown option: exit 2' '
	expect_exit 2 vmmprof stat --frob -a 2>err && grep_q "unknown option" err
'

test_expect_success 'nothing to count: exit 2 and says what to give' '
	expect_exit 2 vmmprof stat -e task-clock 2>err && grep_q "give a command, -a" err
'

test_expect_success '-p with -a is refused' '
	expect_exit 2 vmmprof stat -a -p 1 -e task-clock 2>err && grep_q "cannot be combined" err
'

test_expect_success '-G names more cgroups than events before it: exit 2' '
	expect_exit 2 vmmprof stat -a -e task-clock -G a,b sleep 0 2>err &&
	grep_q "more cgroups than events" err
'

test_expect_success 'a CPU that does not exist is a clear error' '
	n=$(getconf _NPROCESSORS_CONF) &&
	expect_exit 1 vmmprof stat -C 0,$((n + 97)) -e task-clock sleep 0 2>err &&
	grep_q "CPU $((n + 97)) does not exist: this machine has CPUs 0" err
'

test_expect_success 'a process that does not exist is a clear error' '
	expect_exit 1 vmmprof stat -p 999999999 -e task-clock 2>err &&
	grep_q "process 999999999 does not exist" err
'

test_expect_success 'an unknown event is an error naming it' '
	expect_exit 1 vmmprof stat -e no-such-event-xyz -- true 2>err &&
	grep_q "no-such-event-xyz" err
'

test_expect_success 'default events: perf layout on stderr, counts, elapsed time, user/sys' '
	vmmprof stat -- "$W" --pages 2000 >out 2>err &&
	! grep -q . out &&
	grep_q "^ Performance counter stats for .*workload --pages 2000.:" err &&
	grep_q " msec task-clock  *# *[0-9.]* CPUs utilized" err &&
	grep_q "^ *[0-9,]*      context-switches" err &&
	grep_q "^ *[0-9,]*      cpu-migrations" err &&
	grep_q "seconds time elapsed" err &&
	grep_q "seconds user" err && grep_q "seconds sys" err
'

test_expect_success 'counts carry thousands separators (2,000 pages touched)' '
	vmmprof stat -e page-faults -- "$W" --pages 2000 2>err &&
	grep_q "^ *[0-9],[0-9][0-9][0-9]      page-faults" err &&
	vmmprof stat --no-big-num -e page-faults -- "$W" --pages 2000 2>err2 &&
	grep_q "^ *[0-9][0-9][0-9][0-9]      page-faults" err2
'

if no_core_pmu; then
	test_expect_success 'no hardware PMU: cycles is <not supported> with the reason and the fallback' '
		vmmprof stat -- true 2>err &&
		grep_q "<not supported>      cycles" err &&
		grep_q "<not supported>      instructions" err &&
		grep_q "cycles: this CPU or VM does not expose .cycles." err &&
		grep_q "vmmprof instead: CPU time comes from task-clock" err
	'
	test_expect_success 'only unsupported events: exit 1 with the explanation' '
		expect_exit 1 vmmprof stat -e cycles -a -- true 2>err &&
		grep_q "does not expose .cycles." err
	'
	test_expect_success 'a dropped event does not stop the others (CSV keeps its row)' '
		vmmprof stat -x, -e cycles,task-clock -- true 2>err &&
		grep_q "^<not supported>,,cycles," err && grep_q ",msec,task-clock," err
	'
else
	test_skip 'cycles reported as not supported' 'this machine has a core PMU'
	test_skip 'only unsupported events fail' 'this machine has a core PMU'
	test_skip 'a dropped event does not stop the others' 'this machine has a core PMU'
fi

test_expect_success '-x, prints perf CSV: value,unit,event,run,pct,metric,metric-unit' '
	vmmprof stat -x, -e task-clock,page-faults -- "$W" --pages 300 2>err &&
	test "$(wc -l <err)" -eq 2 &&
	awk -F, "NF != 7 { exit 1 }" err &&
	grep_q "^[0-9.]*,msec,task-clock,[0-9]*,100.00,[0-9.]*,CPUs utilized$" err &&
	test "$(csv_value page-faults err)" -ge 300
'

test_expect_success '--json: one summary line in the documented schema, -o - to stdout' '
	vmmprof stat --json -o - -e task-clock,page-faults -- "$W" --pages 300 >out 2>err &&
	test "$(wc -l <out)" -eq 1 &&
	python3 - out <<-PY
	import json, sys
	j = json.loads(open(sys.argv[1]).read())
	assert j["schema"] == "vmmprof-stat/1" and j["type"] == "summary", j
	ev = {e["event"]: e for e in j["events"]}
	assert ev["page-faults"]["state"] == "counted"
	assert ev["page-faults"]["value"] >= 300, ev
	assert ev["task-clock"]["unit"] == "msec"
	assert abs(ev["task-clock"]["value"] * 1e6 - ev["task-clock"]["count"]) < 1
	assert j["elapsed"] > 0 and "user" in j and "sys" in j
	PY
'

# A single-threaded command uses at most one CPU: task-clock <= elapsed.  The
# clock once started only when the exec was confirmed, after a command as
# short as true had already run: "14.421 CPUs utilized" on two CPUs.
test_expect_success 'a short command: elapsed is at least its task-clock (<= 1 CPU utilized)' '
	for i in 1 2 3 4 5 6 7 8; do
		vmmprof stat --json -o - -e task-clock -- true >out 2>err &&
		python3 - out <<-PY || return 1
		import json, sys
		j = json.loads(open(sys.argv[1]).read())
		tc = [e for e in j["events"] if e["event"] == "task-clock"][0]["count"] / 1e9
		assert tc <= j["elapsed"] * 1.001, (tc, j["elapsed"])
		PY
	done
'

test_expect_success '-o FILE: counts in the file, nothing on the terminal' '
	vmmprof stat -o counts.txt -e task-clock -- true >out 2>err &&
	! grep -q . out && ! grep -q . err &&
	grep_q "task-clock" counts.txt
'

test_expect_success 'the command exit status is vmmprof stat exit status' '
	expect_exit 3 vmmprof stat -e task-clock -- sh -c "exit 3" 2>err
'

test_expect_success 'a command that cannot run: exit 127 and says why' '
	expect_exit 127 vmmprof stat -e task-clock -- ./no-such-program 2>err &&
	grep_q "cannot run .\./no-such-program.: No such file" err
'

test_expect_success '{a,b} groups and pmu/a,b/ commas are split as perf splits them' '
	vmmprof stat -x, -e "{task-clock,page-faults},context-switches" -- true 2>err &&
	test "$(wc -l <err)" -eq 3 &&
	grep_q ",page-faults," err && grep_q ",context-switches," err
'

test_done
