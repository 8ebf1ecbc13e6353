#!/bin/sh
# t10321-systemd-unit: the unit the project ships (contrib/vmmprofd.service)
# passes `systemd-analyze verify`.  systemd is not PID 1 on the test machine,
# so the unit is checked, not started (docs/daemon.md says so).
. "$(dirname "$0")/lib.sh"

UNIT=$(cd "$(dirname "$0")/../../contrib" && pwd)/vmmprofd.service

if ! command -v systemd-analyze >/dev/null 2>&1; then
	test_skip 'systemd-analyze verify contrib/vmmprofd.service' 'systemd-analyze is not installed (Debian package systemd)'
	test_done
	exit $?
fi

# The unit as installed: ExecStart names the installed vmmprofd, and
# Documentation= a man page that `make install` writes.  Here both point at
# this build: the binary under test, its serve page in a MANPATH of our own.
setup() {
	mkdir -p man/man1 &&
	vmmprof help --man serve >man/man1/vmmprof-serve.1 &&
	grep -q "^ExecStart=/usr/local/bin/vmmprofd " "$UNIT" &&

	ln -sf "$VMMPROF" "$TRASH/vmmprofd" &&
	sed "s|^ExecStart=/usr/local/bin/vmmprofd |ExecStart=$TRASH/vmmprofd |" "$UNIT" >vmmprofd.service
}

test_expect_success 'systemd-analyze verify: no complaint, exit 0' '
	setup &&
	MANPATH=$TRASH/man systemd-analyze verify ./vmmprofd.service >out 2>&1
	rc=$?
	cat out
	[ $rc -eq 0 ] && [ ! -s out ]
'

# A complaint is only a warning to systemd-analyze (it still exits 0), so the
# test above requires silence; these show that a broken unit is not silent.
test_expect_success 'the check is not blind: an unknown key, a missing binary, a bad type are reported' '
	setup &&
	{ cat vmmprofd.service; printf "[Service]\nNoSuchKey=1\n"; } >bad1.service &&
	MANPATH=$TRASH/man systemd-analyze verify ./bad1.service >out1 2>&1
	grep_q "NoSuchKey" out1 &&
	sed "s|^ExecStart=[^ ]*|ExecStart=$TRASH/not-there|" vmmprofd.service >bad2.service &&
	{ MANPATH=$TRASH/man systemd-analyze verify ./bad2.service >out2 2>&1; [ -s out2 ]; } &&
	grep_q "not-there" out2 &&
	sed "s|^Type=simple|Type=simpel|" vmmprofd.service >bad3.service &&
	MANPATH=$TRASH/man systemd-analyze verify ./bad3.service >out3 2>&1
	grep_q "simpel" out3
'

test_expect_success 'the unit runs vmmprofd with the configuration and keeps only CAP_PERFMON and CAP_SYS_PTRACE' '
	grep -q "^ExecStart=/usr/local/bin/vmmprofd --config /etc/vmmprof/vmmprofd.conf$" "$UNIT" &&
	grep -q "^User=vmmprof$" "$UNIT" &&
	grep -q "^AmbientCapabilities=CAP_PERFMON CAP_SYS_PTRACE$" "$UNIT" &&
	grep -q "^CapabilityBoundingSet=CAP_PERFMON CAP_SYS_PTRACE$" "$UNIT" &&
	grep -q "^NoNewPrivileges=yes$" "$UNIT"
'

if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
	test_skip 'starting the unit' 'would install a system service on the test machine; not done by the test suite'
else
	test_skip 'starting the unit' "systemd is not PID 1 here (PID 1 is '$(cat /proc/1/comm 2>/dev/null)')"
fi

test_done
