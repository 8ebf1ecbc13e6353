# lib.sh - command-line test library in the manner of git's t/test-lib.sh.
#
# A test script sources this file, then calls
#   test_expect_success 'what it checks' 'shell commands'
#   test_skip 'what it would check' 'why it cannot run here'
# and ends with test_done.  Each test runs in a subshell inside a scratch
# directory ($TRASH); a non-zero status fails it and its output is shown.
#
# Environment: VMMPROF (the binary under test), VP_HELPERS (tests/helpers
# programs), VP_DATA (tests/data), VP_RESULTS (where run.sh collects counts).

set -u
: "${VMMPROF:?VMMPROF must name the vmmprof binary}"
VP_DATA=${VP_DATA:-$(cd "$(dirname "$0")/../data" && pwd)}
VP_HELPERS=${VP_HELPERS:-}
test_name=$(basename "$0" .sh)
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/vmmprof-$test_name.XXXXXX")
test_pass=0
test_fail=0
test_skipped=0
test_count=0

vmmprof() { "$VMMPROF" "$@"; }

# python3 found once: where it is a version manager's shim (pyenv's is four
# shell scripts deep), every json_get paid for them, and a suite that calls
# python a few hundred times spent minutes there on a loaded machine.
VP_PYTHON3=${VP_PYTHON3:-$(command python3 -c 'import sys; print(sys.executable)' 2>/dev/null)}
if [ -n "$VP_PYTHON3" ] && [ -x "$VP_PYTHON3" ]; then
	export VP_PYTHON3
	python3() { "$VP_PYTHON3" "$@"; }
	# and for the scripts the tests start (#!/usr/bin/env python3)
	PATH="$(dirname "$VP_PYTHON3"):$PATH"
	export PATH
fi

# test_artefacts: prints the directory (made on first use) that keeps what a person should
# be able to look at after the test ends, its screenshots above all: $VP_SCREENSHOTS when
# set, else $VP_ARTEFACTS/<test name>, VP_ARTEFACTS defaulting to test-artefacts/ beside
# the binary under test (build/test-artefacts/t10540-web-map/ for build/vmmprof).
test_artefacts() {
	if [ -n "${VP_SCREENSHOTS:-}" ]; then
		_ad=$VP_SCREENSHOTS
	else
		_ad=${VP_ARTEFACTS:-$(cd "$(dirname "$VMMPROF")" && pwd)/test-artefacts}/$test_name
	fi
	mkdir -p "$_ad" && echo "$_ad"
}

# unfold FILE: top --batch's text with its footer's folded lines joined again (a
# continuation starts with two spaces and a non-space), for patterns that cross a fold.
unfold() {
	awk 'NR > 1 && /^  [^ ]/ { sub(/^  /, " "); printf "%s", $0; next }
		NR > 1 { print "" } { printf "%s", $0 } END { print "" }' "$1"
}

test_expect_success() {
	test_count=$((test_count + 1))
	if (cd "$TRASH" && eval "$2") >"$TRASH/.out" 2>&1; then
		test_pass=$((test_pass + 1))
		echo "ok $test_count - $test_name: $1"
	else
		test_fail=$((test_fail + 1))
		echo "not ok $test_count - $test_name: $1"
		sed 's/^/#    /' "$TRASH/.out" | head -40
	fi
}

test_skip() {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count - $test_name: $1 # SKIP $2"
}

# Helpers for test bodies.
# expect_exit CODE cmd...: run cmd, fail unless it exits CODE.
expect_exit() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "expected exit $want, got $got: $*"
		return 1
	fi
	return 0
}

# grep_q PATTERN FILE: like grep -q but shows the file when it fails.
grep_q() {
	if ! grep -q -- "$1" "$2"; then
		echo "pattern '$1' not found in $2:"
		sed 's/^/|  /' "$2" | head -60
		return 1
	fi
}

# json_get FILE EXPR: evaluate a python expression on the parsed JSON (as j).
json_get() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# report KEY FILE: the value of KEY= in a tests/helpers/workload --report file
report() { sed -n "s/^$1=//p" "$2"; }

# wait_report FILE KEY: until the workload wrote KEY (it writes its pid first, results last)
wait_report() {
	i=0
	while ! grep -q "^$2=" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 1200 ] && { echo "no $2 in $1"; return 1; }
		sleep 0.05
	done
}

# wait_lines FILE: until FILE has a line (a counter printed its first interval: it is open)
wait_lines() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1)); [ $i -gt 600 ] && { echo "nothing in $1"; return 1; }
		sleep 0.05
	done
}

# show_row NAME FILE: the row of NAME in a `model show` text, its footnote "[k]" put back in
# place ("n/a [3]" -> "n/a: REASON"; "n/a: event 'x' unavailable [3]" -> "...: REASON")
show_row() {
	row=$(grep -m1 "^  $1 " "$2") || return 1
	k=$(printf "%s\n" "$row" | sed -n "s/.* \[\([0-9]*\)\]\$/\1/p")
	if [ -n "$k" ]; then
		note=$(sed -n "s/^  \[$k\] //p" "$2")
		row="$(printf "%s\n" "$row" | sed "s/ \[$k\]\$//"): $note"
	fi
	printf "%s\n" "$row"
}

# wait_perf_open PID: until PID holds a perf_event descriptor (its counters are open;
# vmmprof blocks SIGINT before it opens them, so a signal sent after this is taken)
wait_perf_open() {
	i=0
	while ! ls -l "/proc/$1/fd" 2>/dev/null | grep -q "perf_event"; do
		i=$((i + 1)); [ $i -gt 600 ] && { echo "pid $1 opened no perf_event descriptor"; return 1; }
		sleep 0.05
	done
}

# thread_named PID COMM: the id of PID's thread named COMM ("CPU 0/TCG"); fails when none.
thread_named() {
	for t in /proc/$1/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && basename "$t" && return 0
	done
	return 1
}

test_done() {
	if [ -n "${VP_RESULTS:-}" ]; then
		echo "$test_pass $test_fail $test_skipped" >>"$VP_RESULTS"
	fi
	echo "# $test_name: $test_pass passed, $test_fail failed, $test_skipped skipped"
	rm -rf "$TRASH"
	[ "$test_fail" -eq 0 ]
}
