#!/bin/sh
# t5200-resctrl.sh - `--resctrl`: one resctrl monitoring group per VM, made, filled, read and removed (on a fixture tree; live only where the kernel has resctrl)
. "$(dirname "$0")/lib.sh"

model=$VP_DATA/models/good/resctrl.model
G=sys/fs/resctrl/mon_groups

. "$(dirname "$0")/resctrl-lib.sh"

test_expect_success 'without --resctrl: the reason says how to turn it on, nothing is made' '
	make_root r0 &&
	vmmprof diagnose --root r0 -m "$model" -d 0.2 --json >d.json 2>err &&
	json_get d.json "j[\"inputs_not_counted\"][\"mbm_total\"]" | grep -q -- "--resctrl" &&
	test "$(ls r0/$G | grep -c "^vmmprof-")" = 2
'

test_expect_success 'resctrl not mounted: --resctrl says so and the run goes on' '
	make_root r1 && rm -rf r1/sys/fs/resctrl &&
	vmmprof diagnose --root r1 -m "$model" -d 0.2 --resctrl --json >d.json 2>err &&
	json_get d.json "j[\"inputs_not_counted\"][\"llc_occ\"]" | grep -q "resctrl" &&
	! json_get d.json "j[\"inputs_not_counted\"][\"llc_occ\"]" | grep -q -- "--resctrl"
'

test_expect_success 'stat -m names where resctrl values come from' '
	vmmprof stat -m software -a -- sleep 0.1 >out 2>&1 &&
	grep_q "llc_occ_mib .*n/a .*measured per VM by a resctrl monitoring group: diagnose --resctrl" out
'

# The main run: a diagnosis over 3 s while the test plays the kernel.
test_expect_success '--resctrl: groups made under the right CTRL_MON group, with the VMs threads' '
	make_root r2 &&
	{ "$VMMPROF" diagnose --root r2 -m "$model" -d 3 --resctrl --json >d.json 2>err &
	  echo $! >pid; } &&
	p=$(cat pid) &&
	wait_for r2/$G/vmmprof-kvm-1000-$p &&
	wait_for r2/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p &&
	# web1: its libvirt cgroup threads, the vhost worker 1500 among them
	test "$(cat r2/$G/vmmprof-kvm-1000-$p/tasks | tr "\n" " ")" = "1000 1003 1500 1001 1002 " &&
	test "$(cat r2/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p/tasks | tr "\n" " ")" = "2000 2002 " &&
	# the group the crashed process 4000000 left is gone; a live vmmprof s and a stranger s stay
	test ! -e r2/$G/vmmprof-kvm-1000-4000000 &&
	test -d r2/$G/vmmprof-kvm-2000-5000 && test -d r2/$G/other &&
	# what the kernel would show: 3 MiB + 1 MiB held; 2e9 bytes, 1.5e9 of them local,
	# on L3 domain 0, domain 1 not counted yet
	mon r2/$G/vmmprof-kvm-1000-$p 00 3145728 2000000000 1500000000 &&
	mon r2/$G/vmmprof-kvm-1000-$p 01 1048576 Unavailable Unavailable &&
	wait $p &&
	cp d.json d-main.json
'

test_expect_success '--resctrl: values per VM from hand-computed reads' '
	# remote share (2e9 - 1.5e9) / 2e9 = 0.25; occupancy 4 MiB
	test "$(json_get d-main.json "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"web1\"][0][\"factors\"][\"locality\"][\"score\"] == 0.25")" = True &&
	test "$(json_get d-main.json "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"web1\"][0][\"factors\"][\"llc\"][\"score\"] == 4")" = True &&
	# db-2 s group never got mon_data: n/a with the reason, never 0
	test "$(json_get d-main.json "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"db-2\"][0][\"factors\"][\"llc\"][\"score\"]")" = None &&
	json_get d-main.json "j[\"notes\"]" | grep -q "resctrl: VM .db-2.: cannot read its resctrl group" &&
	json_get d-main.json "j[\"notes\"]" | grep -q "removed resctrl group .vmmprof-kvm-1000-4000000."
'

