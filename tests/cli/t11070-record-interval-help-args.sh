#!/bin/sh
# t11070-record-interval-help-args.sh - record -I takes 10 ms to 31 days
# (31 * 86400 * 1000 = 2678400000 ms), as stat -I does, and its message says
# so; help takes one COMMAND and refuses a second.
. "$(dirname "$0")/lib.sh"

cd "$TRASH" || exit 1

test_expect_success 'record -I: 9 ms and over 31 days are usage errors that give the range' '
	expect_exit 2 vmmprof record -o a.rec -I 9 -d 1 2>err &&
	grep_q "10 to 31 days: 2678400000" err &&
	expect_exit 2 vmmprof record -o a.rec -I 2678400001 -d 1 2>err &&
	grep_q "10 to 31 days: 2678400000" err &&
	test ! -e a.rec
'

test_expect_success 'record -I: an hour (3600000 ms) is accepted' '
	vmmprof record -o b.rec -I 3600000 -d 0.3 -q 2>err &&
	test -s b.rec
'

test_expect_success 'record -d: over 31 days is refused, and the message says so' '
	expect_exit 2 vmmprof record -o c.rec -d 2678401 2>err &&
	grep_q "at most 31 days" err
'

test_expect_success 'help: a second COMMAND is a usage error, one is a page' '
	expect_exit 2 vmmprof help stat info 2>err &&
	grep_q "one COMMAND at a time, not .info. too" err &&
	vmmprof help stat >page && grep_q "^vmmprof stat - " page
'

test_done
