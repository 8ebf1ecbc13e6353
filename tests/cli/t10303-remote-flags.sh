#!/bin/sh
# t10303-remote-flags.sh - `vmmprof --remote URL CMD` takes exactly the flags
# the local CMD takes (issue 24, Done-when 1).  The flags come from each
# command's options table (its --help, rendered from the table), not from a
# list here: every flag of every command that has --remote is run against a
# port nothing listens on, and each one is either sent (the client parses it
# and goes on to connect: exit 1, "cannot connect") or refused with the
# reason, naming the flag (exit 2, "'FLAG' does not apply with --remote").
# A flag added to a table without a decision in src/cli/remote.c rflags[]
# gets "has no --remote decision" and fails the first test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/remote-lib.sh"

if "$VMMPROF" --remote http://127.0.0.1:1 info --json 2>&1 | grep -q "built without libcurl"; then
	test_skip 'the flags of --remote' "this build has no --remote client (libcurl missing)"
	test_done
	exit
fi

CMDS="info list model stat top diagnose record"

# base CMD: what the command needs besides the flag under test, so that a
# sent flag gets as far as the connection
base() {
	case $1 in
	list) echo "vms" ;;
	model) echo "list" ;;
	stat) echo "-m software -p 1 -I 100" ;;
	top) echo "-b -n 1" ;;
	diagnose) echo "-d 0.1" ;;
	record) echo "-d 0.1 -o rec-$2.vmmdb" ;;
	*) echo "" ;;
	esac
}

# sample WORD: a value of the argument word (docs/flags.md's legend); a word
# without one fails the test (give it one here)
sample() {
	case $1 in
	SECS|N|GHZ) echo 1 ;;
	MS) echo 100 ;;
	SIZE) echo 1M ;;
	FILE) echo "file-$2" ;;
	DIR) echo "$TRASH" ;;
	NAME) echo x ;;
	"NAME|FILE") echo software ;;
	PIDS|TIDS) echo 1 ;;
	CPUS) echo 0 ;;
	CGROUPS) echo x ;;
	NAMES) echo cpu_util ;;
	EVENTS) echo task-clock ;;
	SEP) echo , ;;
	"ADDR:PORT") echo 127.0.0.1:1 ;;
	"NAME=VALUE") echo a=1 ;;
	*\|*) echo "${1%%|*}" ;;
	*) return 1 ;;
	esac
}

# flags CMD: "SHORT LONG WORD" per line of the options table ("-" for none),
# "-h, --help" left out (main shows the help before any --remote)
flags() {
	"$VMMPROF" help "$1" | sed -n '/^options:/,/^$/p' | grep '^  -' |
		sed -e 's/^  //' -e 's/  .*//' | while read -r a b c; do
		case $a in
		--*) s=-; l=$a; w=$b ;;
		*) s=${a%,}; l=$b; w=$c ;;
		esac
		[ "$l" = --help ] && continue
		case $l in
		*"[="*) w="[=${l#*\[=}"; l=${l%%\[*} ;;
		esac
		echo "$s $l ${w:--}"
	done
}

test_expect_success 'every flag of every --remote command is sent or refused by name' '
	port=$(free_port) && U=http://127.0.0.1:$port && n=0 && bad=0 &&
	for c in $CMDS; do
		flags $c >flags.$c &&
		test -s flags.$c || { echo "$c: no options table"; return 1; }
		while read -r s l w; do
			n=$((n + 1))
			case $w in
			-) set -- "$l" ;;
			"[="*) set -- "$l=1" ;;
			*) v=$(sample "$w" $n) || { echo "$c $l: no sample value for $w"; bad=1; continue; }
			   set -- "$l" "$v" ;;
			esac
			"$VMMPROF" --remote "$U" $c $(base $c $n) "$@" >out 2>err </dev/null
			rc=$?
			if [ $rc = 1 ] && grep -q "cannot connect to" err; then
				echo "$c $l sent" >>decisions
			elif [ $rc = 2 ] && grep -q "^vmmprof: error: .$l. does not apply with --remote" err; then
				echo "$c $l refused" >>decisions
			else
				echo "$c $* (rc $rc):"; cat err; bad=1
			fi
			# the short spelling: the same decision
			[ "$s" = - ] && continue
			shift; "$VMMPROF" --remote "$U" $c $(base $c $n) "$s" "$@" >out 2>err </dev/null
			rc2=$?
			if [ $rc2 != $rc ]; then
				echo "$c $s: exit $rc2, $l exit $rc"; cat err; bad=1
			fi
		done <flags.$c
	done &&
	cat decisions &&
	test $bad = 0 &&
	test $(wc -l <decisions) = $n &&
	test $n -gt 80
