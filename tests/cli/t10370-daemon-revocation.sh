#!/bin/sh
# t10370-daemon-revocation.sh - revocation takes effect: a removed user's
# token stops working, its open stream ends and its session stops, without
# a request or a restart; a users file that cannot be read fails closed
# (503 naming it, said once on standard error), also when it is missing;
# `vmmprof user add/remove` run as root keep a service-owned file's owner
# and mode, so a daemon started with --user can still read it.  Before, the
# daemon kept the old users silently and the streams and sessions went on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

daemon_home

vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
vmmprof user add op --role operator --users users >op.tok 2>/dev/null
sleep 120 &
P=$!
cleanup() { kill "$P" 2>/dev/null; stop_all_daemons; }
trap cleanup EXIT
start_daemon d --users users

# wait_for FILE PATTERN SECONDS
wait_for() {
	i=0
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && { echo "no '$2' in $1:"; cat "$1"; return 1; }
		sleep 0.1
	done
}

test_expect_success 'a removed user: its token, its stream and its session end within 2 s' '
	expect_status 201 d op.tok POST /api/v1/sessions -d "{\"pids\":[$P],\"interval_ms\":200}" || return 1
	id=$(sed -n "s/.*\"id\":\"\([^\"]*\)\".*/\1/p" body)
	curl -sS -N --max-time 20 -H "Authorization: Bearer $(cat op.tok)" \
		"$(cat "$TRASH/d.url")/api/v1/sessions/$id/stream" >sse 2>&1 &
	wait_for sse "event: frame" 10 &&
	vmmprof user remove op --users users &&
	wait_for sse "event: end" 2 &&
	grep_q "\"state\":\"revoked\"" sse &&
	expect_status 401 d op.tok GET /api/v1/whoami &&
	{ expect_status 200 d adm.tok GET "/api/v1/sessions/$id" || { cat "$TRASH/d.err"; false; }; } &&
	{ grep_q "\"state\":\"ended\"" body || { cat "$TRASH/d.err"; false; }; } &&
	grep_q "its owner was removed" body
'

test_expect_success 'a missing users file: no user accepted (503 naming it), said once in the log' '
	mv users users.away &&
	expect_status 503 d adm.tok GET /api/v1/whoami &&
	grep_q "cannot read the users file" body &&
	expect_status 503 d adm.tok GET /api/v1/whoami &&
	sleep 0.5 &&
	test "$(grep -c "cannot read the users file" "$TRASH/d.err")" = 1 &&
	mv users.away users &&
	expect_status 200 d adm.tok GET /api/v1/whoami &&
	grep_q "readable again" "$TRASH/d.err"
'

test_expect_success 'a users file that does not parse: no user accepted' '
	cp users users.good &&
	echo "garbage" >>users &&
	expect_status 503 d adm.tok GET /api/v1/whoami &&
	grep_q "users:" body &&
	cp users.good users &&
	expect_status 200 d adm.tok GET /api/v1/whoami
'

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	test_skip 'user add/remove as root keep the owner; --user nobody re-reads it' 'not root, or no user nobody'
else
test_expect_success 'user add/remove as root keep a service-owned file owner and mode' '
	chown 65534:65534 users && chmod 640 users &&
	vmmprof user add x --role viewer --users users >x.tok 2>/dev/null &&
	test "$(stat -c "%u:%g %a" users)" = "65534:65534 640" &&
	vmmprof user remove x --users users &&
	test "$(stat -c "%u:%g %a" users)" = "65534:65534 640"
'

test_expect_success 'with --user nobody, a user removed by root is revoked' '
	chmod 711 "$TRASH" &&
	chmod 600 users &&
	vmmprof user add op2 --role operator --users users >op2.tok 2>/dev/null &&
	start_daemon n --users users --user nobody &&
	expect_status 200 n op2.tok GET /api/v1/whoami &&
	vmmprof user remove op2 --users users &&
	sleep 0.5 &&
	expect_status 401 n op2.tok GET /api/v1/whoami &&
	expect_status 200 n adm.tok GET /api/v1/whoami
'
fi

cleanup
test_done
