#!/bin/sh
# t5230-resctrl-nodes.sh - `diagnose --resctrl`: the node view shows the VMs'
# resctrl values on each node's L3 domain (mon_L3_XX of the node's L3 cache
# id; fixture: host-libvirt-v2 with the resctrl overlay, where mon_L3_00 is
# node 0's L3 and mon_L3_01 node 1's, tests/data/resctrl/README.md).
#
# The test writes web1's group's counters while diagnose collects: 3 MiB
# held and 2e9 bytes (1.5e9 local) on domain 0, 1 MiB and 1e9 bytes (0.25e9
# local) on domain 1.  The group is fresh (counts from 0), so over the whole
# run node 0 moved 2e9 bytes: its GB/s x the run's duration x 1e9 = 2e9.
. "$(dirname "$0")/lib.sh"

model=$VP_DATA/models/good/resctrl.model
G=sys/fs/resctrl/mon_groups
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

. "$(dirname "$0")/resctrl-lib.sh"
N0='[n for n in j["diagnosis"]["nodes"] if n["node"] == 0][0]["resctrl"]'
N1='[n for n in j["diagnosis"]["nodes"] if n["node"] == 1][0]["resctrl"]'

for m in json text; do
	test_expect_success "diagnose --resctrl ($m): a run with web1's counters written" '
		rm -rf r && make_root r &&
		if [ '$m' = json ]; then o=--json; else o=; fi &&
		{ "$VMMPROF" diagnose --root r -m "$model" -d 2 --resctrl $o >d.'$m' 2>err &
		  echo $! >pid; } &&
		p=$(cat pid) &&
		wait_for r/$G/vmmprof-kvm-1000-$p &&
		mon r/$G/vmmprof-kvm-1000-$p 00 3145728 2000000000 1500000000 &&
		mon r/$G/vmmprof-kvm-1000-$p 01 1048576 1000000000 250000000 &&
		wait $p
	'
done

test_expect_success 'node view (JSON): occupancy of each node L3, traffic x duration = bytes written' '
	j=d.json &&
	test "$(json_get $j "$N0[\"llc_occupancy_bytes\"]")" = 3145728 &&
	test "$(json_get $j "$N1[\"llc_occupancy_bytes\"]")" = 1048576 &&
	test "$(json_get $j "round($N0[\"mbm_total_gbs\"] * j[\"duration_s\"] * 1e9)")" = 2000000000 &&
	test "$(json_get $j "round($N0[\"mbm_local_gbs\"] * j[\"duration_s\"] * 1e9)")" = 1500000000 &&
	test "$(json_get $j "round($N1[\"mbm_total_gbs\"] * j[\"duration_s\"] * 1e9)")" = 1000000000 &&
	test "$(json_get $j "round($N1[\"mbm_local_gbs\"] * j[\"duration_s\"] * 1e9)")" = 250000000 &&
	test "$(json_get $j "$N0[\"why\"]")" = None
'

test_expect_success 'node view (text): a resctrl line under each node' '
	grep_q "^  node 0 (CPUs 0-1): " d.text &&
	grep_q "^    resctrl, the VMs. groups on its L3: LLC occupancy 3.0 MiB, memory traffic [0-9.]* GB/s (local [0-9.]* GB/s)$" d.text &&
	grep_q "^    resctrl, the VMs. groups on its L3: LLC occupancy 1.0 MiB, " d.text
'

test_expect_success 'without --resctrl: the node resctrl field is null and no line is printed' '
	make_root r0 &&
	vmmprof diagnose --root r0 -m "$model" -d 0.2 --json >d0.json 2>err &&
	test "$(json_get d0.json "$N0")" = None &&
	vmmprof diagnose --root r0 -m "$model" -d 0.2 >d0.txt 2>err &&
	! grep_q "resctrl, the VMs" d0.txt
'

test_expect_success 'resctrl not mounted: the node says why, n/a not 0' '
	make_root r1 && rm -rf r1/sys/fs/resctrl &&
	vmmprof diagnose --root r1 -m "$model" -d 0.2 --resctrl --json >d1.json 2>err &&
	test "$(json_get d1.json "$N0[\"llc_occupancy_bytes\"]")" = None &&
	json_get d1.json "$N0[\"why\"]" | grep -q "resctrl"
'

test_done
