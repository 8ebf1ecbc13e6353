#!/bin/sh
# t11050-messages.sh - error messages that name the right thing: a long model
# line is cut around the column, conflicting report forms, an unknown user
# subcommand, a recording whose model is not here
. "$(dirname "$0")/lib.sh"

HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

test_expect_success 'a model error on a 4000-column line: an excerpt around the column, caret on it' '
	{ printf "model t\nmatch software\nevent tclk = task-clock\nmetric a = "
	  python3 -c "print(\"+\".join([\"1\"] * 2000))"
	  for f in locality llc sharing imc queue; do printf "factor %s unavailable \"x\"\n" $f; done
	} >long.model &&
	expect_exit 1 vmmprof model check --parse-only long.model 2>err &&
	grep_q "^long.model:4:2013: error: expression too long" err &&
	# no line of the message is the whole 4000-column source line
	test "$(awk "{ if (length(\$0) > m) m = length(\$0) } END { print m }" err)" -le 120 &&
	# the excerpt: "    4 | ..." then the text; the caret line: "      | " then spaces and ^
	src=$(sed -n "s/^    4 | //p" err) && car=$(sed -n "s/^      | //p" err) &&
	case "$src" in ...*...) ;; *) echo "not cut at both ends: $src"; false ;; esac &&
	pos=$(( ${#car} - 1 )) &&
	test "$(printf "%s" "$src" | cut -c$((pos + 1)))" = "+" &&
	# the characters before the caret are the source line up to column 2012
	test "$(printf "%s" "$src" | cut -c4-$pos)" = "$(sed -n 4p long.model | cut -c$((2013 - pos + 3))-2012)"
'

test_expect_success 'a short line still shows whole, caret at the column' '
	printf "model t\nmatch software\nmetric a = 1 +* 2\n" >short.model &&
	expect_exit 1 vmmprof model check --parse-only short.model 2>err &&
	grep_q "^short.model:3:15: error" err &&
	grep_q "^    3 | metric a = 1 +\* 2$" err &&
	grep_q "^      |               ^$" err
'

test_expect_success 'report: --json with --csv or --html is a usage error, not the last one silently' '
	expect_exit 2 vmmprof report --json --csv x.vmmdb 2>err &&
	grep_q "exclude each other" err &&
	expect_exit 2 vmmprof report --html o.html --json x.vmmdb 2>err &&
	grep_q "exclude each other" err && test ! -e o.html
'

test_expect_success 'user: an unknown subcommand is named as such, also without a name after it' '
	expect_exit 2 vmmprof user frob 2>err &&
	grep_q "unknown subcommand .frob. (add, remove, list)" err &&
	! grep -q "needs a user name" err
'

test_expect_success 'diagnose FILE whose model is not in the model path: exit 1, nothing leaked' '
	sleep 3 & s=$! &&
	vmmprof record -q -o r.vmmdb -p $s -d 0.3 -I 100 &&
	kill $s &&
	python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[1]);
d.execute(\"UPDATE meta SET value = ? WHERE key = ?\", (\"no-such-model\", \"model\")); d.commit()" r.vmmdb &&
	expect_exit 1 vmmprof diagnose r.vmmdb 2>err &&
	grep_q "no-such-model" err &&
	# the sanitizer build (make SAN=1 check) reports a leak on standard error
	! grep -q "LeakSanitizer" err &&
	expect_exit 1 vmmprof report r.vmmdb 2>err &&
	grep_q "no-such-model" err && ! grep -q "LeakSanitizer" err
'

test_done
