#!/bin/sh
# t10340-daemon-slowloris.sh - one unauthenticated client cannot stop the
# daemon's service: 1,100 connections that trickle a header line every
# second, from 50 loopback addresses (22 each, under the per-address cap, so
# only the total limit and the request deadline can help), while a
# legitimate request is answered within a second (docs/reliability.md).
# Before the guard, the select() loop failed every connection past 1,024
# descriptors and the trickle reset libmicrohttpd's 300 s timeout.
# All traffic is to 127.0.0.1; the attacker helper stops after 15 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
cd "$TRASH" || exit 1

vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
port_of() { sed 's|.*:\([0-9]*\)$|\1|' "$TRASH/$1.url"; }
# timed NAME: GET whoami with adm's token; status and seconds into ./timed
timed() {
	curl -sS -o body -w '%{http_code} %{time_total}\n' --max-time 10 \
		-H "Authorization: Bearer $(cat adm.tok)" "$(cat "$TRASH/$1.url")/api/v1/whoami" >timed
}

start_daemon d --users users

test_expect_success '1,100 trickling connections from 50 addresses: a request is still answered within 1 s' '
	ulimit -n 4096 2>/dev/null
	"$VP_HELPERS/slowloris" "$(port_of d)" 1100 50 1000 15 ready >attack.out &
	i=0
	while [ ! -s ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	cat ready &&
	grep_q "^opened=" ready &&
	sleep 1 &&
	# three requests: every one answered 200 within 5 s, the fastest within 1 s (a
	# machine shared with other work, load average near 20, once took 1.09 s)
	for k in 1 2 3; do timed d && cat timed >>times || return 1; done
	cat times &&
	awk "\$1 != 200 || \$2 >= 5.0 { bad = 1 } NR == 1 || \$2 < min { min = \$2 } END { exit bad || min >= 1.0 }" times &&
	wait &&
	cat attack.out &&
	# the daemon kept at most max_connections (512) and a quarter closing of them
	awk -F"[= ]" "{ exit !(\$2 + \$4 == 1100) }" attack.out
'

test_expect_success 'the refusals are logged as counts, not one line per connection' '
	n=$(grep -c "connections" "$TRASH/d.err") &&
	echo "$n lines" &&
	test "$n" -ge 1 && test "$n" -le 3 &&
	grep_q "closed to make room" "$TRASH/d.err"
'

test_expect_success 'the daemon still answers after the attack, and stops on SIGTERM' '
	timed d && awk "\$1 != 200 { exit 1 }" timed &&
	stop_daemon d && test "$(cat "$TRASH/d.rc")" = 0
'

cat >conf <<-\EOF2
request_timeout_s = 2
max_connections_per_address = 5
EOF2
start_daemon t --users users --config conf

test_expect_success 'a trickled header does not extend the request deadline: closed after 2 s' '
	"$VP_HELPERS/slowloris" "$(port_of t)" 1 1 500 6 >one.out &&
	cat one.out &&
	ms=$(sed -n "s/.*first_close_ms=\(-*[0-9]*\).*/\1/p" one.out) &&
	test "$ms" -ge 1800 && test "$ms" -le 3500
'

test_expect_success 'over max_connections_per_address from one address: refused, others served' '
	"$VP_HELPERS/slowloris" "$(port_of t)" 8 1 500 3 ready5 >addr.out &
	i=0
	while [ ! -s ready5 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	timed t && awk "\$1 != 200 || \$2 >= 1.0 { exit 1 }" timed &&
	wait && cat addr.out &&
	# 5 held until the deadline; 3 refused: at connect, or accepted and closed at once
	grep_q "^opened=" addr.out &&
	awk -F"[= ]" "{ exit !(\$4 + \$6 >= 3 && \$4 + \$6 <= 8) }" addr.out
'

test_expect_success 'the daemon stops at once on SIGTERM' '
	stop_daemon t && test "$(cat "$TRASH/t.rc")" = 0
'

stop_all_daemons
test_done
