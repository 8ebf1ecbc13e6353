#!/bin/sh
# t5210-resctrl-daemon.sh - daemon sessions with "resctrl": true on a fixture tree: groups shared by sessions, removed when the last one stops and on SIGTERM
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
. "$(dirname "$0")/resctrl-lib.sh"
skip_without_daemon

daemon_home
G=r/sys/fs/resctrl/mon_groups
mkdir -p models && make_root r &&
cp "$VP_DATA/models/good/resctrl.model" models/ || exit 1
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null

start_daemon d --users users --root "$TRASH/r" --model-path models --audit-log audit

test_expect_success 'a session without resctrl makes no group; its field is false' '
	expect_status 201 d adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200}" &&
	test "$(json_get body "j[\"resctrl\"]")" = False &&
	id=$(json_get body "j[\"id\"]") &&
	sleep 0.5 &&
	test "$(ls $G | grep -c "^vmmprof-kvm-1000-$(cat d.pid)$")" = 0 &&
	expect_status 200 d adm.tok DELETE /api/v1/sessions/$id
'

test_expect_success '"resctrl": true makes the VMs groups, named after the daemon' '
	p=$(cat d.pid) &&
	expect_status 201 d adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200,\"resctrl\":true}" &&
	test "$(json_get body "j[\"resctrl\"]")" = True &&
	json_get body "j[\"id\"]" >s1 &&
	wait_for $G/vmmprof-kvm-1000-$p &&
	wait_for r/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p &&
	test "$(cat $G/vmmprof-kvm-1000-$p/tasks | tr "\n" " ")" = "1000 1003 1500 1001 1002 "
'

test_expect_success 'a second session shares the groups; stopping the first keeps them' '
	p=$(cat d.pid) &&
	expect_status 201 d adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200,\"resctrl\":true}" &&
	json_get body "j[\"id\"]" >s2 &&
	sleep 0.5 &&
	# the threads were written once, not once per session
	test "$(cat $G/vmmprof-kvm-1000-$p/tasks | tr "\n" " ")" = "1000 1003 1500 1001 1002 " &&
	expect_status 200 d adm.tok DELETE /api/v1/sessions/$(cat s1) &&
	sleep 0.5 &&
	test -d $G/vmmprof-kvm-1000-$p
'

test_expect_success 'the frames carry the values the kernel shows (hand-computed)' '
	p=$(cat d.pid) &&
	mkdir -p $G/vmmprof-kvm-1000-$p/mon_data/mon_L3_00 &&
	echo 2097152 >$G/vmmprof-kvm-1000-$p/mon_data/mon_L3_00/llc_occupancy &&
	echo 1000 >$G/vmmprof-kvm-1000-$p/mon_data/mon_L3_00/mbm_total_bytes &&
	echo 1000 >$G/vmmprof-kvm-1000-$p/mon_data/mon_L3_00/mbm_local_bytes &&
	sleep 1 &&
	expect_status 200 d adm.tok GET /api/v1/sessions/$(cat s2)/diagnosis &&
	test "$(json_get body "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"web1\"][0][\"factors\"][\"llc\"][\"score\"] == 2")" = True
'

test_expect_success 'stopping the last session removes the groups' '
	p=$(cat d.pid) &&
	expect_status 200 d adm.tok DELETE /api/v1/sessions/$(cat s2) &&
	wait_gone $G/vmmprof-kvm-1000-$p &&
	wait_gone r/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p
'

test_expect_success 'a malformed resctrl field is refused (400)' '
	expect_status 400 d adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"resctrl\":1}" &&
	grep -q "resctrl" body
'

test_expect_success 'SIGTERM with a resctrl session running: the groups are removed' '
	p=$(cat d.pid) &&
	expect_status 201 d adm.tok POST /api/v1/sessions -d "{\"model\":\"resctrl\",\"interval_ms\":200,\"resctrl\":true}" &&
	wait_for $G/vmmprof-kvm-1000-$p &&
	stop_daemon d TERM &&
	test "$(cat d.rc)" = 0 &&
	test ! -e $G/vmmprof-kvm-1000-$p &&
	test ! -e r/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p
'

stop_all_daemons
test_done
