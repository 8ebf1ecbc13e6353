#!/bin/sh
# t10301-remote-sessions.sh - `vmmprof --remote URL` stat, diagnose and record: sessions on a real
# vmmprofd watching a workload process, stopped afterwards, the recording downloaded and readable
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

. "$(dirname "$0")/remote-lib.sh"

if ! daemon_usable; then
	test_skip 'remote sessions against a real daemon' "$daemon_why"
	test_done
	exit
fi
if [ -z "$VP_HELPERS" ] || [ ! -x "$VP_HELPERS/workload" ]; then
	test_skip 'remote sessions against a real daemon' 'VP_HELPERS/workload is not built'
	test_done
	exit
fi

# A process that burns CPU for the whole test (native mode: sessions name it with -p).
"$VP_HELPERS/workload" --cpu-ms 60000 --hold-ms 1000 >/dev/null 2>&1 &
WL=$!

test_expect_success 'set-up: users and a daemon on the live machine' '
	vmmprof user add alice --role operator --users users >alice.tok &&
	vmmprof user add vera --role viewer --users users >vera.tok &&
	mkdir -p recs && start_daemon live --users users --recordings-dir "$TRASH/recs" \
		--audit-log "$TRASH/audit.log"
'
U=$(cat "$TRASH/live.url" 2>/dev/null)
T=$TRASH/alice.tok

if curl -s -m 1 -X POST -H "Authorization: Bearer $(cat vera.tok)" "$U/api/v1/sessions" 2>/dev/null |
	grep -q "no such endpoint"; then
	test_skip 'stat, diagnose, record and Ctrl-C against daemon sessions' 'the daemon has no /api/v1/sessions yet'
	stop_daemon live
	kill "$WL" 2>/dev/null
	wait "$WL" 2>/dev/null
	test_done
	exit
fi

# ctrlc_diag: why a Ctrl-C test failed: what the client printed, whether it still runs and
# catches SIGINT (then it is killed), the sessions, the daemon's log and its audit log
ctrlc_diag() {
	p=$(cat pid 2>/dev/null)
	echo "client ${p:-(no pid)}: exit status '$(cat rc 2>/dev/null)', $(wc -l <out) line(s) on stdout, stderr:"
	sed "s/^/|  /" err
	if [ -n "$p" ] && [ -d "/proc/$p" ]; then
		cgt=$(sed -n "s/^SigCgt:[[:space:]]*//p" "/proc/$p/status")
		echo "the client still runs ($(sed -n "s/^State:[[:space:]]*//p" "/proc/$p/status"), in $(cat "/proc/$p/wchan")); SIGINT caught: $([ $((0x$cgt & 2)) != 0 ] && echo yes || echo no)"
		kill -KILL "$p"
	fi
	echo "sessions: $(curl -s -m 5 -H "Authorization: Bearer $(cat "$T")" "$U/api/v1/sessions")"
	echo "daemon log (tail):"; tail -n 4 "$TRASH/live.err" | sed "s/^/|  /"
	echo "audit log (tail):"; tail -n 4 "$TRASH/audit.log" | sed "s/^/|  /"
	return 1
}

# the sessions alice has that are not stopped
running() {
	curl -s -H "Authorization: Bearer $(cat "$T")" "$U/api/v1/sessions" >sessions.json &&
	json_get sessions.json "len([s for s in j[\"sessions\"] if s[\"state\"] != \"stopped\"])"
}

test_expect_success 'stat -m software -p PID: frames of the session as JSON lines, then stopped' '
	vmmprof --remote "$U" --token-file "$T" stat -m software -p $WL -I 200 --interval-count 3 --json >out &&
	test $(wc -l <out) = 3 &&
	for n in 1 2 3; do
		sed -n ${n}p out >f &&
		test "$(json_get f "j[\"schema\"]")" = vmmprof-frame/1 &&
		test "$(json_get f "j[\"model\"]")" = software &&
		json_get f "[r[\"pid\"] for r in j[\"rows\"] if r.get(\"pid\")]" | grep -q "$WL" || return 1
	done &&
	test "$(running)" = 0
'

test_expect_success 'stat (text): each frame as the timeline rows vmmprof report prints' '
	vmmprof --remote "$U" --token-file "$T" stat -m software -p $WL -I 300 --interval-count 2 >out &&
	test $(grep -c "^  t(s)  entity  *node  *cycles  *locality  *llc  *sharing  *imc  *queue$" out) = 2 &&
	# the process and its thread in each frame; the burning thread has cycles (a proxy from
	# task-clock), llc, sharing and queue are not in the software model: n/a, never 0
	# the process named with its pid, as every output tells incarnations apart
	test $(grep -c "^ *[0-9.]*  workload \[pid $WL\]  " out) = 2 &&
	grep "^ *[0-9.]*  workload/thread 0 " out >rows &&
	test $(wc -l <rows) = 2 &&
	awk "{ if (\$5 !~ /^[0-9.]+(e\+[0-9]+)?$/ || \$7 != \"n/a\" || \$8 != \"n/a\" || \$10 != \"n/a\") bad = 1 } END { exit bad }" rows &&
	test "$(running)" = 0
'

