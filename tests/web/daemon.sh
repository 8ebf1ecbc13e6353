# daemon.sh - a real `vmmprof serve` on loopback for the web UI tests (sourced after lib.sh).
# Starting, waiting for and stopping the daemon is tests/cli/daemon-lib.sh's, shared with
# the daemon's command-line tests; this file adds the web UI's users, workload and driver.
#
#   web_begin 'WHAT'          when the tests cannot run here: skips WHAT with the reason and
#                             ends the script; else starts the daemon (web_start_daemon) and
#                             records a test that it started ($started is 1 then)
#   web_prereqs               sets web_skip to why the tests cannot run here (empty: they can)
#   web_start_daemon          users alice (operator), bob (viewer), root (admin) with their
#                             tokens in $TRASH/alice.token ..., the daemon (start_daemon web)
#                             on a free port of 127.0.0.1 serving web/, recordings in
#                             $TRASH/rec; sets web_url, web_pid
#   web_stop_daemon           ends it (also on exit)
#   web_workload ARGS...      starts tests/helpers/workload in the background; sets wl_pid
#   webui SCENARIO ARGS...    runs tests/web/webui.py SCENARIO against the daemon
# Screenshots are kept in $(test_artefacts) (tests/cli/lib.sh: build/test-artefacts/<test>/,
# or $VP_SCREENSHOTS when it is set) for a person to look at.
#   web_root=DIR              set before web_begin/web_start_daemon: the daemon reads /proc and
#                             /sys under DIR (a fixture tree: --root)

web_src=$(cd "$(dirname "$0")/../.." && pwd)
. "$web_src/tests/cli/daemon-lib.sh"
web_dir=$web_src/web
web_root=${web_root:-}
web_pid=
wl_pid=
web_url=

web_cleanup() {
	[ -n "$wl_pid" ] && kill "$wl_pid" 2>/dev/null && wait "$wl_pid" 2>/dev/null
	wl_pid=
	web_stop_daemon
	stop_all_daemons
}
trap web_cleanup EXIT

web_prereqs() {
	web_skip=
	if ! command -v python3 >/dev/null; then
		web_skip='python3 is not installed'
	elif [ -z "$(command -v chromium || command -v chromium-browser || true)" ]; then
		web_skip='chromium is not installed (scripts/install-deps.sh --test)'
	elif ! "$VMMPROF" help serve >/dev/null 2>&1; then
		web_skip="this vmmprof has no 'serve' command (the daemon is not built in)"
	elif [ -z "$VP_HELPERS" ] || [ ! -x "$VP_HELPERS/workload" ]; then
		web_skip='VP_HELPERS/workload is not built'
	fi
}

web_begin() {
	web_prereqs
	if [ -n "$web_skip" ]; then
		test_skip "$1" "$web_skip"
		test_done
		exit $?
	fi
	started=0
	web_start_daemon >"$TRASH/start.out" 2>&1 && started=1
	test_expect_success 'the daemon starts on loopback with an operator, a viewer and an admin' '
		test $started = 1 || { cat start.out; exit 1; }
	'
}

web_start_daemon() {
	# started again (another web_root): the same users and tokens
	[ -f "$TRASH/users" ] || add_users "$TRASH/users" alice:operator bob:viewer root:admin || return 1
	mkdir -p "$TRASH/rec"
	start_daemon web --users "$TRASH/users" --web-dir "$web_dir" \
		--audit-log "$TRASH/audit.log" --recordings-dir "$TRASH/rec" \
		${web_root:+--root "$web_root"} || return 1
	web_pid=$(cat "$TRASH/web.pid")
	web_url=$(cat "$TRASH/web.url")
}

# After test_done (the EXIT trap) $TRASH and the pid file are gone: then
# stop_all_daemons ends it from the list daemon-lib.sh keeps beside $TRASH.
web_stop_daemon() {
	[ -n "$web_pid" ] && [ -f "$TRASH/web.pid" ] && stop_daemon web
	web_pid=
}

web_workload() {
	"$VP_HELPERS/workload" "$@" >/dev/null 2>&1 &
	wl_pid=$!
}

webui() {
	web_scenario=$1
	shift
	python3 "$web_src/tests/web/webui.py" "$web_scenario" --url "$web_url" --tokens "$TRASH" \
		--out "$TRASH" --keep "$(test_artefacts)" "$@"
}
