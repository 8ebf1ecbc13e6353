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

test_done
