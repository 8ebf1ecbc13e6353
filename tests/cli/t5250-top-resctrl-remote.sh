#!/bin/sh
# t5250-top-resctrl-remote.sh - `vmmprof --remote URL top --resctrl`: the
# daemon's top stream (/api/v1/top/stream?resctrl=1) carries each VM's LLC
# occupancy and memory traffic from the daemon's resctrl groups, and the
# node sums, as `top --resctrl` shows them locally (t5220).  On the resctrl
# fixture overlay (tests/data/resctrl/README.md: mon_L3_00 is node 0's L3,
# mon_L3_01 node 1's), the daemon's root a copy of it.
#
# The test plays the kernel: once the daemon made web1's group (named after
# the daemon's pid) and the client printed its first sample, it writes the
# group's counters.  Hand-computed as in t5220: occupancy 3 MiB on domain 0
# + 1 MiB on domain 1 = 4 MiB; the group is fresh, so its traffic counts
# from 0 and, summed over the samples (bytes/s x interval), is what was
# written: 2e9 + 1e9 = 3e9 bytes, 1.5e9 + 0.25e9 = 1.75e9 of them local;
# node 0 2e9 (1.5e9 local), node 1 1e9 (0.25e9).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
. "$(dirname "$0")/resctrl-lib.sh"
skip_without_daemon

if vmmprof --remote http://127.0.0.1:1 info --json 2>&1 | grep -q "built without libcurl"; then
	test_skip 'vmmprof --remote top --resctrl' 'this build has no --remote client (libcurl missing)'
	test_done
	exit
fi

daemon_home
G=r/sys/fs/resctrl/mon_groups
mkdir -p models && make_root r &&
cp "$VP_DATA/models/good/resctrl.model" models/ &&
add_users users adm:admin op:operator view:viewer || exit 1

start_daemon d --users users --root "$TRASH/r" --model-path "$TRASH/models" --audit-log audit

rtop() {
	tok=$1
	shift
	vmmprof --remote "$(cat d.url)" --token-file "$tok.token" top "$@"
}

test_expect_success 'top --json --resctrl: the daemon makes the groups, the counters written after the first sample' '
	p=$(cat d.pid) &&
	{ rtop op --json --resctrl -n 4 -d 0.7 >t.json 2>err & echo $! >cpid; } &&
	wait_for $G/vmmprof-kvm-1000-$p &&
	wait_for r/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p &&
	# every thread of web1 (its libvirt cgroup, the vhost worker 1500 too)
	test "$(cat $G/vmmprof-kvm-1000-$p/tasks | tr "\n" " ")" = "1000 1003 1500 1001 1002 " &&
	wait_lines t.json 1 &&
	mon_web1 $G/vmmprof-kvm-1000-$p &&
	{ wait $(cat cpid); test $? = 0; } &&
	test "$(wc -l <t.json)" = 4 &&
	grep_q "top.resctrl.*200 interval 700 ms" audit
'

test_expect_success 'the stream ended: the daemon removes the groups (no session holds them)' '
	p=$(cat d.pid) &&
	wait_gone $G/vmmprof-kvm-1000-$p &&
	wait_gone r/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p
'

VM=$TOP_VM
N0=$TOP_N0

test_expect_success 'per VM and node remotely, as locally (t5220): web1 4 MiB, 3e9 bytes (1.75e9 local); node 0 3 MiB, 2e9 (1.5e9); node 1 1 MiB, 1e9 (0.25e9)' '
	top_check_web1 t.json
'

test_expect_success 'n/a with the reason, never 0: the first sample, and db-2 (its group has no mon_data)' '
	head -n 1 t.json >first.json &&
	test "$(json_get first.json "$VM[\"mbm_total_bytes_per_s\"]")" = None &&
	# (before the test wrote them, the group had no mon_data files)
	json_get first.json "$VM[\"why\"]" | grep -q "cannot read its resctrl group" &&
	test "$(last "[v for v in j[\"vms\"] if v[\"name\"] == \"db-2\"][0][\"resctrl\"][\"llc_occupancy_bytes\"]")" = None &&
	last "[v for v in j[\"vms\"] if v[\"name\"] == \"db-2\"][0][\"resctrl\"][\"why\"]" | grep -q "cannot read its resctrl group"
'

test_expect_success 'top --batch --resctrl remotely (text): the columns, the values and the reasons' '
	p=$(cat d.pid) &&
	{ rtop op --batch --resctrl -n 3 -d 0.7 >t.txt 2>err & echo $! >cpid; } &&
	wait_for $G/vmmprof-kvm-1000-$p &&
	wait_lines t.txt 1 &&
	mon_web1 $G/vmmprof-kvm-1000-$p &&
	{ wait $(cat cpid); test $? = 0; } &&
	grep_q "^node .*vcpus  *llc_MiB  *mbm_MB/s  *mbm_local_MB/s$" t.txt &&
	grep_q "^vm .*QUEUE  *llc_MiB  *mbm_MB/s  *mbm_local_MB/s$" t.txt &&
	tail -n 40 t.txt >lastt &&
	grep_q "^web1 .* 4\.0  *[0-9.n/a]*  *[0-9.n/a]*$" lastt &&
	grep_q "^ *0 .* 3\.0  *[0-9.n/a]*  *[0-9.n/a]*$" lastt &&
	grep_q "^ *1 .* 1\.0  *[0-9.n/a]*  *[0-9.n/a]*$" lastt &&
	grep_q "^resctrl n/a: VM .db-2.: cannot read its resctrl group" lastt &&
	wait_gone $G/vmmprof-kvm-1000-$p
'

test_expect_success 'without --resctrl: no columns, no resctrl objects, no group made' '
	p=$(cat d.pid) &&
	rtop view --json -n 2 -d 0.3 >plain.json &&
	test "$(tail -n 1 plain.json >l.json && json_get l.json "j[\"resctrl\"]")" = False &&
	test "$(json_get l.json "\"resctrl\" in j[\"vms\"][0]")" = False &&
	test ! -e $G/vmmprof-kvm-1000-$p &&
	rtop view --batch -n 1 >plain.txt &&
	! grep_q "llc_MiB" plain.txt
