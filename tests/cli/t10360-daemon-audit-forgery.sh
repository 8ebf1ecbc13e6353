#!/bin/sh
# t10360-daemon-audit-forgery.sh - the audit log cannot be forged without a
# token: a percent-encoded newline in the URL wrote whole fake audit lines
# (any user, action, time), and escape sequences in the method reached the
# log raw.  Every field is escaped now, and each line names the client.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
cd "$TRASH" || exit 1

vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
start_daemon d --users users --audit-log audit
U=$(cat "$TRASH/d.url")

# well_formed: every line of the audit log is one event of the documented shape
well_formed() {
	LC_ALL=C grep -v -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z client=[^ ]+ user=[^ ]+ action=[^ ]+ session=[^ ]+ result="([^"\\]|\\.)*"$' audit >bad
	if [ -s bad ]; then echo "malformed audit lines:"; cat bad; return 1; fi
}

test_expect_success 'a percent-encoded newline in the URL does not start a line' '
	curl -sS -o body "$U/api/v1/x%0d%0a2026-01-01T00:00:00Z%20user=adm%20action=session.stop%20session=s1%20result=%22ok%22" &&
	curl -sS -o body "$U/api/v1/whoami?a=%0a2026-01-01T00:00:00Z" &&
	cat audit &&
	! grep -q "^2026-01-01" audit &&
	test "$(grep -c "action=auth" audit)" = 2 &&
	grep_q "x\\\\x0d\\\\x0a2026-01-01T00:00:00Z user=adm" audit &&
	well_formed
'

test_expect_success 'terminal escapes and quotes in the method and URL are escaped' '
	curl -sS -o body -X "$(printf "GE\\033]0;x\\007T")" "$U/api/v1/whoami" ;
	curl -sS -o body "$U/api/v1/%22%5c%1b%ff%c3%a9" &&
	cat audit &&
	! LC_ALL=C grep -q "$(printf "\\033")" audit &&
	! LC_ALL=C grep -q "$(printf "\\377")" audit &&
	grep_q "\\\\\"\\\\\\\\\\\\x1b\\\\xffé" audit &&
	well_formed
'

test_expect_success 'every line names the client address' '
	curl -sS -o body -H "Authorization: Bearer $(cat adm.tok)" -X POST "$U/api/v1/sessions" -d "{\"pids\":[4000000]}" ;
	grep_q "client=127.0.0.1 user=adm action=session.start" audit &&
	grep_q "client=- user=- action=start" audit
'

stop_all_daemons
test_done
