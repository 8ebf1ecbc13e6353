#!/bin/sh
# t10020-daemon-sessions.sh - sessions on a real daemon: two users with
# different roles and models at once, each sees its own stream; the merged
# counter set is the de-duplicated union; stopping one leaves the other's
# counts right; roles and ownership; limits (429); malformed bodies (400);
# history, diagnosis, top stream; SIGTERM closes recordings that stay valid.
# Targets are native processes (tests/helpers/workload): software events
# count for real on this machine.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

daemon_home
W=${VP_HELPERS:+$VP_HELPERS/workload}
if [ -z "$W" ] || [ ! -x "$W" ]; then
	test_skip 'sessions on a live daemon' 'tests/helpers/workload is not built (VP_HELPERS)'
	test_done
	exit $?
fi

# Two models that share one event: the merged set must hold it once.
mkdir -p models recs
NOF='factor locality unavailable "t"
factor llc unavailable "t"
factor sharing unavailable "t"
factor imc unavailable "t"
factor queue unavailable "t"'
printf 'model t-cs\nevent cs = context-switches\nmetric cs_n = cs\n%s\n' "$NOF" >models/t-cs.model
printf 'model t-clk\nevent tclk = task-clock\nevent cs = context-switches\nmetric cs_n = cs\nmetric cpu_ms = tclk / 1e6\n%s\n' \
	"$NOF" >models/t-clk.model
printf 'model t-three\nevent a = task-clock\nevent b = context-switches\nevent c = page-faults\nmetric x = a\n%s\n' \
	"$NOF" >models/t-three.model

vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
vmmprof user add op1 --role operator --users users >op1.tok 2>/dev/null
vmmprof user add op2 --role operator --users users >op2.tok 2>/dev/null
vmmprof user add view --role viewer --users users >view.tok 2>/dev/null
vmmprof user add lim --role operator --users users --max-sessions 1 --max-events 2 \
	--min-interval 500 >lim.tok 2>/dev/null

# Workloads that sleep 1 ms at a time: about 1000 voluntary context switches
# a second each, little CPU.
"$W" --switches 200000 >/dev/null 2>&1 &
echo $! >w1.pid
"$W" --switches 200000 >/dev/null 2>&1 &
echo $! >w2.pid
W1=$(cat w1.pid) W2=$(cat w2.pid)
stop_workloads() { kill "$W1" "$W2" 2>/dev/null; stop_all_daemons; }
trap stop_workloads EXIT

start_daemon d --users users --recordings-dir recs --model-path models --audit-log audit

# ctxt PID: voluntary + involuntary context switches so far (/proc/PID/status)
ctxt() {
	awk '/^(non)?voluntary_ctxt_switches/ {n += $2} END {print n}' "/proc/$1/status"
}
# sse NAME TOKEN PATH SECONDS: the stream for SECONDS into ./sse
sse() {
	curl -sS -N --max-time "$4" -H "Authorization: Bearer $(cat "$2")" \
		"$(cat "$TRASH/$1.url")$3" >sse 2>/dev/null
	return 0
}
# frames: the data lines of ./sse after "event: frame", one per line, into ./frames
frames() {
	awk '/^event: frame$/ {f = 1; next} f && /^data: / {print substr($0, 7); f = 0}' sse >frames
}

test_expect_success 'an operator and an admin start sessions with different models' '
	ctxt "$W2" >w2.c0 &&
	expect_status 201 d op1.tok POST /api/v1/sessions \
		-d "{\"model\":\"t-cs\",\"pids\":[$W1],\"interval_ms\":500}" &&
	test "$(json_get body "j[\"id\"], j[\"owner\"], j[\"model\"], j[\"state\"], j[\"pids\"]")" = \
		"('"'"'s1'"'"', '"'"'op1'"'"', '"'"'t-cs'"'"', '"'"'running'"'"', [$W1])" &&
	expect_status 201 d adm.tok POST /api/v1/sessions \
		-d "{\"model\":\"t-clk\",\"pids\":[$W2],\"interval_ms\":500}" &&
	test "$(json_get body "j[\"id\"], j[\"owner\"], j[\"model\"], j[\"targets\"]")" = \
		"('"'"'s2'"'"', '"'"'adm'"'"', '"'"'t-clk'"'"', 1)"
