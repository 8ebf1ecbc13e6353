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
N0=$DIAG_N0

for m in json text; do
	test_expect_success "diagnose --resctrl ($m): a run with web1's counters written" '
		rm -rf r && make_root r &&
		if [ '$m' = json ]; then o=--json; else o=; fi &&
		{ "$VMMPROF" diagnose --root r -m "$model" -d 2 --resctrl $o >d.'$m' 2>err &
		  echo $! >pid; } &&
		p=$(cat pid) &&
		wait_for r/$G/vmmprof-kvm-1000-$p &&
		mon_web1 r/$G/vmmprof-kvm-1000-$p &&
		wait $p
	'
done

test_expect_success 'node view (JSON): occupancy of each node L3, traffic x duration = bytes written' '
	diag_check_web1 d.json
'

test_expect_success 'node view (text): a resctrl line under each node' '
	diag_text_web1 d.text
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
