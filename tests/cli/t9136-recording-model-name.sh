#!/bin/sh
# t9136-recording-model-name.sh - the model a recording names is a name,
# looked up in the model directories, never a path: a recording may come
# from someone else, and "./trap.model" or "/dev/zero" in its meta table
# were opened as model files by report, diagnose and compare (issue 21,
# "a recording's model name used as a path").  A name with a terminal
# escape is shown with '?' for the control characters.
. "$(dirname "$0")/lib.sh"

synth="$VP_HELPERS/rec_synth"
if [ ! -x "$synth" ]; then
	test_skip 'model names from recordings' 'VP_HELPERS/rec_synth is not built'
	test_done
	exit $?
fi

VP_SRC=$(cd "$(dirname "$0")/../.." && pwd)

# named FILE NAME: a copy of the synthetic recording whose meta says model NAME
named() {
	cp r.vmmdb "$1" &&
	python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE meta SET value = ? WHERE key = ?", (sys.argv[2], "model"))
c.commit()
' "$1" "$2"
}

test_expect_success 'setup: a synthetic recording of the software model' '
	"$synth" r.vmmdb 3 1 >/dev/null &&
	vmmprof report r.vmmdb >out 2>err &&
	grep_q "vm1" out
'

test_expect_success 'a model name that is a path is refused, the file is not read' '
	cp "$VP_SRC/models/software.model" trap.model &&
	named p.vmmdb ./trap.model &&
	expect_exit 1 vmmprof report p.vmmdb >out 2>err &&
	cat err &&
	grep_q "recording names its model .\./trap\.model., which is not a model name" err &&
	test ! -s out &&
	expect_exit 1 vmmprof diagnose p.vmmdb >out 2>err &&
	grep_q "which is not a model name" err
'

test_expect_success 'a name ending in .model is looked up, not opened here; an absolute path is refused' '
	cp "$VP_SRC/models/software.model" trap.model &&
	named m.vmmdb trap.model &&
	expect_exit 1 vmmprof report m.vmmdb >out 2>err &&
	grep_q "no model named .trap\.model." err &&
	test ! -s out &&
	named z.vmmdb /dev/zero &&
	expect_exit 1 vmmprof report z.vmmdb >out 2>err &&
	grep_q "recording names its model ./dev/zero., which is not a model name" err
'

test_expect_success 'a name with a terminal escape: refused, shown without it' '
	named e.vmmdb "$(printf "x\033]0;owned\007")" &&
	expect_exit 1 vmmprof report e.vmmdb >out 2>err &&
	grep_q "recording names its model .x?\]0;owned?., which is not a model name" err &&
	! grep -q "$(printf "\033")" err
'

test_expect_success 'a plain name not installed: no model named' '
	named n.vmmdb nosuchmodel &&
	expect_exit 1 vmmprof report n.vmmdb >out 2>err &&
	grep_q "no model named .nosuchmodel." err
'

test_done
