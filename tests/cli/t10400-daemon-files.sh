#!/bin/sh
# t10400-daemon-files.sh - files are regular files of sane size, outputs are
# never written through a link, recordings are private: a FIFO in the web or
# recordings directory hung a download and the daemon's shutdown, and
# report FIFO hung; a configuration, users, calibration or model file of
# /dev/zero grew memory until the process aborted; record -o followed a
# dangling symbolic link and created its target; recordings were created
# world-readable; a world-writable users file was accepted; root without
# --user ran silently; no X-Frame-Options or Content-Security-Policy.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

daemon_home
umask 022

sleep 600 &
P=$!
cleanup() { kill "$P" 2>/dev/null; stop_all_daemons; }
trap cleanup EXIT

add_users users adm:admin op:operator
mkdir recs web
echo "<html></html>" >web/index.html
mkfifo web/hang.js "recs/op+20260101-000000-x.vmmdb"
start_daemon d --users users --recordings-dir recs --web-dir web

# A FIFO blocks open() until a writer comes: each request below is given
# 10 s (a regular file is served in milliseconds, even at load 10) and must
# be answered, not time out (curl status 000).
test_expect_success 'a FIFO in the web directory: 404 at once, not a hung request' '
	expect_status 404 d - GET /ui/hang.js --max-time 10 &&
	expect_status 200 d - GET /ui/index.html --max-time 10
'

test_expect_success 'a FIFO named as a recording: 404 at once, not a hung download' '
	expect_status 404 d "$TRASH/adm.token" GET "/api/v1/recordings/op+20260101-000000-x.vmmdb" --max-time 10
'

test_expect_success 'every reply says never framed and only this origin (page and API)' '
	expect_status 200 d - GET /ui/index.html &&
	grep_q "^X-Frame-Options: DENY" headers &&
	grep_q "^Content-Security-Policy: .*frame-ancestors .none." headers &&
	expect_status 200 d "$TRASH/op.token" GET /api/v1/whoami &&
	grep_q "^X-Frame-Options: DENY" headers &&
	grep_q "^Content-Security-Policy: default-src .self." headers
'

# An event stream does not end: curl gives up after 6 s (its exit status
# is a timeout) and has written the reply headers, which come at once.
test_expect_success 'an event stream says the same' '
	curl -sS -N --max-time 6 -D sh -o /dev/null \
		-H "Authorization: Bearer $(cat "$TRASH/op.token")" \
		"$(cat "$TRASH/d.url")/api/v1/top/stream?interval_ms=500" 2>/dev/null
	grep_q "^Content-Type: text/event-stream" sh &&
	grep_q "^X-Frame-Options: DENY" sh &&
	grep_q "^Content-Security-Policy: default-src .self." sh &&
	grep_q "^X-Content-Type-Options: nosniff" sh
'

test_expect_success 'a daemon session recording is mode 0600' '
	expect_status 201 d "$TRASH/op.token" POST /api/v1/sessions -d "{\"pids\":[$P],\"interval_ms\":200,\"record\":true}" &&
	name=$(sed -n "s/.*\"recording\":\"\([^\"]*\)\".*/\1/p" body) &&
	test -n "$name" &&
	test "$(stat -c %a "recs/$name")" = 600
'

test_expect_success 'a world-writable users file fails closed (503 with the reason), fixed: 200' '
	chmod 666 users &&
	i=0 && while [ $i -lt 100 ]; do
		got=$(req d "$TRASH/op.token" GET /api/v1/whoami) && [ "$got" = 503 ] && break
		sleep 0.1; i=$((i + 1))
	done &&
	test "$got" = 503 &&
	grep_q "writable by every user" body &&
	chmod 600 users &&
	i=0 && while [ $i -lt 100 ]; do
		got=$(req d "$TRASH/op.token" GET /api/v1/whoami) && [ "$got" = 200 ] && break
		sleep 0.1; i=$((i + 1))
	done &&
	test "$got" = 200
'

test_expect_success 'with FIFOs in both directories, SIGTERM stops the daemon, status 0' '
	stop_daemon d &&
	test "$(cat "$TRASH/d.rc")" = 0
'

if [ "$(id -u)" = 0 ]; then
test_expect_success 'root without --user is warned' '
	grep_q "warning: running as root" "$TRASH/d.err"
'
else
test_skip 'root without --user is warned' 'needs root'
fi

# The files below would be read without end before: a memory limit keeps a
# regression from eating the machine (1 GiB of address space is far more than
# these commands need; ASan reserves far more address space, so not there).
if grep -q __asan_init "$VMMPROF" 2>/dev/null; then
	limit() { "$@"; }
else
	limit() { (ulimit -v 1048576; "$@"); }
fi

test_expect_success 'serve --config /dev/zero and a FIFO: not a regular file, exit 1' '
	expect_exit 1 limit timeout 20 "$VMMPROF" serve --config /dev/zero --users users 2>err &&
	grep_q "/dev/zero. is not a regular file (a character device)" err &&
	mkfifo conf.fifo &&
	expect_exit 1 timeout 20 "$VMMPROF" serve --config conf.fifo --users users 2>err &&
	grep_q "conf.fifo. is not a regular file (a FIFO)" err
'

test_expect_success 'serve --users /dev/zero: not a regular file, exit 1' '
	expect_exit 1 limit timeout 20 "$VMMPROF" serve --listen 127.0.0.1:0 --users /dev/zero 2>err &&
	grep_q "not a regular file" err
'

test_expect_success 'a calibration and a model of /dev/zero: not a regular file, exit 1' '
	echo "{\"cycles\": 1000}" >c.json &&
	expect_exit 1 limit timeout 20 "$VMMPROF" model eval software --counts c.json --calibration /dev/zero 2>err &&
	grep_q "/dev/zero. is not a regular file" err &&
	expect_exit 1 limit timeout 20 "$VMMPROF" model show /dev/zero 2>err &&
	grep_q "/dev/zero. is not a regular file" err
'

test_expect_success 'report of a FIFO: "it is a FIFO", exit 1, no hang' '
	mkfifo r.fifo &&
	expect_exit 1 timeout 20 "$VMMPROF" report r.fifo 2>err &&
	grep_q "cannot open recording .r.fifo.: it is a FIFO" err
'

test_expect_success 'record -o a dangling symbolic link: refused, its target not created' '
	ln -s "$TRASH/elsewhere.vmmdb" link.vmmdb &&
	expect_exit 1 vmmprof record -q -o link.vmmdb -p $P -d 0.2 -I 100 2>err &&
	grep_q "link.vmmdb. exists" err &&
	! test -e elsewhere.vmmdb
'

test_expect_success 'a recording is created mode 0600 (umask 022)' '
	vmmprof record -q -o mine.vmmdb -p $P -d 0.25 -I 100 &&
	test "$(stat -c %a mine.vmmdb)" = 600
'

test_expect_success 'report --html to a dangling link: refused, its target not created' '
	ln -s "$TRASH/planted.html" page.html &&
	expect_exit 1 vmmprof report --html page.html mine.vmmdb 2>err &&
	grep_q "symbolic link to a file that does not exist" err &&
	! test -e planted.html &&
	vmmprof report --html /dev/null mine.vmmdb
'

test_done
