#!/bin/sh
# t9040-diagnose-placement.sh - the placement pass over the whole host on the
# multi-node fixture trees (--root): isolcpus= and free memory per node
# bound the plan, and what would undo an advice (numad) is said with it.
#
# Hand calculations from tests/data/root/README.md and the trees' files:
# - skx-2s: node 0 = CPUs 0-3,8-11 (8 CPUs), node 1 = 4-7,12-15.  vm1 (plain
#   QEMU, 6 of its 8 GiB on node 0) runs vCPUs 0 and 1 on CPUs 1 and 2
#   (node 0) and vCPUs 2 and 3 on CPUs 5 and 6 (node 1): both of those are
#   told to go to node 0 (t9020).  With isolcpus=1-3,8-11 node 0 keeps one
#   usable CPU (0) and already runs two vCPUs: 2 + 1 = 3 vCPUs on 1 CPU,
#   so both pins are flagged, and the reason names isolcpus=; their commands
#   pin to the usable CPU 0 only (isolated CPUs are not balanced onto).
# - host-libvirt-v2 (README): the one advice pins web1 vCPU 1 (QEMU pid
#   1000) to node 0.  A process named numad (pid 555 in a copy of the tree)
#   re-places processes on its own: the advice says so with numad -x 1000.
#   kernel.numa_balancing is 1 there, but a vCPU pin alone is respected by
#   the kernel (it moves a task only within its allowed CPUs): no word of it.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

# rule vcpu conflict of each advice, then each conflict note
advice() {
	python3 - "$1" <<-'PY'
	import json, sys
	j = json.load(open(sys.argv[1]))
	for a in j["diagnosis"]["advice"]:
	    print(a["rule"], a["vcpu"], a["conflict"])
	for a in j["diagnosis"]["advice"]:
	    if a["conflict"]:
	        print(a["conflict_note"])
	PY
}

test_expect_success 'skx-2s without isolcpus: both pins fit node 0' '
	vmmprof diagnose --root "$R/skx-2s" -m software -d 0.2 --json >s.json 2>err &&
	advice s.json >adv &&
	printf "%s\n" "pin-vcpu-to-memory 2 False" "pin-vcpu-to-memory 3 False" >want &&
	diff -u want adv
'

test_expect_success 'skx-2s with isolcpus=1-3,8-11: node 0 has one CPU, both pins flagged' '
	cp -R "$R/skx-2s" t &&
	echo "1-3,8-11" >t/sys/devices/system/cpu/isolated &&
	vmmprof diagnose --root t -m software -d 0.2 --json >i.json 2>err &&
	advice i.json >adv &&
	note="node 0 would run 3 vCPUs on 1 CPUs (the others reserved by isolcpus=) after the advice ranked above: apply this one only if CPUs there are free" &&
	printf "%s\n" "pin-vcpu-to-memory 2 True" "pin-vcpu-to-memory 3 True" "$note" "$note" >want &&
	diff -u want adv &&
	vmmprof diagnose --root t -m software -d 0.2 >i.txt 2>err &&
	grep_q "CONFLICT: node 0 would run 3 vCPUs on 1 CPUs" i.txt &&
	json_get i.json "[a[\"command\"] for a in j[\"diagnosis\"][\"advice\"]]" >cmds &&
	grep_q "taskset -pc 0 4246" cmds &&
	grep_q "taskset -pc 0 4247" cmds
'

test_expect_success 'host-libvirt-v2 with numad running: the pin says numad would undo it' '
	cp -R "$R/host-libvirt-v2" n &&
	mkdir -p n/proc/555 &&
	echo numad >n/proc/555/comm &&
	vmmprof diagnose --root n -d 0.2 --json >n.json 2>err &&
	json_get n.json "j[\"diagnosis\"][\"advice\"][0][\"warning\"]" >w &&
	grep_q "^numad (pid 555) runs" w &&
	grep_q "(.numad -x 1000.)" w &&
	! grep -q numa_balancing w &&
	vmmprof diagnose --root n -d 0.2 >n.txt 2>err &&
	grep_q "^     WARNING: numad (pid 555) runs" n.txt
'

test_expect_success 'host-libvirt-v2 as it is: no numad, no warning' '
	vmmprof diagnose --root "$R/host-libvirt-v2" -d 0.2 --json >h.json 2>err &&
	test "$(json_get h.json "j[\"diagnosis\"][\"advice\"][0][\"warning\"]")" = None
'

test_done
