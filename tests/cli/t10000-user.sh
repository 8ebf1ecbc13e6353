#!/bin/sh
# t10000-user.sh - vmmprof user add|remove|list: the users file holds salted
# SHA-256 hashes, never tokens; the token is shown once or written mode 0600
. "$(dirname "$0")/lib.sh"

test_expect_success 'user add prints a token once and stores only its salted hash' '
	vmmprof user add alice --role admin --users users >tok 2>err &&
	grep_q "the token (shown only this once)" err &&
	test $(wc -l <tok) = 1 &&
	tok=$(cat tok) &&
	test ${#tok} = 43 &&
	! grep -q -- "$tok" users &&
	grep_q "^alice:admin:[0-9a-f]\{32\}:[0-9a-f]\{64\}:4:0:100$" users &&
	test "$(stat -c %a users)" = 600
'

# The hash from first principles: SHA-256 over the 16 salt bytes, then the token.
test_expect_success 'the stored hash is sha256(salt || token), computed independently' '
	python3 - users tok <<-\EOF
	import hashlib, sys
	line = [l for l in open(sys.argv[1]) if l.startswith("alice:")][0].strip().split(":")
	salt, h = bytes.fromhex(line[2]), line[3]
	tok = open(sys.argv[2]).read().strip().encode()
	assert hashlib.sha256(salt + tok).hexdigest() == h, "hash mismatch"
	EOF
'

test_expect_success '--token-out writes a new file of mode 0600 and prints nothing' '
	vmmprof user add bob --role viewer --users users --token-out bob.tok \
		--max-sessions 2 --max-events 5 --min-interval 250 >out 2>err &&
	test ! -s out &&
	test "$(stat -c %a bob.tok)" = 600 &&
	grep_q "^bob:viewer:.*:2:5:250$" users &&
	expect_exit 1 vmmprof user add carol --role viewer --users users --token-out bob.tok 2>err &&
	grep_q "cannot create .bob.tok.: File exists" err &&
	! grep -q "^carol:" users
'

test_expect_success 'two users with one token format still get different salts' '
	a=$(grep "^alice:" users | cut -d: -f3) && b=$(grep "^bob:" users | cut -d: -f3) &&
	test "$a" != "$b"
'

test_expect_success 'user list shows names, roles and limits, text and JSON' '
	vmmprof user list --users users >out &&
	grep_q "^alice  *admin  *4  *-  *100$" out &&
	grep_q "^bob  *viewer  *2  *5  *250$" out &&
	vmmprof user list --users users --json >j &&
	test "$(json_get j "[u[\"name\"]+\"/\"+u[\"role\"] for u in j[\"users\"]]")" = "[$(printf "%s" "'"'"'alice/admin'"'"', '"'"'bob/viewer'"'"'")]"
'

test_expect_success 'user add refuses a taken name, a bad role, a bad name' '
	expect_exit 1 vmmprof user add alice --role viewer --users users 2>err &&
	grep_q "user .alice. already exists" err &&
	expect_exit 2 vmmprof user add carol --role root --users users 2>err &&
	grep_q "unknown role .root." err &&
	expect_exit 2 vmmprof user add carol --users users 2>err &&
	grep_q "needs --role" err &&
	expect_exit 1 vmmprof user add ../x --role viewer --users users 2>err &&
	grep_q "invalid user name" err &&
	expect_exit 2 vmmprof user add carol --role viewer --max-sessions -1 --users users 2>err
'

test_expect_success 'user remove deletes the line; removing again fails' '
	vmmprof user remove bob --users users 2>err &&
	! grep -q "^bob:" users && grep -q "^alice:" users &&
	expect_exit 1 vmmprof user remove bob --users users 2>err &&
	grep_q "no user .bob." err
'

test_expect_success 'a malformed users file is reported as FILE:LINE:COL' '
	printf "# x\nzed:admin:00:11:0:0:0\n" >bad &&
	expect_exit 1 vmmprof user list --users bad 2>err &&
	# "zed:admin:" is 10 characters; the salt "00" ends at column 12, short of 32 digits
	grep_q "bad:2:13: salt must be 32 hex digits" err
'

test_expect_success 'user list of a missing file fails; user add creates it' '
	expect_exit 1 vmmprof user list --users none 2>err &&
	grep_q "none" err &&
	vmmprof user add dora --role operator --users new >/dev/null 2>&1 &&
	grep_q "^dora:operator:" new
'

test_expect_success 'usage errors' '
	expect_exit 2 vmmprof user 2>err &&
	expect_exit 2 vmmprof user frob x 2>err &&
	grep_q "unknown subcommand" err &&
	expect_exit 2 vmmprof user list --role admin --users users 2>err
'

test_done
