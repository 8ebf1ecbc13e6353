#!/bin/sh
# t10030-daemon-privileges.sh - started as root with --user, the daemon runs
# as that user with exactly CAP_PERFMON and CAP_SYS_PTRACE, and still counts
# another user's (root's) process
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

daemon_home
W=${VP_HELPERS:+$VP_HELPERS/workload}

if [ "$(id -u)" != 0 ]; then
	test_skip 'switching to --user keeping CAP_PERFMON' 'not running as root'
elif ! id nobody >/dev/null 2>&1; then
	test_skip 'switching to --user keeping CAP_PERFMON' 'no user nobody here'
elif [ "$(cat /proc/sys/kernel/cap_last_cap)" -lt 38 ]; then
	test_skip 'switching to --user keeping CAP_PERFMON' 'kernel without CAP_PERFMON (before 5.8)'
elif [ -z "$W" ] || [ ! -x "$W" ]; then
	test_skip 'switching to --user keeping CAP_PERFMON' 'tests/helpers/workload is not built'
else
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
# the daemon reads it again as nobody whenever it changes (docs/daemon.md)
chmod 711 "$TRASH"
chown nobody users
"$W" --switches 100000 >/dev/null 2>&1 &
WP=$!

test_expect_success 'root with --user nobody and a users file nobody cannot read: refused at start' '
	cp users root-users && chown root root-users && chmod 600 root-users &&
	expect_exit 1 vmmprof serve --listen 127.0.0.1:0 --users root-users --user nobody 2>err &&
	grep_q "user .nobody. cannot read the users file .root-users.: Permission denied" err
'

test_expect_success 'root with --user nobody: says what it kept' '
	start_daemon p --users users --user nobody &&
	grep_q "running as nobody (uid 65534, gid 65534); kept capabilities: cap_perfmon, cap_sys_ptrace$" p.err
'

# CAP_SYS_PTRACE is bit 19, CAP_PERFMON bit 38 (linux/capability.h):
# (1 << 19) | (1 << 38) = 0x80000 + 0x4000000000 = 0x0000004000080000.
test_expect_success 'its uid, gid and capability sets are exactly those' '
	pid=$(cat p.pid) &&
	grep_q "^Uid:	65534	65534	65534	65534$" /proc/$pid/status &&
	grep_q "^Gid:	65534	65534	65534	65534$" /proc/$pid/status &&
	grep_q "^Groups:[[:space:]]*$" /proc/$pid/status &&
	grep_q "^CapEff:	0000004000080000$" /proc/$pid/status &&
	grep_q "^CapPrm:	0000004000080000$" /proc/$pid/status &&
	grep_q "^CapBnd:	0000004000080000$" /proc/$pid/status &&
	grep_q "^CapInh:	0000000000000000$" /proc/$pid/status &&
	grep_q "^CapAmb:	0000000000000000$" /proc/$pid/status &&
	grep_q "^NoNewPrivs:	1$" /proc/$pid/status
'

test_expect_success 'as nobody it still counts a root process (task-clock counted)' '
	expect_status 200 p adm.tok GET /api/v1/whoami &&
	expect_status 201 p adm.tok POST /api/v1/sessions -d "{\"pids\":[$WP],\"interval_ms\":300}" &&
	sleep 1.2 &&
	expect_status 200 p adm.tok GET /api/v1/sessions/s1/history &&
	python3 - body <<-\EOF
	import json, sys
	fr = json.load(open(sys.argv[1]))["frames"]
	assert len(fr) >= 2, len(fr)
	sc = {s["event"]: s["running_pct"] for s in fr[-1]["scaling"]}
	assert sc.get("task-clock") is not None and sc["task-clock"] > 0, sc
	EOF
'

test_expect_success 'SIGTERM stops it (exit 0)' '
	stop_daemon p && test "$(cat p.rc)" = 0
'
kill $WP 2>/dev/null
fi

test_expect_success 'not root: --user is ignored with a note' '
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
		chmod 644 users && chmod 755 . &&
		setpriv --reuid=65534 --regid=65534 --clear-groups "$VMMPROF" serve --users users \
			--user root --listen 127.0.0.1:1 2>err;
		grep_q "not root, so --user .root. is ignored" err
	else
		true
	fi
'

stop_all_daemons
test_done
