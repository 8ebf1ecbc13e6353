#!/bin/sh
# t0010-flags-doc.sh - docs/flags.md, the table of every command's flags and units, against
# each command's --help and parser (tests/cli/flags-doc-check.py does the comparing)
. "$(dirname "$0")/lib.sh"

CHECK="$(cd "$(dirname "$0")" && pwd)/flags-doc-check.py"
DOC="$(cd "$(dirname "$0")/../.." && pwd)/docs/flags.md"

test_expect_success 'every command vmmprof help lists has its table, and only those' '
	python3 "$CHECK" "$VMMPROF" "$DOC" commands
'

test_expect_success 'each table holds the flags of its --help, spelled the same, no more' '
	python3 "$CHECK" "$VMMPROF" "$DOC" flags
'

test_expect_success 'each unit is the legend unit of its argument word' '
	python3 "$CHECK" "$VMMPROF" "$DOC" units
'

test_expect_success 'a letter or a flag has one meaning across commands, or the page says why not' '
	python3 "$CHECK" "$VMMPROF" "$DOC" letters
'

test_expect_success 'the usage lines name the flags of the options with their words' '
	python3 "$CHECK" "$VMMPROF" "$DOC" synopsis
'

test_expect_success 'the parser of each command takes every long flag its --help lists' '
	python3 "$CHECK" "$VMMPROF" "$DOC" parser
'

test_expect_success 'the checks fail when the page is wrong (a flag too many, a wrong unit, an exception missing)' '
	sed "s/^| .-n, --iterations N. | count |/| \`-n, --iterations N\` | seconds |/" "$DOC" >unit.md &&
	! cmp -s "$DOC" unit.md &&
	! python3 "$CHECK" "$VMMPROF" unit.md units >out && grep_q "top --iterations N: unit .seconds., the legend says .count." out &&
	{ cat "$DOC" && printf "\n### top\n\n| Flags | Unit | What |\n|---|---|---|\n| \`--frobnicate\` | - | x |\n"; } >extra.md &&
	! python3 "$CHECK" "$VMMPROF" extra.md flags >out && grep_q "frobnicate. is not in top --help" out &&
	grep -v "^| .-t. |" "$DOC" >letter.md &&
	! python3 "$CHECK" "$VMMPROF" letter.md letters >out && grep_q "^-t means" out &&
	sed "/^### verify/,/^### top/d" "$DOC" >gone.md &&
	! python3 "$CHECK" "$VMMPROF" gone.md commands >out && grep_q "no table for command verify" out
'

test_expect_success '-j is --json wherever JSON is printed, as perf stat -j' '
	vmmprof info -j >a && vmmprof info --json >b &&
	python3 -c "import json, sys; json.load(open(\"a\")); json.load(open(\"b\"))" &&
	vmmprof stat -j -e task-clock -- true 2>s &&
	tail -n 1 s | python3 -c "import json, sys; assert json.load(sys.stdin)[\"type\"] == \"summary\""
'

test_expect_success 'a flag given a value it does not take says so, in one line' '
	expect_exit 2 vmmprof record --quiet=1 2>err && grep_q "^vmmprof: error: option .--quiet. takes no value" err &&
	expect_exit 2 vmmprof record --output 2>err && grep_q "option .--output. needs a value" err &&
	expect_exit 2 vmmprof help --man=1 2>err && grep_q "option .--man. takes no value" err
'

test_done
