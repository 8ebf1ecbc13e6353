#!/bin/sh
# t11010-record-file-name.sh - record writes the file it was asked for; unreadable recordings say why
. "$(dirname "$0")/lib.sh"

sleep 30 &
spid=$!
trap 'kill $spid 2>/dev/null' EXIT

test_expect_success 'record -o "" is refused, exit 1, instead of writing nowhere' '
	expect_exit 1 vmmprof record -q -o "" -p $spid -d 0.2 -I 100 2>err &&
	grep_q "file name is empty" err
'

test_expect_success 'record -o :memory: writes a file named :memory: that report reads' '
	vmmprof record -q -o :memory: -p $spid -d 0.35 -I 100 &&
	test -s ./:memory: &&
	vmmprof report --json :memory: >r.json &&
	test "$(json_get r.json "len(j[\"intervals\"]) >= 2")" = True
'

test_expect_success 'record -o "file:x?mode=memory" is a file of that name, not an SQLite URI' '
	vmmprof record -q -o "file:x?mode=memory" -p $spid -d 0.25 -I 100 &&
	test -s "./file:x?mode=memory" &&
	vmmprof report --csv "file:x?mode=memory" >r.csv &&
	test $(grep -c ",process,sleep," r.csv) -ge 1
'

test_expect_success 'without -o: says it writes vmmprof.vmmdb, and where the one before went' '
	mkdir def && ( cd def && vmmprof record -p $spid -d 0.25 -I 100 ) 2>err1 &&
	grep_q "^vmmprof record: .vmmprof.vmmdb., model" err1 &&
	grep_q "written to .vmmprof.vmmdb.$" err1 &&
	! grep -q "before" err1 &&
	( cd def && vmmprof record -p $spid -d 0.25 -I 100 ) 2>err2 &&
	grep_q "^vmmprof record: the recording before is now .vmmprof.vmmdb.old.$" err2 &&
	test -s def/vmmprof.vmmdb.old && test -s def/vmmprof.vmmdb &&
	( cd def && vmmprof record -q -p $spid -d 0.25 -I 100 ) 2>err3 &&
	! test -s err3
'

test_expect_success 'report and diagnose of a directory: "it is a directory", exit 1' '
	mkdir d.vmmdb &&
	expect_exit 1 vmmprof report d.vmmdb 2>err &&
	grep_q "cannot open recording .d.vmmdb.: it is a directory" err &&
	expect_exit 1 vmmprof diagnose d.vmmdb 2>err &&
	grep_q "it is a directory" err
'

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
test_expect_success 'a recording the user may not read: Permission denied, exit 1' '
	vmmprof record -q -o p.vmmdb -p $spid -d 0.2 -I 100 &&
	chmod 600 p.vmmdb && chmod 755 . &&
	expect_exit 1 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$VMMPROF" report p.vmmdb 2>err &&
	grep_q "cannot open recording .p.vmmdb.: Permission denied" err
'
else
test_skip 'a recording the user may not read: Permission denied' 'needs root and setpriv'
fi

test_done
