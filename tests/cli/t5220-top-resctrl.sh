#!/bin/sh
# t5220-top-resctrl.sh - `top --resctrl`: each VM's LLC occupancy and memory
# traffic from its resctrl monitoring group, and per node the VMs' values on
# the node's L3 domain (fixture: host-libvirt-v2 with the resctrl overlay,
# tests/data/resctrl/README.md: mon_L3_00 is node 0's L3, mon_L3_01 node 1's).
#
# The test plays the kernel: after top's first sample (its group made, no
# mon_data yet) it writes web1's group's counters once.  Hand-computed:
# occupancy 3 MiB on domain 0 + 1 MiB on domain 1 = 4 MiB; the group is
# fresh, so its traffic counts from 0 and, summed over the samples (bytes/s x
# interval), is what was written: 2e9 + 1e9 = 3e9 bytes, 1.5e9 + 0.25e9 =
# 1.75e9 of them local; node 0 2e9 (1.5e9 local), node 1 1e9 (0.25e9).
. "$(dirname "$0")/lib.sh"

G=sys/fs/resctrl/mon_groups

. "$(dirname "$0")/resctrl-lib.sh"

# wait_lines FILE N: until FILE has N lines (10 s at most)
wait_lines() {
	i=0
	while [ "$(wc -l <"$1" 2>/dev/null || echo 0)" -lt "$2" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(wc -l <"$1")" -ge "$2" ]
}

# top_run DIR OUT OPTION...: top --resctrl -n N on a copy of the fixture in DIR;
# once its group is made and its first sample printed, web1's counters are
# written (3 MiB, 2e9, 1.5e9 on domain 0; 1 MiB, 1e9, 0.25e9 on domain 1)
top_run() {
	d=$1 out=$2
	shift 2
	make_root "$d" &&
	{ "$VMMPROF" top --resctrl --root "$d" "$@" >"$out" 2>err & echo $! >pid; } &&
	p=$(cat pid) &&
	wait_for "$d/$G/vmmprof-kvm-1000-$p" &&
	wait_lines "$out" 1 &&
	mon_web1 "$d/$G/vmmprof-kvm-1000-$p" &&
	wait $p
}

test_expect_success 'top --json --resctrl: groups made, the counters written after the first sample' '
	top_run r t.json --json -n 4 -d 0.7 &&
	test "$(wc -l <t.json)" = 4 &&
	# every group made is gone at the end
	test "$(ls r/$G | grep "^vmmprof-" | tr "\n" " ")" = "vmmprof-kvm-2000-5000 " &&
	test -z "$(ls r/sys/fs/resctrl/p1/mon_groups)"
'

VM=$TOP_VM
N0=$TOP_N0

test_expect_success 'per VM and node (resctrl-lib.sh top_check_web1): web1 4 MiB, 3e9 bytes (1.75e9 local); node 0 3 MiB, 2e9 (1.5e9); node 1 1 MiB, 1e9 (0.25e9)' '
	top_check_web1 t.json
'

test_expect_success 'n/a with the reason, never 0: the first sample, and db-2 (its group has no mon_data)' '
	head -n 1 t.json >first.json &&
	test "$(json_get first.json "$VM[\"mbm_total_bytes_per_s\"]")" = None &&
	json_get first.json "$VM[\"why\"]" | grep -q . &&
	test "$(last "[v for v in j[\"vms\"] if v[\"name\"] == \"db-2\"][0][\"resctrl\"][\"llc_occupancy_bytes\"]")" = None &&
	last "[v for v in j[\"vms\"] if v[\"name\"] == \"db-2\"][0][\"resctrl\"][\"why\"]" | grep -q "cannot read its resctrl group"
'

test_expect_success 'the LLC column is the group occupancy when no model counts LLC' '
	test "$(last "[v for v in j[\"vms\"] if v[\"name\"] == \"web1\"][0][\"factors\"][\"llc\"][\"value\"]")" = 4194304 &&
	test "$(last "[v for v in j[\"vms\"] if v[\"name\"] == \"web1\"][0][\"factors\"][\"llc\"][\"source\"]")" = resctrl
'

test_expect_success 'top --batch --resctrl (text): the columns, the legend and the reasons' '
	top_run r2 t.txt --batch -n 3 -d 0.7 &&
	grep_q "^node .*vcpus  *llc_MiB  *mbm_MB/s  *mbm_local_MB/s$" t.txt &&
	grep_q "^vm .*QUEUE  *llc_MiB  *mbm_MB/s  *mbm_local_MB/s$" t.txt &&
	# the last sample: web1 holds 4.0 MiB, node 0 3.0, node 1 1.0
	tail -n 40 t.txt >lastt &&
	grep_q "^web1 .* 4\.0  *[0-9.n/a]*  *[0-9.n/a]*$" lastt &&
	grep_q "^ *0 .* 3\.0  *[0-9.n/a]*  *[0-9.n/a]*$" lastt &&
	grep_q "^ *1 .* 1\.0  *[0-9.n/a]*  *[0-9.n/a]*$" lastt &&
	grep_q "^resctrl n/a: VM .db-2.: cannot read its resctrl group" lastt
'

test_expect_success 'without --resctrl: no columns, no group made' '
	make_root r3 &&
	vmmprof top --batch -n 1 --root r3 >t.txt 2>err &&
	! grep_q "llc_MiB" t.txt &&
	test "$(ls r3/$G | grep -c "^vmmprof-")" = 2 &&
	vmmprof top --json -n 1 --root r3 >t.json &&
	test "$(json_get t.json "j[\"resctrl\"]")" = False &&
	test "$(json_get t.json "\"resctrl\" in j[\"vms\"][0]")" = False
'

test_expect_success 'resctrl not mounted: every row says so' '
	make_root r4 && rm -rf r4/sys/fs/resctrl &&
	vmmprof top --json -n 1 --resctrl --root r4 >t.json 2>err &&
	test "$(json_get t.json "$VM[\"llc_occupancy_bytes\"]")" = None &&
	json_get t.json "$VM[\"why\"]" | grep -q "resctrl" &&
	json_get t.json "$N0[\"why\"]" | grep -q "resctrl"
'

test_expect_success 'SIGTERM ends top --batch --resctrl cleanly: its groups are removed' '
	make_root r5 &&
	{ "$VMMPROF" top --batch -d 0.3 --resctrl --root r5 >t.txt 2>err &
	  echo $! >pid; } &&
	p=$(cat pid) &&
	wait_for r5/$G/vmmprof-kvm-1000-$p &&
	kill -TERM $p &&
	{ wait $p; test $? = 0; } &&
	test ! -e r5/$G/vmmprof-kvm-1000-$p &&
	test -z "$(ls r5/sys/fs/resctrl/p1/mon_groups)"
'

# the screen, in tmux: the columns, the values, and q removes the groups
S=vp-t5220-$$
. "$(dirname "$0")/tmux-lib.sh"
if ! command -v tmux >/dev/null; then
	test_skip 'top --resctrl on the screen' 'tmux is not installed'
else
	test_expect_success 'the screen (tmux): LLC_MiB and MBM_MB/s columns, q removes the groups' '
		make_root r6 &&
		tmux new-session -d -s "$S" -x 160 -y 40 \
			"TERM=xterm-256color $VMMPROF top -d 0.3 --resctrl --root $TRASH/r6; echo EXIT=\$?; sleep 30" &&
		screen_wait "LLC_MiB  MBM_MB/s" s1 &&
		g=$(ls -d r6/$G/vmmprof-kvm-1000-* | grep -v 4000000) &&
		mon_web1 "$g" &&
		screen_wait "^ web1 .* 4\\.0  *[0-9.]* *$" s2 &&
		tmux send-keys -t "$S" q &&
		screen_wait "EXIT=0" s3 &&
		test ! -e "$g"
	'
	tmux kill-session -t "$S" 2>/dev/null
fi

test_expect_success 'help names --resctrl' '
	vmmprof help top >h && grep_q "[-]-resctrl" h
'

test_done