test_expect_success 'diagnose --duration 1 -p PID --json: the diagnosis of the session, then stopped' '
	vmmprof --remote "$U" --token-file "$T" diagnose -m software -p $WL --duration 1 --json >out 2>err &&
	test "$(json_get out "j[\"model\"]")" = software &&
	json_get out "j[\"duration_s\"] >= 0.9" | grep -q True &&
	json_get out "\"diagnosis\" in j" | grep -q True &&
	test "$(running)" = 0
'

test_expect_success 'diagnose (text): the local renderer over the daemon answer, with the model reasons' '
	vmmprof --remote "$U" --token-file "$T" diagnose -m software -p $WL --duration 1 >out 2>err &&
	grep_q "^vmmprof diagnose: .* model .software., session .s[0-9]*. on .$U." out &&
	grep_q "^Bottlenecks, ranked by cost" out &&
	grep_q "^Factor cost per VM" out &&
	# models/software.model declares llc, sharing and queue unavailable, with these reasons
	grep_q "^  llc  *LLC misses need a core PMU" out &&
	grep_q "^  sharing  *cache-line transfers between cores" out &&
	grep_q "^  queue  *request-queue occupancy needs uncore counters" out &&
	grep_q "^Advice" out &&
	test "$(running)" = 0
'

# The daemon computes the diagnosis'"'"'s cost intervals over the session'"'"'s frames; the
# client prints them as a local diagnose does.  No PMU here: no cost in any sample.
test_expect_success 'diagnose: the cost intervals of the daemon, read back and printed' '
	vmmprof --remote "$U" --token-file "$T" diagnose -m software -p $WL --duration 3.5 --json >j 2>err &&
	test "$(json_get j "j[\"cost_intervals\"][\"samples\"] >= 2")" = True &&
	test "$(json_get j "j[\"cost_intervals\"][\"confidence\"]")" = 0.95 &&
	vmmprof --remote "$U" --token-file "$T" diagnose -m software -p $WL --duration 3.5 >out 2>err &&
	grep -E "^Costs second by second \(mean of [2-4] one-second samples" out &&
	grep_q ": no cost known in any sample" out &&
	test "$(running)" = 0
'

test_expect_success 'record -o FILE --duration 1: the recording downloaded, an SQLite file the local diagnose reads' '
	vmmprof --remote "$U" --token-file "$T" record -m software -p $WL --duration 1 -I 200 -o rec.vmmdb 2>err &&
	head -c 16 rec.vmmdb | od -c | head -1 | grep -q "S   Q   L   i   t   e       f   o   r   m   a   t       3" &&
	vmmprof diagnose rec.vmmdb --json >diag &&
	test "$(json_get diag "j[\"model\"]")" = software &&
	test "$(running)" = 0
'

test_expect_success 'record with --remote names files as locally: -o never overwrites, no -o gives vmmprof.vmmdb' '
	expect_exit 1 vmmprof --remote "$U" --token-file "$T" record -m software -p $WL --duration 1 -o rec.vmmdb 2>err &&
	grep_q "exists: not overwriting" err && test "$(running)" = 0 &&
	mkdir -p def && cp rec.vmmdb def/vmmprof.vmmdb &&
	( cd def && vmmprof --remote "$U" --token-file "$T" record -m software -p $WL --duration 1 -I 200 ) 2>said &&
	grep_q "^vmmprof record: the recording before is now .vmmprof.vmmdb.old.$" said &&
	cmp def/vmmprof.vmmdb.old rec.vmmdb && ! cmp -s def/vmmprof.vmmdb rec.vmmdb &&
	vmmprof diagnose def/vmmprof.vmmdb --json >diag2 &&
	test "$(running)" = 0
'

test_expect_success 'Ctrl-C during a remote stat stops the session on the daemon' '
	# fresh files: the "out" of an earlier test looked like a first frame, and
	# the SIGINT then came before the client had its handler; a background job
	# of a non-interactive shell starts with SIGINT ignored, so it was lost
	rm -f out err pid rc &&
	{ ("$VMMPROF" --remote "$U" --token-file "$T" stat -m software -p $WL -I 200 --json >out 2>err &
	   echo $! >pid; wait $!; echo $? >rc) & } &&
	# a frame of this run: the client catches SIGINT from before it asked for
	# the session.  Generous waits: under a loaded CI the first frame and the
	# DELETE that stops the session can each take seconds
	i=0 && while [ $i -lt 300 ] && ! { [ -s out ] && [ -s pid ]; }; do sleep 0.1; i=$((i + 1)); done &&
	{ [ -s out ] || { echo "no frame in 30 s"; ctrlc_diag; }; } &&
	head -n 1 out >f1 && sid=$(json_get f1 "j[\"session\"]") &&
	kill -INT "$(cat pid)" &&
	i=0 && while [ $i -lt 300 ] && [ ! -s rc ]; do sleep 0.1; i=$((i + 1)); done &&
	{ [ -s rc ] || { echo "the client had not exited 30 s after SIGINT"; ctrlc_diag; }; } &&
	{ [ "$(cat rc)" = 0 ] || { echo "the client exited $(cat rc) after SIGINT"; ctrlc_diag; }; } &&
	{ [ "$(running)" = 0 ] || { echo "a session still runs after the client ended"; ctrlc_diag; }; } &&
	grep_q "user=alice action=session.stop session=$sid result=\"200 " audit.log
'

# started inside a test (a subshell), so stop_all_daemons does not know it: stop it by name
stop_daemon live
kill "$WL" 2>/dev/null
wait "$WL" 2>/dev/null
test_done
