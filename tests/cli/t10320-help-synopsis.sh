#!/bin/sh
# t10320-help-synopsis: multi-line synopses in help, usage errors and man pages.
#
# The rule (src/cli/cli.c): a synopsis line that starts with blanks continues
# the one above; help prints each synopsis from "  vmmprof ", and puts its
# continuations, and whatever would pass column 80, under the command's first
# argument (column 2 + len("vmmprof ") + len(NAME) + 1), breaking only
# between words outside brackets.
. "$(dirname "$0")/lib.sh"

# usage block of a help page: the lines after "usage:" up to the first blank
usage_block() { sed -n '/^usage:$/,/^$/p' | sed '1d;$d'; }

test_expect_success 'user --help: the add synopsis continues under "add", not as "vmmprof [..."' '
	vmmprof user --help | usage_block >got &&
	cat >want <<-\EOT &&
	  vmmprof user add NAME --role admin|operator|viewer [--users FILE]
	               [--token-out FILE] [--max-sessions N] [--max-events N]
	               [--min-interval MS]
	  vmmprof user remove NAME [--users FILE]
	  vmmprof user list [--users FILE] [--json]
	EOT
	diff -u want got
'

test_expect_success 'a usage error prints the same synopsis' '
	expect_exit 2 vmmprof user add 2>err &&
	sed -n "/^usage:$/,/^$/p" err | sed "1d;\$d" >got &&
	vmmprof user --help | usage_block >want &&
	diff -u want got
'

test_expect_success 'every command: usage lines fit 80 columns, continuations hang under the first argument' '
	vmmprof help | awk "/^  [a-z]/ {print \$1}" >cmds &&
	test -s cmds &&
	while read -r c; do
		vmmprof help "$c" | usage_block >u.$c || return 1
		test -s u.$c || { echo "$c: no usage"; return 1; }
		ind=$(printf "%*s" $((2 + 8 + ${#c} + 1)) "")
		while IFS= read -r l; do
			[ ${#l} -le 80 ] || { echo "$c: ${#l} columns: $l"; return 1; }
			case "$l" in
			"  vmmprof $c "*|"  vmmprof $c") ;;
			"$ind"[!\ ]*) ;;
			*) echo "$c: neither a synopsis nor a hanging continuation: [$l]"; return 1 ;;
			esac
		done <u.$c
	done <cmds
'

test_expect_success 'stat: the long synopsis is wrapped between bracketed words' '
	# "[-T]" would end at column 84: it goes to the next line, and
	# "[-o FILE [--append]]" at column 81 (the most a line may have is 80);
	# "[--] COMMAND" of the second synopsis would end at column 87
	vmmprof stat --help | usage_block >got &&
	cat >want <<-\EOT &&
	  vmmprof stat [-e EVENTS]... [-m NAME|FILE [--raw]] [-M NAMES] [--metric-only]
	               [-T] [-a] [-C CPUS] [-G CGROUPS] [-I MS | -r N | --timeout MS]
	               [-D MS] [--per-thread] [-v] [-x SEP | --json]
	               [-o FILE [--append]] [--] COMMAND [ARGS]
	  vmmprof stat -n [-r N] [--timeout MS] [-x SEP | --json] [-o FILE [--append]]
	               [--] COMMAND [ARGS]
	  vmmprof stat [-e EVENTS]... (-a | -C CPUS | -p PIDS | -t TIDS | -G CGROUPS)
	               [-I MS] [--per-thread] [-x SEP | --json] [-o FILE]
	  vmmprof stat [-e EVENTS]... (-a | -C CPUS)
	               (-A | --per-core | --per-socket | --per-node) [-I MS]
	               [-x SEP | --json] [-o FILE] [COMMAND [ARGS]]
	  vmmprof stat [-e EVENTS]... (-a | -C CPUS) (--per-die | --per-cache[=LEVEL])
	               [-I MS] [-x SEP | --json] [-o FILE] [COMMAND [ARGS]]
	EOT
	diff -u want got
'

if command -v groff >/dev/null 2>&1; then
	test_expect_success 'man page (groff): each synopsis starts with vmmprof, continuations hang under "user"' '
		vmmprof help --man user | groff -man -Tascii -P-cbou 2>/dev/null |
			sed -n "/^SYNOPSIS/,/^DESCRIPTION/p" | sed "1d;\$d" | sed "/^\$/d" >got &&
		cat >want <<-\EOT &&
		       vmmprof user add NAME --role admin|operator|viewer [--users FILE]
		                    [--token-out FILE] [--max-sessions N] [--max-events N]
		                    [--min-interval MS]
		       vmmprof user remove NAME [--users FILE]
		       vmmprof user list [--users FILE] [--json]
		EOT
		diff -u want got
	'
	test_expect_success 'man page (groff): the same words as the help synopsis for every command' '
		vmmprof help | awk "/^  [a-z]/ {print \$1}" >cmds &&
		while read -r c; do
			vmmprof help "$c" | usage_block | tr -s " \n" "  " >h || return 1
			vmmprof help --man "$c" | groff -man -Tascii -P-cbou 2>/dev/null |
				sed -n "/^SYNOPSIS/,/^DESCRIPTION/p" | sed "1d;\$d" | tr -s " \n" "  " >m
			[ "$(cat h)" = "$(cat m)" ] || { echo "$c:"; cat h; echo; cat m; return 1; }
		done <cmds
	'
else
	test_skip 'man page rendering' 'groff is not installed'
fi

test_done
