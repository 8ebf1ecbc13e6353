#!/bin/sh
# t10510-web-login.sh - the web UI in headless Chromium: login with a token, who and what role, the host and its nodes
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../web/daemon.sh"

web_begin 'log in to the web UI in headless Chromium'

# A wrong token is refused, the right one shows alice (operator), the host's
# CPU from /proc/cpuinfo and its nodes from /sys; a reload keeps the login;
# logging out forgets the token; the screenshot is checked.
test_expect_success 'login, who and role, host and nodes, reload, logout (screenshot checked)' '
	test $started = 1 && webui login
'

test_done