'

test_expect_success 'a viewer may not make groups: 403, said by the client (exit 1)' '
	p=$(cat d.pid) &&
	expect_exit 1 rtop view --json --resctrl -n 1 >out 2>err &&
	grep_q "403" err &&
	grep_q "role .viewer. may not make resctrl groups" err &&
	test ! -e $G/vmmprof-kvm-1000-$p
'

test_expect_success 'the stream query: resctrl other than 1/true/0/false is 400' '
	expect_status 400 d op.token GET "/api/v1/top/stream?resctrl=yes" &&
	grep_q "resctrl" body
'

test_expect_success 'a session and a top stream share the group: threads written once, kept while the session runs' '
	p=$(cat d.pid) &&
	expect_status 201 d op.token POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200,\"resctrl\":true}" &&
	json_get body "j[\"id\"]" >sid &&
	wait_for $G/vmmprof-kvm-1000-$p &&
	rtop op --json --resctrl -n 2 -d 0.3 >shared.json &&
	test "$(cat $G/vmmprof-kvm-1000-$p/tasks | tr "\n" " ")" = "1000 1003 1500 1001 1002 " &&
	sleep 1 &&
	test -d $G/vmmprof-kvm-1000-$p &&
	expect_status 200 d op.token DELETE /api/v1/sessions/$(cat sid) &&
	wait_gone $G/vmmprof-kvm-1000-$p
'

test_expect_success 'SIGTERM while a resctrl top stream runs: the groups are removed' '
	p=$(cat d.pid) &&
	{ rtop op --json --resctrl -d 0.3 >term.json 2>term.err & echo $! >cpid; } &&
	wait_for $G/vmmprof-kvm-1000-$p &&
	stop_daemon d TERM &&
	test "$(cat d.rc)" = 0 &&
	test ! -e $G/vmmprof-kvm-1000-$p &&
	test ! -e r/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p &&
	{ wait $(cat cpid); true; }
'

# A daemon that dropped root: the stream runs, and every VM says why it has no values.
if [ "$(id -u)" != 0 ]; then
	test_skip 'a daemon as nobody: top --resctrl says why' 'not running as root (--user needs it)'
elif ! id nobody >/dev/null 2>&1; then
	test_skip 'a daemon as nobody: top --resctrl says why' 'no user nobody here'
else
	test_expect_success 'a daemon as nobody: n/a with the directory and the permission, never 0' '
		chmod 755 "$TRASH" && make_root r2 && chmod -R a+rX models r2 users &&
		start_daemon u --users users --user nobody --root "$TRASH/r2" --model-path "$TRASH/models" &&
		p=$(cat u.pid) &&
		vmmprof --remote "$(cat u.url)" --token-file op.token top --json --resctrl -n 2 -d 0.3 >u.json &&
		tail -n 1 u.json >l.json &&
		test "$(json_get l.json "$VM[\"llc_occupancy_bytes\"]")" = None &&
		test "$(json_get l.json "$VM[\"mbm_total_bytes_per_s\"]")" = None &&
		json_get l.json "$VM[\"why\"]" >why &&
		grep_q "cannot create .$TRASH/r2/sys/fs/resctrl/mon_groups/vmmprof-kvm-1000-$p.: Permission denied: making a resctrl group needs write access" why &&
		json_get l.json "$N0[\"why\"]" | grep -q "Permission denied" &&
		test ! -e r2/sys/fs/resctrl/mon_groups/vmmprof-kvm-1000-$p &&
		stop_daemon u
	'
fi

stop_all_daemons
test_done
