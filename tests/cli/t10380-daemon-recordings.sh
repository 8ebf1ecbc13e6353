#!/bin/sh
# t10380-daemon-recordings.sh - no frame lost or falsely claimed: a
# recording downloaded while its session runs is a consistent SQLite file
# holding every frame so far (it was the main file without its write-ahead
# log: unreadable early, frames missing later, with 200 OK); a recording
# that cannot be written (the file size limit, as a full disk) stops the
# session with the reason in its JSON, its stream and the DELETE reply,
# said once in the log (it went on reporting 60 frames while the file held 6).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

daemon_home

vmmprof user add op --role operator --users users >op.tok 2>/dev/null
mkdir recs small
sleep 120 &
P=$!
cleanup() { kill "$P" 2>/dev/null; stop_all_daemons; }
trap cleanup EXIT
start_daemon d --users users --recordings-dir recs

# frames FILE: the frames table's row count (SQLite, read-only)
frames() {
	python3 -c 'import sqlite3,sys; print(sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True).execute("select count(*) from frames").fetchone()[0])' "$1"
}
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" body | tr -d '"'; }

test_expect_success 'a running session recording downloaded: readable, every frame so far' '
	expect_status 201 d op.tok POST /api/v1/sessions -d "{\"pids\":[$P],\"interval_ms\":100,\"record\":true}" &&
	id=$(field id) && name=$(field recording) &&
	sleep 2 &&
	expect_status 200 d op.tok GET "/api/v1/sessions/$id" &&
	before=$(field seq) &&
	expect_status 200 d op.tok GET "/api/v1/recordings/$name" &&
	mv body early.vmmrec &&
	n=$(frames early.vmmrec) &&
	echo "session had $before frames, the download holds $n" &&
	test "$n" -ge "$before" && test "$n" -ge 5 &&
	vmmprof report early.vmmrec >report.out 2>&1 &&
	! ls recs | grep -q "^\.vmmprofd-download" &&
	expect_status 200 d op.tok DELETE "/api/v1/sessions/$id" &&
	test "$(field recorded)" = "$(field frames)"
'

if ! (ulimit -f 100) 2>/dev/null; then
	test_skip 'a recording that cannot be written stops its session' 'cannot set a file size limit (ulimit -f)'
else
(ulimit -f 600; start_daemon f --users users --recordings-dir small) || exit 1

test_expect_success 'a recording over the file size limit (as a full disk): the session stops with the reason' '
	expect_status 201 f op.tok POST /api/v1/sessions -d "{\"pids\":[$P],\"interval_ms\":100,\"record\":true}" || return 1
	id=$(field id)
	curl -sS -N --max-time 60 -H "Authorization: Bearer $(cat op.tok)" \
		"$(cat "$TRASH/f.url")/api/v1/sessions/$id/stream" >sse 2>&1 &
	i=0
	while [ $i -lt 400 ]; do
		req f op.tok GET "/api/v1/sessions/$id" >/dev/null
		grep -q "\"state\":\"ended\"" body && break
		sleep 0.1; i=$((i + 1))
	done
	cat body &&
	grep_q "\"state\":\"ended\"" body &&
	grep_q "\"ended_because\":\"its recording failed: " body &&
	! grep -q "\"recording_error\":null" body &&
	recorded=$(field recorded) && seq=$(field seq) &&
	test "$recorded" -lt "$seq" &&
	wait &&
	{ grep_q "its recording failed" sse || { cat sse; false; }; } &&
	expect_status 200 f op.tok DELETE "/api/v1/sessions/$id" &&
	! grep -q "\"recording_error\":null" body &&
	{ test "$(grep -c "^vmmprofd: error: session .*recording" "$TRASH/f.err")" = 1 || { cat "$TRASH/f.err"; false; }; }
'
stop_daemon f
fi

cleanup
test_done