'

test_expect_success 'the tables the check read are the help pages (a flag of each kind is there)' '
	grep_q "^-p --pid PIDS" flags.stat &&
	grep_q "^- --wait \[=SECS\]" flags.diagnose &&
	grep_q "^- --apply -" flags.diagnose &&
	grep_q "^-s --sort name|" flags.top
'

test_expect_success 'what the daemon cannot do is refused with its reason, before any connection' '
	grep_q "^diagnose --apply refused" decisions &&
	grep_q "^stat --event refused" decisions &&
	grep_q "^stat --all-cpus refused" decisions &&
	grep_q "^top --vm refused" decisions &&
	grep_q "^record --root refused" decisions &&
	grep_q "^diagnose --pid sent" decisions &&
	grep_q "^record --wait sent" decisions &&
	grep_q "^top --sort sent" decisions
'

test_expect_success 'a flag the local command does not take is unknown with --remote too' '
	port=$(free_port) && U=http://127.0.0.1:$port &&
	for c in $CMDS; do
		expect_exit 2 vmmprof $c $(base $c x) --no-such-flag 2>local.err &&
		expect_exit 2 vmmprof --remote "$U" $c $(base $c x) --no-such-flag 2>remote.err &&
		grep_q "unknown option .--no-such-flag." local.err &&
		grep_q "unknown option .--no-such-flag." remote.err || return 1
	done &&
	# flags the remote client once took and the local stat does not
	for f in "--vm x" "--duration 1"; do
		expect_exit 2 vmmprof --remote "$U" stat -m software -p 1 $f 2>err &&
		grep_q "unknown option .${f%% *}." err || return 1
	done
'

test_expect_success '-p takes a list with --remote as locally (was: invalid pid 1,2)' '
	port=$(free_port) && U=http://127.0.0.1:$port &&
	for c in "diagnose -d 0.1" "record -d 0.1 -o p.vmmdb" "stat -m software"; do
		expect_exit 1 vmmprof --remote "$U" $c -p 1,2 2>err &&
		grep_q "cannot connect to" err || return 1
	done &&
	expect_exit 2 vmmprof --remote "$U" diagnose -p 1,x 2>err &&
	grep_q "invalid process list .1,x." err
'

test_expect_success 'stat with --remote needs what the local stat needs: a model (here) and a target' '
	port=$(free_port) && U=http://127.0.0.1:$port &&
	expect_exit 2 vmmprof --remote "$U" stat -p 1 2>err &&
	grep_q "give -m MODEL" err &&
	expect_exit 2 vmmprof --remote "$U" stat -m software 2>err &&
	grep_q "nothing to count" err &&
	expect_exit 2 vmmprof --remote "$U" stat -m software -p 1 --interval-count 2 2>err &&
	grep_q "interval-count counts the intervals of -I" err &&
	expect_exit 2 vmmprof stat -p 1 --interval-count 2 2>err &&
	grep_q "interval-count counts the intervals of -I" err
'

test_expect_success 'local stat --interval-count N prints N intervals and ends (a command with it)' '
	vmmprof stat -e task-clock -I 100 --interval-count 3 -x, -- sleep 30 >out 2>err &&
	test $(grep -c task-clock err out | awk -F: "{s += \$2} END {print s}") = 3
'

test_done