'

test_expect_success 'the collector holds the union of both, each event once' '
	expect_status 200 d view.tok GET /api/v1/collector &&
	test "$(json_get body "sorted((e[\"name\"], sorted(e[\"sessions\"])) for e in j[\"events\"])")" = \
		"[('"'"'context-switches'"'"', ['"'"'s1'"'"', '"'"'s2'"'"']), ('"'"'task-clock'"'"', ['"'"'s2'"'"'])]" &&
	test "$(json_get body "all(e[\"open\"] for e in j[\"events\"])")" = True &&
	: two one-thread processes: two distinct targets &&
	test "$(json_get body "j[\"targets\"]")" = 2 &&
	test "$(json_get body "j[\"events\"][0][\"encoding\"].startswith(\"type=1,\")")" = True
'

test_expect_success 'each user sees its own stream: its session, model and process' '
	c0=$(ctxt "$W1") &&
	sse d op1.tok /api/v1/sessions/s1/stream 2.2 && frames &&
	c1=$(ctxt "$W1") &&
	test $(wc -l <frames) -ge 2 &&
	python3 - frames "$W1" s1 t-cs "$c0" "$c1" <<-\EOF &&
	import json, sys
	n = 0
	for l in open(sys.argv[1]):
	    f = json.loads(l)
	    assert f["schema"] == "vmmprof-frame/1" and f["session"] == sys.argv[3], f["session"]
	    assert f["model"] == sys.argv[4], f["model"]
	    assert [r["pid"] for r in f["rows"] if r["kind"] == "process"] == [int(sys.argv[2])]
	    assert set(f["rows"][0]["factors"]) == {"locality", "llc", "sharing", "imc", "queue"}
	    assert f["rows"][0]["metrics"]["cs_n"] >= 1, f["rows"][0]["metrics"]
	    n += f["rows"][0]["metrics"]["cs_n"]
	# what the kernel counted for the workload while the stream ran (/proc/PID/status:
	# about 1000 a second when idle, far fewer at load 20): the frames, 0.5 s each,
	# cover at least two of its 2.2 s and at most the window plus the frame it
	# started in
	k = int(sys.argv[6]) - int(sys.argv[5])
	assert 0.3 * k <= n <= 1.5 * k + 10, (n, k)
	EOF
	sse d adm.tok /api/v1/sessions/s2/stream 2.2 && frames &&
	test $(wc -l <frames) -ge 2 &&
	python3 - frames "$W2" s2 t-clk <<-\EOF
	import json, sys
	for l in open(sys.argv[1]):
	    f = json.loads(l)
	    assert f["session"] == sys.argv[3] and f["model"] == sys.argv[4]
	    assert [r["pid"] for r in f["rows"] if r["kind"] == "process"] == [int(sys.argv[2])]
	    assert set(f["rows"][0]["metrics"]) == {"cs_n", "cpu_ms"}
	    assert [s["event"] for s in f["scaling"]] == ["task-clock", "context-switches"]
	EOF
'

test_expect_success 'an operator cannot read, stream or stop another user session (404), nor list it' '
	expect_status 404 d op1.tok GET /api/v1/sessions/s2 &&
	expect_status 404 d op1.tok GET /api/v1/sessions/s2/stream &&
	expect_status 404 d op1.tok GET /api/v1/sessions/s2/history &&
	expect_status 404 d op1.tok GET /api/v1/sessions/s2/diagnosis &&
	expect_status 404 d op1.tok DELETE /api/v1/sessions/s2 &&
	expect_status 200 d op1.tok GET /api/v1/sessions &&
	test "$(json_get body "[s[\"id\"] for s in j[\"sessions\"]]")" = "['"'"'s1'"'"']" &&
	grep_q "user=op1 action=session.stop session=s2 result=\"404\"" audit &&
	: operator B on operator A session &&
	expect_status 404 d op2.tok GET /api/v1/sessions/s1 &&
	expect_status 404 d op2.tok GET /api/v1/sessions/s1/stream &&
	expect_status 404 d op2.tok DELETE /api/v1/sessions/s1 &&
	expect_status 200 d op2.tok GET /api/v1/sessions &&
	test "$(json_get body "j[\"sessions\"]")" = "[]" &&
	: the admin may read it &&
	expect_status 200 d adm.tok GET /api/v1/sessions/s1
'

test_expect_success 'a viewer sees every session but cannot start or stop one (403)' '
	expect_status 200 d view.tok GET /api/v1/sessions &&
	test "$(json_get body "[s[\"id\"] for s in j[\"sessions\"]]")" = "['"'"'s1'"'"', '"'"'s2'"'"']" &&
	expect_status 200 d view.tok GET /api/v1/sessions/s2 &&
	expect_status 403 d view.tok POST /api/v1/sessions -d "{\"pids\":[$W1]}" &&
	expect_status 403 d view.tok DELETE /api/v1/sessions/s1 &&
	grep_q "\"status\":403" body
'

test_expect_success 'history: the frames so far, or those after ?since=SEQ' '
	expect_status 200 d op1.tok GET /api/v1/sessions/s1/history &&
	n=$(json_get body "len(j[\"frames\"])") && test "$n" -ge 3 &&
	test "$(json_get body "[f[\"seq\"] for f in j[\"frames\"]] == list(range(1, len(j[\"frames\"]) + 1))")" = True &&
	expect_status 200 d op1.tok GET "/api/v1/sessions/s1/history?since=2" &&
	test "$(json_get body "j[\"frames\"][0][\"seq\"]")" = 3 &&
	expect_status 400 d op1.tok GET "/api/v1/sessions/s1/history?since=x"
'

test_expect_success 'diagnosis: the schema of vmmprof diagnose --json, over the session so far' '
	expect_status 200 d view.tok GET /api/v1/sessions/s2/diagnosis &&
	vmmprof diagnose -p "$W2" --duration 1 --json --model-path models -m t-clk >want 2>/dev/null &&
	# the same keys, cost_intervals too: the session frames so far are its samples,
	# with what they account for as a local diagnose says it
	test "$(json_get body "sorted(j)")" = "$(json_get want "sorted(j)")" &&
	test "$(json_get body "\"cost_intervals\" in j")" = True &&
	test "$(json_get body "sorted(j[\"cost_intervals\"])")" = "$(json_get want "sorted(j[\"cost_intervals\"])")" &&
	test "$(json_get body "sorted(j[\"cost_intervals\"][\"accounts_for\"])")" = \
		"$(json_get want "sorted(j[\"cost_intervals\"][\"accounts_for\"])")" &&
	test "$(json_get body "j[\"cost_intervals\"][\"samples\"] >= 1")" = True &&
	test "$(json_get body "j[\"model\"], j[\"targets\"], j[\"duration_s\"] > 1")" = "('"'"'t-clk'"'"', 1, True)"
'

test_expect_success 'stopping session 1 leaves session 2 streaming, its counts still right' '
	( sse d view.tok /api/v1/sessions/s1/stream 20 && cp sse s1.sse ) &
	sleep 0.8 &&
	expect_status 200 d op1.tok DELETE /api/v1/sessions/s1 &&
	wait &&
	tail -2 s1.sse | grep -q "^data: {\"state\":\"stopped\"" &&
	grep_q "^event: end$" s1.sse &&
	test "$(json_get body "j[\"id\"], j[\"state\"]")" = "('"'"'s1'"'"', '"'"'stopped'"'"')" &&
	expect_status 404 d op1.tok GET /api/v1/sessions/s1 &&
	expect_status 200 d view.tok GET /api/v1/collector &&
	test "$(json_get body "sorted((e[\"name\"], e[\"sessions\"]) for e in j[\"events\"])")" = \
		"[('"'"'context-switches'"'"', ['"'"'s2'"'"']), ('"'"'task-clock'"'"', ['"'"'s2'"'"'])]" &&
	sse d adm.tok /api/v1/sessions/s2/stream 1.7 && frames &&
	test $(wc -l <frames) -ge 2 &&
	expect_status 200 d adm.tok GET /api/v1/sessions/s2/history &&
	cp body s2-history &&
	expect_status 200 d adm.tok DELETE /api/v1/sessions/s2 &&
	ctxt "$W2" >w2.c1 &&
	expect_status 200 d adm.tok GET /api/v1/sessions &&
	test "$(json_get body "j[\"sessions\"]")" = "[]"
'

# Session 2 counted from before session 1 started until after it stopped: the
# sum of its frames must match what the kernel says the process did over that
# time (/proc/PID/status), less at most the last interval before the DELETE.
test_expect_success 'session 2 total = the process context switches from /proc (through s1 stop)' '
	python3 - s2-history "$(cat w2.c0)" "$(cat w2.c1)" <<-\EOF
	import json, sys
	fr = json.load(open(sys.argv[1]))["frames"]
	assert [f["seq"] for f in fr] == list(range(1, len(fr) + 1)), "frames missing"
	s = sum(f["rows"][0]["metrics"]["cs_n"] for f in fr)
	truth = int(sys.argv[3]) - int(sys.argv[2])
	print("frames", len(fr), "sum", s, "proc", truth)
	# the counter cannot see more than the kernel did; it misses at most the
	# time before the view was added and after the last frame (about 1 s of 8+)
	assert s <= truth, (s, truth)
	assert s >= 0.75 * truth, (s, truth)
	EOF
'

test_expect_success 'per-user limits: sessions, interval floor, events give 429; admin stops it' '
	expect_status 429 d lim.tok POST /api/v1/sessions -d "{\"model\":\"t-cs\",\"pids\":[$W1],\"interval_ms\":200}" &&
	grep_q "below user .lim..s floor of 500 ms" body &&
	expect_status 429 d lim.tok POST /api/v1/sessions -d "{\"model\":\"t-three\",\"pids\":[$W1],\"interval_ms\":500}" &&
	grep_q "3 distinct events, over the limit of 2" body &&
	expect_status 201 d lim.tok POST /api/v1/sessions -d "{\"model\":\"t-cs\",\"pids\":[$W1],\"interval_ms\":500}" &&
	id=$(json_get body "j[\"id\"]") &&
	expect_status 429 d lim.tok POST /api/v1/sessions -d "{\"model\":\"t-cs\",\"pids\":[$W2],\"interval_ms\":500}" &&
	grep_q "already has 1 session (running or ended), the limit" body &&
	: an admin may stop another user session &&
	expect_status 200 d adm.tok DELETE "/api/v1/sessions/$id" &&
	grep_q "user=adm action=session.stop session=$id result=\"200 owner lim" audit
'

test_expect_success 'malformed or wrong bodies: 400 with the reason' '
	expect_status 400 d op1.tok POST /api/v1/sessions -d "{\"model\": }" &&
	grep_q "body:1:11: " body &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "[1]" &&
	grep_q "body:1:1: expected an object" body &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "{\"colour\":1}" &&
	grep_q "unknown field .colour." body &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "{\"pids\":[\"x\"]}" &&
	grep_q "body:1:10: \\\\\"pids\\\\\" holds process ids" body &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "{\"pids\":[1],\"vms\":[\"a\"]}" &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "{\"model\":\"nosuch\",\"pids\":[$W1]}" &&
	grep_q "no model .nosuch." body &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "{\"model\":\"../x\",\"pids\":[$W1]}" &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "{\"pids\":[$W1],\"interval_ms\":10}" &&
	expect_status 400 d op1.tok POST /api/v1/sessions -d "" &&
	expect_status 200 d adm.tok GET /api/v1/sessions &&
	test "$(json_get body "j[\"sessions\"]")" = "[]"
'

test_expect_success 'top stream: one top --json line per interval as event: sample' '
	sse d view.tok "/api/v1/top/stream?interval_ms=500" 1.8 &&
	awk "/^event: sample\$/ {f = 1; next} f && /^data: / {print substr(\$0, 7); f = 0}" sse >samples &&
	test $(wc -l <samples) -ge 2 &&
	vmmprof top --json -n 1 >want 2>/dev/null &&
	head -1 samples >first &&
	test "$(json_get first "sorted(j)")" = "$(json_get want "sorted(j)")" &&
	expect_status 400 d view.tok GET "/api/v1/top/stream?interval_ms=5" &&
	expect_status 429 d lim.tok GET "/api/v1/top/stream?interval_ms=200"
'

test_expect_success '/metrics needs a token (metrics_auth = token), speaks Prometheus text, node figures' '
	expect_status 401 d - GET /metrics &&
	expect_status 200 d view.tok GET /metrics &&
	grep -qi "^Content-Type: text/plain; version=0.0.4" headers &&
	grep_q "^vmmprof_build_info" body &&
	: node 0 memory: the kernel says MemTotal in kB in its node meminfo &&
	kb=$(awk "/MemTotal/ {print \$4}" /sys/devices/system/node/node0/meminfo) &&
	grep_q "^vmmprof_node_memory_total_bytes{node=\"0\"[^}]*} $((kb * 1024))$" body &&
	sleep 0.3 &&
	expect_status 200 d view.tok GET /metrics &&
	awk "/^vmmprof_node_cpu_busy_ratio\{node=\"0\"/ {b = \$2; n++} END {exit !(n == 1 && b >= 0 && b <= 1)}" body
'

test_expect_success 'a session whose processes all exit ends on its own, and says why' '
	# it works (and exits) only once the session is made: at load 20 a 0.2 s
	# workload was gone before the POST arrived
	rm -f go &&
	"$W" --wait-file go --switches 200 >/dev/null 2>&1 &
	wp=$! &&
	expect_status 201 d op1.tok POST /api/v1/sessions \
		-d "{\"model\":\"t-cs\",\"pids\":[$wp],\"interval_ms\":200}" &&
	id=$(json_get body "j[\"id\"]") &&
	touch go &&
	wait $wp &&
	sleep 1 &&
	expect_status 200 d op1.tok GET "/api/v1/sessions/$id" &&
	test "$(json_get body "j[\"state\"], j[\"ended_because\"]")" = \
		"('"'"'ended'"'"', '"'"'every process it counted has exited'"'"')" &&
	sse d op1.tok "/api/v1/sessions/$id/stream" 5 &&
	tail -2 sse | grep -q "^data: {\"state\":\"ended\",\"why\":\"every process" &&
	grep_q "action=session.end session=$id result=\"every process it counted has exited\"" audit &&
	expect_status 409 d op1.tok GET "/api/v1/sessions/$id/diagnosis" &&
	expect_status 200 d op1.tok DELETE "/api/v1/sessions/$id"
'

test_expect_success 'SIGHUP reopens a rotated audit log' '
	mv audit audit.1 &&
	kill -HUP "$(cat d.pid)" &&
	sleep 0.3 &&
	expect_status 401 d - GET /api/v1/whoami &&
	grep_q "action=auth" audit &&
	cat audit.1 audit >audit.all && mv audit.all audit.keep
'

test_expect_success 'SIGTERM ends a recording session cleanly: the recording is valid' '
	expect_status 201 d op1.tok POST /api/v1/sessions \
		-d "{\"model\":\"t-clk\",\"pids\":[$W1],\"interval_ms\":300,\"record\":true}" &&
	name=$(json_get body "j[\"recording\"]") &&
	case $name in op1+*-s*.vmmdb) ;; *) echo "bad name $name"; return 1 ;; esac &&
	sleep 1.5 &&
	stop_daemon d &&
	test "$(cat d.rc)" = 0 &&
	cat audit.keep audit >audit.all &&
	grep_q "action=session.stop session=s[0-9]* result=\"daemon stopping" audit.all &&
	vmmprof diagnose --json --model-path models "recs/$name" >diag 2>err &&
	test "$(json_get diag "j[\"model\"], j[\"recording\"] is not None, j[\"duration_s\"] > 0.5")" = \
		"('"'"'t-clk'"'"', True, True)"
'

# Every stream above ended by its client (curl --max-time): a client going
# away is how a stream ends, not an error, and libmicrohttpd's own messages
# carry the daemon's prefix.
test_expect_success 'clients that went away leave no error in the daemon log' '
	test -s d.err &&
	! grep -n "Failed to send\|forcibly closed" d.err &&
	! grep -v "^vmmprofd: " d.err
'

stop_workloads
test_done
