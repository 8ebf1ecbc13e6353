#!/bin/sh
# t5240-resctrl-daemon-user.sh - a daemon that dropped to another user
# (--user nobody) cannot make resctrl groups: a session with "resctrl": true
# says so at once (the session's resctrl_why, a warning on standard error),
# naming the directory and the permission needed, and its values are n/a,
# never the zeros of a group that holds none of the VM's threads.  On the
# resctrl fixture overlay, whose directories are root's (mode 0755).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
. "$(dirname "$0")/resctrl-lib.sh"
skip_without_daemon

daemon_home

if [ "$(id -u)" != 0 ]; then
	test_skip 'a daemon as nobody asked for resctrl' 'not running as root (--user needs it)'
	test_done
	exit
elif ! id nobody >/dev/null 2>&1; then
	test_skip 'a daemon as nobody asked for resctrl' 'no user nobody here'
	test_done
	exit
fi

# nobody must reach the fixture and the model under $TRASH
chmod 755 "$TRASH"
G=r/sys/fs/resctrl/mon_groups
mkdir -p models && make_root r &&
cp "$VP_DATA/models/good/resctrl.model" models/ && chmod -R a+rX models r || exit 1
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
# the daemon reads its users file again as nobody whenever it changes, and
# refuses to start as a user that cannot (docs/daemon.md)
chown nobody users

test_expect_success 'as nobody: a session with resctrl is made, and says why it cannot measure' '
	start_daemon u --users users --user nobody --root "$TRASH/r" --model-path "$TRASH/models" &&
	p=$(cat u.pid) &&
	expect_status 201 u adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200,\"resctrl\":true}" &&
	json_get body "j[\"resctrl_why\"]" >why &&
	grep_q "VM .web1.: cannot create .$TRASH/$G/vmmprof-kvm-1000-$p.: Permission denied: making a resctrl group needs write access to its parent directory, which is root.s" why &&
	grep_q "VM .db-2.: cannot create .$TRASH/r/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p.: Permission denied" why &&
	grep_q "(vmmprofd runs as uid 65534, not root)$" why &&
	json_get body "j[\"id\"]" >id &&
	test ! -e $G/vmmprof-kvm-1000-$p
'

test_expect_success 'the warning is on the daemon standard error, and GET repeats the reason' '
	grep_q "^vmmprofd: warning: session $(cat id): resctrl: VM .web1.: cannot create " u.err &&
	expect_status 200 u adm.tok GET /api/v1/sessions/$(cat id) &&
	json_get body "j[\"resctrl_why\"]" | grep -q "Permission denied"
'

test_expect_success 'its diagnosis: the resctrl values are n/a (never 0), the node says why' '
	sleep 0.6 &&
	expect_status 200 u adm.tok GET /api/v1/sessions/$(cat id)/diagnosis &&
	test "$(json_get body "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"web1\"][0][\"factors\"][\"llc\"][\"score\"]")" = None &&
	json_get body "[n for n in j[\"diagnosis\"][\"nodes\"] if n[\"node\"] == 0][0][\"resctrl\"][\"why\"]" |
		grep -q "Permission denied" &&
	expect_status 200 u adm.tok DELETE /api/v1/sessions/$(cat id)
'

if vmmprof --remote http://127.0.0.1:1 info --json 2>&1 | grep -q "built without libcurl"; then
	test_skip 'vmmprof --remote diagnose --resctrl warns' 'this build has no --remote client (libcurl missing)'
else
	test_expect_success 'vmmprof --remote diagnose --resctrl: the reason as a warning on its standard error' '
		vmmprof --remote "$(cat u.url)" --token-file adm.tok diagnose -m resctrl --resctrl -d 0.5 >out 2>err &&
		grep_q "^vmmprof: warning: resctrl: VM .web1.: cannot create .*Permission denied: making a resctrl group needs write access" err &&
		grep_q "^Bottlenecks" out
	'
fi

test_expect_success 'a session without resctrl has no reason' '
	expect_status 201 u adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200}" &&
	test "$(json_get body "j[\"resctrl_why\"]")" = None &&
	json_get body "j[\"id\"]" >id2 &&
	expect_status 200 u adm.tok DELETE /api/v1/sessions/$(cat id2)
'

# A group that exists (root made it) but whose tasks file nobody may write:
# the threads cannot be moved in, so its counts are not the VM's.
test_expect_success 'a group it cannot move the threads into: n/a with the kernel rule, not its zeros' '
	p=$(cat u.pid) &&
	mkdir $G/vmmprof-kvm-1000-$p && : >$G/vmmprof-kvm-1000-$p/tasks &&
	mkdir -p $G/vmmprof-kvm-1000-$p/mon_data/mon_L3_00 &&
	for f in llc_occupancy mbm_total_bytes mbm_local_bytes; do
		echo 0 >$G/vmmprof-kvm-1000-$p/mon_data/mon_L3_00/$f || return 1
	done &&
	expect_status 201 u adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200,\"resctrl\":true}" &&
	json_get body "j[\"id\"]" >id3 &&
	json_get body "j[\"resctrl_why\"]" >why &&
	grep_q "VM .web1.: cannot open .$TRASH/$G/vmmprof-kvm-1000-$p/tasks.: Permission denied: the kernel lets only root (euid 0) or the threads. owner move a thread into a resctrl group" why &&
	test ! -s $G/vmmprof-kvm-1000-$p/tasks &&
	sleep 0.6 &&
	expect_status 200 u adm.tok GET /api/v1/sessions/$(cat id3)/diagnosis &&
	test "$(json_get body "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"web1\"][0][\"factors\"][\"llc\"][\"score\"]")" = None &&
	stop_daemon u
'

stop_all_daemons
test_done
