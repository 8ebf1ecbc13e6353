#!/bin/sh
# t9045-diagnose-io-locality.sh - a PCI device passed through to a VM (VFIO)
# on another node than its vCPUs: list vms shows the device and its node, and
# diagnose gives io-locality advice, ranked after the advice with a gain.
#
# The tree is host-libvirt-v2 (tests/data/root/README.md; 4 CPUs: 0-1 node 0,
# 2-3 node 1) with libvirt JSON "-device {driver: vfio-pci, host:
# 0000:81:00.0}" added to web1 (pid 1000) and that device in sysfs: class
# 0x020000 (PCI base class 02, a network controller).  web1: vCPU 0 ran on
# CPU 1 (node 0), vCPU 1 on CPU 2 (node 1); 768 of its 1024 MiB on node 0.
# - device on node 1: 1 of its 2 vCPUs (vCPU 0) ran on another node, 75 % of
#   its memory is on node 0 -> run web1 on node 1 (CPUs 2-3), memory moved
#   0 -> 1; but pin-vcpu-to-memory moves vCPU 1 to node 0: a conflict.
# - device on node 0: the one vCPU away (vCPU 1) is what pin-vcpu-to-memory
#   moves to node 0 already: no second advice, that one says it.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

# tree NODE: the fixture with the device on NODE, in directory t
tree() {
	rm -rf t && cp -R "$R/host-libvirt-v2" t &&
	printf '%s\0%s\0' -device \
		'{"driver":"vfio-pci","host":"0000:81:00.0","id":"hostdev0","bus":"pci.3"}' \
		>>t/proc/1000/cmdline &&
	mkdir -p t/sys/bus/pci/devices/0000:81:00.0 &&
	echo "$1" >t/sys/bus/pci/devices/0000:81:00.0/numa_node &&
	echo 0x020000 >t/sys/bus/pci/devices/0000:81:00.0/class
}

# advice FILE: rule, vm, vcpu, node, conflict of each advice
advice() {
	python3 - "$1" <<-'PY'
	import json, sys
	j = json.load(open(sys.argv[1]))
	for a in j["diagnosis"]["advice"]:
	    print(a["rule"], a["vm"], a["vcpu"], a.get("to_node"), a["conflict"])
	PY
}

test_expect_success 'list vms shows the passthrough device and its node' '
	tree 1 &&
	vmmprof list vms --root t >l.txt 2>err &&
	grep_q "passthrough 0000:81:00.0 (network controller), node 1" l.txt &&
	vmmprof list vms --root t --json >l.json 2>err &&
	test "$(json_get l.json "[\"%s/%s/%s\" % (d[\"addr\"], d[\"kind\"], d[\"node\"]) for v in j[\"vms\"] if v[\"name\"] == \"web1\" for d in v[\"pci\"]][0]")" = \
		"0000:81:00.0/network controller/1" &&
	test "$(json_get l.json "[len(v[\"pci\"]) for v in j[\"vms\"] if v[\"name\"] == \"db-2\"]")" = "[0]"
'

test_expect_success 'device on node 1, vCPU 0 on node 0: io-locality to node 1, after the pin, in conflict' '
	tree 1 &&
	vmmprof diagnose --root t -d 0.2 --json >d.json 2>err &&
	advice d.json >adv &&
	printf "%s\n" "pin-vcpu-to-memory web1 1 0 False" "io-locality web1 None 1 True" >want &&
	diff -u want adv &&
	json_get d.json "j[\"diagnosis\"][\"advice\"][1][\"command\"]" >cmd &&
	grep_q "^virsh vcpupin web1 0 2-3 " cmd &&
	grep_q "^virsh vcpupin web1 1 2-3 " cmd &&
	grep_q "^migratepages 1000 0 1$" cmd &&
	json_get d.json "j[\"diagnosis\"][\"advice\"][1][\"evidence\"]" >ev &&
	grep_q "1 of its 2 vCPUs ran on other nodes, most on node 0; 75% of its memory is on node 0" ev &&
	json_get d.json "j[\"diagnosis\"][\"advice\"][1][\"gain_pct\"]" >gain &&
	test "$(cat gain)" = None &&
	json_get d.json "j[\"diagnosis\"][\"advice\"][1][\"conflict_note\"]" >cn &&
	grep_q "moves web1 vCPU 1 to node 0; the device is on node 1" cn
'

test_expect_success 'device on node 0: the pin to node 0 covers it, and says so' '
	tree 0 &&
	vmmprof diagnose --root t -d 0.2 --json >d.json 2>err &&
	advice d.json >adv &&
	echo "pin-vcpu-to-memory web1 1 0 False" >want &&
	diff -u want adv &&
	json_get d.json "j[\"diagnosis\"][\"advice\"][0][\"effect\"]" >eff &&
	grep_q "next to its passthrough network controller 0000:81:00.0 (node 0)" eff
'

test_expect_success 'without the device: no io-locality advice (the control)' '
	vmmprof diagnose --root "$R/host-libvirt-v2" -d 0.2 --json >c.json 2>err &&
	advice c.json >adv &&
	echo "pin-vcpu-to-memory web1 1 0 False" >want &&
	diff -u want adv
'

test_done
