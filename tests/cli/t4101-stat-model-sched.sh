#!/bin/sh
# t4101-stat-model-sched.sh - the sched.* and placement.* software sources in
# `stat -m`: per task for -p (from /proc/TID/schedstat and /proc/TID/sched),
# absent with a reason that says where they are for a part of the machine,
# wait time for a command, and (placement) everywhere stat -m runs.
. "$(dirname "$0")/lib.sh"

HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

# metric NAME of the last JSON line of FILE: "value" or "null|reason"
metric() {
	tail -n 1 "$2" | python3 -c 'import json,sys
j = json.loads(sys.stdin.read())
m = [m for m in j["metrics"] if m["name"] == sys.argv[1]][0]
print(m["value"] if m["value"] is not None else "null|" + m.get("reason", ""))' "$1"
}

if [ -r /proc/self/schedstat ]; then
	test_expect_success 'stat -m software -p: wait_frac from the process schedstat is a share, not n/a' '
		sh -c "end=\$((\$(date +%s) + 3)); while [ \$(date +%s) -lt \$end ]; do :; done" &
		spin=$!
		vmmprof stat -m software --json -o j -p $spin -- sleep 1; rc=$?
		kill $spin 2>/dev/null; wait $spin 2>/dev/null
		test $rc = 0 &&
		w=$(metric wait_frac j) &&
		python3 -c "import sys; v = float(sys.argv[1]); sys.exit(not (0 <= v <= 1))" "$w" ||
		{ echo "wait_frac: $w"; return 1; }
	'
else
	test_skip 'stat -m software -p: wait_frac from the process schedstat' 'no /proc/self/schedstat here'
fi

# a model that shows the sched sources themselves (their increase over the run)
cat >"$TRASH/sched.model" <<'EOM'
model sched
event tclk = task-clock
source run  = sched.run_ns
source wait = sched.wait_ns
source migr = sched.migrations optional
metric run_total [ns] = run
metric wait_total [ns] = wait
metric migr_total = migr
factor locality unavailable "not this test"
factor llc unavailable "not this test"
factor sharing unavailable "not this test"
factor imc unavailable "not this test"
factor queue unavailable "not this test"
EOM

if [ -r /proc/self/schedstat ] && [ -r /proc/self/sched ]; then
	test_expect_success 'stat -m -p: run time and migrations are the increase of the task counters' '
		sh -c "end=\$((\$(date +%s) + 4)); while [ \$(date +%s) -lt \$end ]; do :; done" &
		spin=$!
		sleep 0.2
		before=$(cut -d" " -f1 /proc/$spin/schedstat)
		mbefore=$(sed -n "s/^se.nr_migrations *: *//p" /proc/$spin/sched)
		vmmprof stat -m ./sched.model --json -o j -p $spin -- sleep 1; rc=$?
		after=$(cut -d" " -f1 /proc/$spin/schedstat)
		mafter=$(sed -n "s/^se.nr_migrations *: *//p" /proc/$spin/sched)
		kill $spin 2>/dev/null; wait $spin 2>/dev/null
		test $rc = 0 &&
		r=$(metric run_total j) && m=$(metric migr_total j) &&
		echo "run $r in [0, $((after - before))], migrations $m in [0, $((mafter - mbefore))]" &&
		python3 -c "import sys; r, lim, m, mlim = map(float, sys.argv[1:]); sys.exit(not (0 < r <= lim and 0 <= m <= mlim))" \
			"$r" "$((after - before))" "$m" "$((mafter - mbefore))"
	'
else
	test_skip 'stat -m -p: run time and migrations' 'no /proc/self/schedstat or /proc/self/sched here'
fi

test_expect_success 'stat -m software -- COMMAND: wait time is absent and says where it is (t3070: run time and migrations)' '
	vmmprof stat -m software --json -o j -- true &&
	metric wait_frac j >w &&
	grep_q "^null|source .wait_ns. unavailable: not for a command stat starts" w &&
	grep_q "per task with stat -m -p/-t on running tasks" w
'

test_expect_success 'placement, and node migrations machine-wide: absent in stat -m, with where they are computed' '
	vmmprof stat -m software -a --json -o j -- true &&
	metric node_migr_rate j >n &&
	grep_q "counted per task by stat -m -p/-t and for a command" n &&
	grep_q "not for the whole machine" n &&
	vmmprof model show software >show &&
	show_row place_rem show >p &&
	grep_q "computed per VM and vCPU by diagnose, top, record and the daemon" p &&
	grep_q "stat -m has no vCPU rows" p &&
	! grep -q "placement.*in this build yet\|sched\..*in this build yet" show
'

test_expect_success 'stat -m software -C 0: a part of the machine has no sched values' '
	vmmprof stat -m software -C 0 --json -o j -- sleep 0.2 &&
	metric wait_frac j >w &&
	grep_q "not for a part of the machine (-C, -G)" w
'

test_done
