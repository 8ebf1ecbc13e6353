#!/bin/sh
# t11060-calibrate-output.sh - calibrate says it cannot write its result
# before it measures, not after a run it then throws away
. "$(dirname "$0")/lib.sh"

# 20 s of measuring if the check came after it: timeout 8 tells the two apart
test_expect_success 'calibrate -o into a directory that does not exist: exit 1 at once, naming it' '
	expect_exit 1 timeout 8 "$VMMPROF" calibrate -q --quick -t 20 -o "$TRASH/no-dir/cal.json" 2>err &&
	grep_q "cannot write the calibration to .*no-dir/cal.json.: directory .*no-dir.: No such file or directory" err &&
	test ! -e "$TRASH/no-dir"
'

test_expect_success 'no HOME and no XDG_CONFIG_HOME, no -o: exit 1 at once, says to give -o' '
	expect_exit 1 env -u HOME -u XDG_CONFIG_HOME timeout 8 "$VMMPROF" calibrate -q --quick -t 20 2>err &&
	grep_q "neither HOME nor XDG_CONFIG_HOME is set (give -o FILE)" err &&
	! grep -q "(null)" err
'

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
test_expect_success 'a directory the user may not write: Permission denied, exit 1 at once' '
	mkdir ro && chmod 755 . ro &&
	expect_exit 1 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		timeout 8 "$VMMPROF" calibrate -q --quick -t 20 -o "$TRASH/ro/cal.json" 2>err &&
	grep_q "directory .*ro.: Permission denied" err
'
else
test_skip 'a directory the user may not write' 'needs root and setpriv'
fi

test_done
