#!/bin/sh
# t0000-basic.sh - the command table, help pages, usage errors, output errors
. "$(dirname "$0")/lib.sh"

test_expect_success '--version prints the version' '
	vmmprof --version >out && grep_q "^vmmprof [0-9]" out
'

test_expect_success 'no arguments: usage on stderr, exit 2' '
	expect_exit 2 vmmprof 2>err && grep_q "usage: vmmprof" err
'

test_expect_success 'unknown command: exit 2 and names it' '
	expect_exit 2 vmmprof frobnicate 2>err && grep_q "unknown command .frobnicate." err
'

test_expect_success 'unknown global option: exit 2' '
	expect_exit 2 vmmprof --frob 2>err && grep_q "unknown option .--frob." err
'

test_expect_success 'every command has a help page, same from help and --help' '
	for c in $(vmmprof help | awk "/^  [a-z]/ {print \$1}"); do
		vmmprof help $c >a || return 1
		vmmprof $c --help >b || return 1
		cmp a b || { echo "help $c differs from $c --help"; return 1; }
		grep_q "^usage:" a || return 1
	done
'

test_expect_success 'every command renders a man page that man can format' '
	for c in $(vmmprof help | awk "/^  [a-z]/ {print \$1}"); do
		vmmprof help --man $c >m.1 || return 1
		grep_q "^\.TH VMMPROF-" m.1 || return 1
		grep_q "^\.SH SYNOPSIS" m.1 || return 1
		if command -v groff >/dev/null; then
			groff -man -Tutf8 -ww m.1 >/dev/null 2>w || return 1
			! grep -q . w || { cat w; return 1; }
		fi
	done
'

test_expect_success 'help --man alone: vmmprof(1), every command in it, the page every other page cites' '
	vmmprof help --man >o.1 &&
	grep_q "^\.TH VMMPROF 1 " o.1 &&
	for c in $(vmmprof help | awk "/^  [a-z]/ {print \$1}"); do
		grep_q "^\\\\fBvmmprof\\\\-$c\\\\fR(1)$" o.1 || { echo "vmmprof(1) lacks $c"; return 1; }
		vmmprof help --man $c | grep -q "fBvmmprof\\\\fR(1)" || { echo "the $c page does not cite vmmprof(1)"; return 1; }
	done &&
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS FILES ENVIRONMENT "EXIT STATUS" "SEE ALSO"; do
		grep_q "^\.SH $s\$" o.1 || { echo "no section $s"; return 1; }
	done &&
	if command -v groff >/dev/null; then
		groff -man -Tutf8 -ww o.1 >/dev/null 2>w && ! grep -q . w
	fi
'

test_expect_success 'a bad option: one line, the prefix of every error, no getopt message' '
	for c in $(vmmprof help | awk "/^  [a-z]/ {print \$1}"); do
		[ $c = help ] && continue
		sub=; [ $c = model ] && sub=list
		expect_exit 2 vmmprof $c $sub --frob=1 2>err || return 1
		test "$(head -n 1 err)" = "vmmprof: error: unknown option '"'"'--frob'"'"'" ||
			{ echo "$c:"; cat err; return 1; }
		! grep -q "unrecognized\|requires an argument\|invalid option" err || { cat err; return 1; }
	done &&
	expect_exit 2 vmmprof stat -e 2>err &&
	test "$(head -n 1 err)" = "vmmprof: error: option '"'"'-e'"'"' needs a value" &&
	expect_exit 2 vmmprof top --sort 2>err &&
	test "$(head -n 1 err)" = "vmmprof: error: option '"'"'--sort'"'"' needs a value" &&
	expect_exit 2 vmmprof stat -Z true 2>err &&
	test "$(head -n 1 err)" = "vmmprof: error: unknown option '"'"'-Z'"'"'" &&
	# a run-time error has the same prefix
	expect_exit 1 vmmprof report no-such.vmmdb 2>err &&
	grep_q "^vmmprof: error: " err
'

test_expect_success 'help of an unknown command fails with exit 2' '
	expect_exit 2 vmmprof help frobnicate 2>err && grep_q "unknown command" err
'

test_expect_success 'a full disk is reported, not ignored' '
	if [ -w /dev/full ]; then
		expect_exit 1 vmmprof help >/dev/full 2>err && grep_q "write failure" err
	fi
'

test_done
