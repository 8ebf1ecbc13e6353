#!/bin/sh
# t10350-daemon-session-limits.sh - one operator request within its limits
# cannot exhaust the host: a pid named 6,600 times is one target (it was
# scanned 6,600 times per interval under the sessions' lock), more distinct
# targets than max_targets get 400; ended sessions count against the
# user's max_sessions until they are deleted or forgotten session_keep_s
# after they ended (their 600 frames each escaped every limit); SIGTERM
# stops the daemon within a few seconds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

daemon_home

vmmprof user add op --role operator --users users >op.tok 2>/dev/null
vmmprof user add lim --role operator --users users --max-sessions 1 >lim.tok 2>/dev/null
sleep 120 &
P=$!
cleanup() { kill "$P" 2>/dev/null; stop_all_daemons; }
trap cleanup EXIT

cat >conf <<-\EOF2
max_targets = 4
session_keep_s = 10
EOF2
start_daemon d --users users --config conf

test_expect_success 'a pid named 6,600 times or more (a 40 KB body) is one target' '
	# 6,600 times at least, and over 40 KB however many digits the pid has
	python3 -c "import json,sys; p = sys.argv[1]; n = max(6600, 40001 // (len(p) + 2) + 1); print(json.dumps({\"pids\": [int(p)] * n, \"interval_ms\": 500}))" "$P" >dup.json &&
	test "$(wc -c <dup.json)" -gt 40000 &&
	expect_status 201 d op.tok POST /api/v1/sessions -H "Content-Type: application/json" --data-binary @dup.json &&
	test "$(json_get body "len(j[\"pids\"])")" = 1 &&
	test "$(json_get body "j[\"targets\"]")" = 1 &&
	id=$(json_get body "j[\"id\"]") &&
	expect_status 200 d op.tok DELETE "/api/v1/sessions/$id"
'

test_expect_success 'five distinct pids, over max_targets = 4: 400 naming the limit' '
	expect_status 400 d op.tok POST /api/v1/sessions -d "{\"pids\": [1, 2, 3, 4, 5]}" &&
	grep_q "at most 4 processes (max_targets" body
'

test_expect_success 'a VM named twice is one name' '
	expect_status 400 d op.tok POST /api/v1/sessions -d "{\"vms\": [\"a\",\"b\",\"c\",\"d\",\"e\"]}" &&
	grep_q "at most 4 VMs" body &&
	req d op.tok POST /api/v1/sessions -d "{\"vms\": [\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]}" >st &&
	! grep_q "max_targets" body
'

test_expect_success 'an ended session counts against max_sessions until it is forgotten' '
	sleep 1 &
	Q=$! &&
	expect_status 201 d lim.tok POST /api/v1/sessions -d "{\"pids\": [$Q], \"interval_ms\": 200}" &&
	id=$(json_get body "j[\"id\"]") &&
	wait $Q &&
	i=0 &&
	while [ $i -lt 50 ]; do
		req d lim.tok GET "/api/v1/sessions/$id" >st
		[ "$(json_get body "j[\"state\"]")" = ended ] && break
		sleep 0.1; i=$((i + 1))
	done &&
	test "$(json_get body "j[\"state\"]")" = ended &&
	expect_status 429 d lim.tok POST /api/v1/sessions -d "{\"pids\": [$P]}" &&
	grep_q "running or ended" body &&
	# session_keep_s = 10: forgotten 10 s after it ended (and a watchdog tick)
	sleep 11 &&
	expect_status 404 d lim.tok GET "/api/v1/sessions/$id" &&
	expect_status 201 d lim.tok POST /api/v1/sessions -d "{\"pids\": [$P]}"
'

test_expect_success 'SIGTERM stops the daemon within 5 s, sessions running' '
	expect_status 201 d op.tok POST /api/v1/sessions -d "{\"pids\": [$P], \"interval_ms\": 100}" &&
	t0=$(date +%s) &&
	stop_daemon d &&
	t1=$(date +%s) &&
	test $((t1 - t0)) -le 5 &&
	test "$(cat "$TRASH/d.rc")" = 0
'

cleanup
test_done
