#!/bin/sh
# t11030-pid-gone.sh - record, diagnose and the daemon refuse a process that
# does not exist (as stat -p does), and record says when every process it
# named has exited and stops, keeping every interval before
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

# a pid nothing runs as: a child that has exited and been reaped
sh -c 'exit 0' & gone=$!
wait $gone

test_expect_success 'record -p PID that does not exist: error naming it, exit 1, no file' '
	expect_exit 1 vmmprof record -q -o r.vmmdb -p $gone -d 0.3 -I 100 2>err &&
	grep_q "process $gone does not exist" err &&
	test ! -e r.vmmdb
'

test_expect_success 'diagnose -p PID that does not exist: error naming it, exit 1' '
	expect_exit 1 vmmprof diagnose -p $gone -d 0.2 >out 2>err &&
	grep_q "process $gone does not exist" err &&
	! grep -q "No VM found" out
'

test_expect_success 'one missing among several: still an error' '
	sleep 5 & s=$! &&
	expect_exit 1 vmmprof record -q -o r2.vmmdb -p $s,$gone -d 0.3 -I 100 2>err;
	rc=$?; kill $s; test $rc = 0 &&
	grep_q "process $gone does not exist" err
'

test_expect_success 'record -p: the process exits after ~0.6 s of 6: said, stopped, intervals kept' '
	# the process ends 0.6 s after record has attached (its first line), not after it
	# was started: on a loaded machine the start-up alone took longer than that
	rm -f go err x.vmmdb && { sh -c "while [ ! -e go ]; do sleep 0.05; done; sleep 0.6" & s=$!; } &&
	{ "$VMMPROF" record -o x.vmmdb -p $s -d 6 -I 200 2>err & rp=$!; } &&
	i=0 && while [ $i -lt 400 ] && ! grep -q "^vmmprof record: " err; do sleep 0.05; i=$((i + 1)); done &&
	touch go && wait $rp &&
	grep_q "every process recorded has exited: stopping after [0-9]* intervals" err &&
	n=$(sed -n "s/.*stopping after \([0-9]*\) intervals.*/\1/p" err) &&
	vmmprof report --json x.vmmdb >x.json &&
	# every interval said is in the file; the process is in the ones while it ran
	test "$(json_get x.json "len(j[\"intervals\"])")" = "$n" &&
	test "$(json_get x.json "sum(1 for i in j[\"intervals\"] if i[\"rows\"])")" -ge 2 &&
	# stopped within a few intervals of the exit (0.6 s is 3 intervals; one or two
	# more for noticing it, and a loaded machine), not at 6 s (30 intervals)
	test "$n" -le 9
'

if "$VMMPROF" serve --users /nonexistent 2>&1 | grep -q "built without libmicrohttpd" ||
	! command -v curl >/dev/null 2>&1; then
	test_skip 'the daemon refuses a session on a process that does not exist' \
		'no daemon in this build, or no curl'
else
test_expect_success 'the daemon: a session on a process that does not exist is 400 naming it' '
	add_users users adm:admin &&
	start_daemon d --users users --model-path "$VP_DATA/../../models" &&
	expect_status 400 d "$TRASH/adm.token" POST /api/v1/sessions -d "{\"pids\":[$gone]}" &&
	grep_q "process $gone does not exist" body &&
	expect_status 200 d "$TRASH/adm.token" GET /api/v1/sessions &&
	test "$(json_get body "len(j[\"sessions\"])")" = 0
'
fi

stop_all_daemons
test_done
