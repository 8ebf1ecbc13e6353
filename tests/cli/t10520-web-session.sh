#!/bin/sh
# t10520-web-session.sh - the web UI starts a session on a process, shows its live factors and charts, diagnoses, stops it
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../web/daemon.sh"

web_begin 'start, watch and stop a session in the web UI'
# one thread that burns CPU for the whole test (no VM runs here by default: a native pid)
web_workload --cpu-ms 120000

# The model chooser lists /api/v1/models; the session on the workload's pid
# runs; each shown frame's cells are the daemon's frame (n/a + reason for
# null, never 0); the frames advance; the row is the workload's pid and
# threads; cpu_util of one busy thread is within 0.05..1.3; the chart draws;
# the diagnosis and what was not measured; the stop ends the stream.
test_expect_success 'start on a pid, live factors and charts, diagnosis, stop (screenshot checked)' '
	test $started = 1 && webui session --pid $wl_pid
'

test_expect_success 'the audit log has alice starting (201) and stopping (200) the session' '
	test $started = 1 &&
	grep -q "user=alice .*session\.start.*201" audit.log &&
	grep -q "user=alice .*session\.stop.*200" audit.log ||
	{ cat audit.log; exit 1; }
'

test_done
