#!/bin/sh
# t11020-stat-interval-range.sh - stat -I refuses an interval too large to count in nanoseconds
. "$(dirname "$0")/lib.sh"

test_expect_success 'stat -I 2^63-1 is a usage error (exit 2), not an interval that wraps to ~0' '
	expect_exit 2 vmmprof stat -I 9223372036854775807 -e task-clock -- sleep 0.3 >out 2>err &&
	grep_q "\-I .9223372036854775807.: the interval must be 10 ms to 31 days" err &&
	! grep -q task-clock err
'

test_expect_success 'stat -I beyond 31 days is refused, 31 days itself is taken' '
	expect_exit 2 vmmprof stat -I 2678400001 -e task-clock -- true 2>err &&
	grep_q "the interval must be" err &&
	vmmprof stat -I 2678400000 -e task-clock -- sleep 0.2 2>out &&
	# the command ends first: one final interval, not thousands
	test $(grep -c task-clock out) -eq 1
'

test_done
