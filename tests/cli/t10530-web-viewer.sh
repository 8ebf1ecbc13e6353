#!/bin/sh
# t10530-web-viewer.sh - a viewer in the web UI: watches others' sessions, cannot start or stop one (403 shown)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../web/daemon.sh"

web_begin 'the viewer role in the web UI'
web_workload --cpu-ms 120000

# alice (operator) starts a session through the API; bob (viewer) sees the
# start form disabled with the reason and no Stop button, follows alice's
# session live, and a forced start and a forced stop show the daemon's 403;
# nothing was started or stopped.
test_expect_success 'viewer: read-only controls, live view of another session, 403 shown (screenshot checked)' '
	test $started = 1 && webui viewer --pid $wl_pid
'

test_expect_success 'the audit log has both of bob'"'"'s attempts refused (403)' '
	test $started = 1 &&
	test "$(grep -c "user=bob .*403 \(POST\|DELETE\) /api/v1/sessions" audit.log)" = 2 ||
	{ cat audit.log; exit 1; }
'

test_done