test_expect_success '--resctrl: the node view per L3 domain: node 1 holds 1 MiB, its MBM read Unavailable' '
	test "$(json_get d-main.json "[n for n in j[\"diagnosis\"][\"nodes\"] if n[\"node\"] == 1][0][\"resctrl\"][\"llc_occupancy_bytes\"]")" = 1048576 &&
	test "$(json_get d-main.json "[n for n in j[\"diagnosis\"][\"nodes\"] if n[\"node\"] == 1][0][\"resctrl\"][\"mbm_total_gbs\"]")" = None &&
	json_get d-main.json "[n for n in j[\"diagnosis\"][\"nodes\"] if n[\"node\"] == 1][0][\"resctrl\"][\"why\"]" | grep -q "Unavailable" &&
	test "$(json_get d-main.json "[n for n in j[\"diagnosis\"][\"nodes\"] if n[\"node\"] == 0][0][\"resctrl\"][\"llc_occupancy_bytes\"]")" = 3145728
'

test_expect_success '--resctrl: every group made is removed at the end' '
	test "$(ls r2/$G | grep "^vmmprof-" | tr "\n" " ")" = "vmmprof-kvm-2000-5000 " &&
	test -z "$(ls r2/sys/fs/resctrl/p1/mon_groups)"
'

test_expect_success 'a VM that exits mid-run: its group goes, the run goes on; SIGINT removes the rest' '
	make_root r3 &&
	{ "$VMMPROF" record --root r3 -m "$model" -o r3.vmmdb -I 100 -d 30 -q --resctrl 2>err &
	  echo $! >pid; } &&
	p=$(cat pid) &&
	wait_for r3/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p &&
	rm -rf r3/proc/2000 &&
	wait_gone r3/sys/fs/resctrl/p1/mon_groups/vmmprof-kvm-2000-$p &&
	test -d r3/$G/vmmprof-kvm-1000-$p &&
	kill -0 $p &&
	# then SIGINT: the groups are removed and the recording is kept
	kill -INT $p &&
	{ wait $p; test $? = 0; } &&
	test ! -e r3/$G/vmmprof-kvm-1000-$p &&
	test -s r3.vmmdb
'

test_expect_success 'SIGTERM: the same' '
	make_root r4 &&
	{ "$VMMPROF" record --root r4 -m "$model" -o r4.vmmdb -I 100 -d 30 -q --resctrl 2>err &
	  echo $! >pid; } &&
	p=$(cat pid) &&
	wait_for r4/$G/vmmprof-kvm-1000-$p &&
	kill -TERM $p &&
	wait $p;
	test ! -e r4/$G/vmmprof-kvm-1000-$p &&
	test -z "$(ls r4/sys/fs/resctrl/p1/mon_groups)"
'

test_expect_success 'no group can be made (mon_groups refuses): a reason per VM, not a failed run' '
	make_root r5 && rm -rf r5/$G && : >r5/$G &&
	vmmprof diagnose --root r5 -m "$model" -d 0.2 --resctrl --json >d.json 2>err &&
	json_get d.json "j[\"notes\"]" | grep -q "resctrl: VM .web1.: cannot create .*no mon_groups directory" &&
	test "$(json_get d.json "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"web1\"][0][\"factors\"][\"llc\"][\"score\"]")" = None
'

test_expect_success 'a VM already in another monitoring group is left there, with the reason' '
	make_root r6 && printf "res:/\nmon:other\n" >r6/proc/1000/cpu_resctrl_groups &&
	vmmprof diagnose --root r6 -m "$model" -d 0.2 --resctrl --json >d.json 2>err &&
	json_get d.json "j[\"notes\"]" | grep -q "web1.: its threads are in resctrl monitoring group .other. already" &&
	test -z "$(cat r6/$G/other/tasks)"
'

if [ -d /sys/fs/resctrl/info/L3_MON ]; then
test_expect_success 'live: a process s group is made, read and removed' '
	vmmprof diagnose -p $$ -m "$model" -d 1 --resctrl --json >d.json 2>err &&
	test -z "$(ls /sys/fs/resctrl/mon_groups | grep "^vmmprof-native-$$-")" &&
	test "$(json_get d.json "\"llc_occ\" in j[\"inputs_not_counted\"]")" = False
'
else
test_skip 'live: a process s group is made, read and removed' \
	'this machine has no resctrl monitoring (no /sys/fs/resctrl/info/L3_MON)'
fi

test_done
