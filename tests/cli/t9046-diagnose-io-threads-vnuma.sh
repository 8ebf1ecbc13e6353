#!/bin/sh
# t9046-diagnose-io-threads-vnuma.sh - a VM's I/O threads (QEMU's main loop,
# IOThreads "IO iothreadN", vhost workers "vhost-PID") and its virtual NUMA
# nodes: list vms shows them, diagnose advises pin-io-threads when they ran on
# another node than the vCPUs, and vnuma-fidelity when a virtual node is not
# one host node.  Every expected value is worked from the fixture below.
#
# Trees (4 CPUs: 0-1 node 0, 2-3 node 1; tests/data/root/README.md):
# - host-libvirt-v2 (libvirt) with two threads added to db-2 (pid 2000, its
#   one vCPU ran on CPU 3, node 1; 400 MiB of its memory on node 1; transient:
#   --live only): IOThread 1 (tid 2003, "IO iothread1") last on CPU 0 and a
#   vhost kernel thread (pid 2500, "vhost-2000", parent kthreadd) last on
#   CPU 1, both allowed 0-3.  Its main loop (2000) ran on CPU 3, allowed 2-3.
#   -> both ran on node 0, the vCPU on node 1: pin them to node 1 (CPUs 2-3):
#      virsh iothreadpin db-2 1 2-3 --live; virsh emulatorpin db-2 2-3 --live
#      (the vhost worker is in the emulator cgroup); taskset -pc 2-3 2500.
#   web1's main loop ran on CPU 0 (node 0), its vCPUs on nodes 0 and 1 and
#   75 % of its memory on node 0: the main loop is where its memory is, no
#   advice for it.
# - host-qemu (plain QEMU, pid 4000, two virtual nodes: m0 for vCPU 0, m1
#   for vCPU 1, both 128 MiB) with m0 bound (host-nodes=0,policy=bind) and m1
#   interleaved over 0-1; numa_maps shows the two 128 MiB mappings with those
#   policies (bind:0: 32768 pages on node 0; interleave:0-1: 8192 pages on
#   node 0, 16384 on node 1, 4 KiB each), and both vCPUs last ran on node 1
#   (CPUs 2 and 3).
#   The whole-VM estimate (memory 160 MiB on node 0, 64 MiB on node 1: 71 %
#   remote for a vCPU on node 1) flags both vCPUs; a guest with virtual nodes
#   is placed per virtual node instead:
#   -> virtual node 0: memory 100 % on host node 0 (bound there already), its
#      vCPU 0 on node 1: pin-vcpu-to-memory pins vCPU 0 (tid 4002) to node 0,
#      taskset -pc 0-1 4002; nothing left for vnuma-fidelity (no second pin,
#      no binding: host-nodes=0,policy=bind is there).
#   -> virtual node 1: memory on nodes 0 (8192/24576 = 33 %) and 1 (67 %):
#      not one node; most of it and its vCPU on node 1: vnuma-fidelity,
#      taskset -pc 2-3 4003, bind m1 to 1 at the next start.
#   -> no migrate-memory although both vCPUs ran on node 1: migratepages would
#      move m0's pages too, against its binding.
#   -> the main loop (tid 4000, last on CPU 1, node 0, allowed 0-3) away from
#      the vCPUs (both ran on node 1): taskset -pc 2-3 4000; vCPU 1 stays on
#      node 1 in the plan, so no conflict.  One plan: no advice in conflict.
# - the same with both virtual nodes local (m1 bound to node 1, all 24576
#   pages there; vCPU 0 ran on CPU 0, node 0; vCPU 1 on CPU 3, node 1): the
#   whole-VM estimate still says 128/224 = 57 % remote for vCPU 1, but per
#   virtual node everything is local: no advice at all (the main loop on
#   node 0 is where most of the memory is).
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

. "$(dirname "$0")/vnuma-lib.sh"

# rules FILE RULE...: "rule vm to_node conflict" of each advice of those rules
rules() {
	python3 - "$@" <<-'PY'
	import json, sys
	j = json.load(open(sys.argv[1]))
	for a in j["diagnosis"]["advice"]:
	    if a["rule"] in sys.argv[2:]:
	        print(a["rule"], a["vm"], a.get("to_node"), a["conflict"])
	PY
}

# cmd FILE RULE N: the commands of the Nth advice of RULE
cmd() {
	python3 - "$@" <<-'PY'
	import json, sys
	j = json.load(open(sys.argv[1]))
	a = [a for a in j["diagnosis"]["advice"] if a["rule"] == sys.argv[2]][int(sys.argv[3])]
	sys.stdout.write(a["command"])
	PY
}

test_expect_success 'list vms: the IOThread and the vhost kernel thread with CPU, node and affinity' '
	libvirt_tree &&
	vmmprof list vms --root t db-2 >l.txt 2>err &&
	grep_q "I/O thread  main loop, tid 2000 (qemu-system-x86): CPU 3, node 1, affinity 2-3" l.txt &&
	grep_q "I/O thread  IOThread 1, tid 2003 (IO iothread1): CPU 0, node 0, affinity 0-3" l.txt &&
	grep_q "I/O thread  vhost, tid 2500 (vhost-2000): CPU 1, node 0, affinity 0-3" l.txt &&
	vmmprof list vms --root t --json >l.json 2>err &&
	test "$(json_get l.json "\" \".join(\"%s/%s/%s/%s/%s/%s\" % (t[\"kind\"], t[\"tid\"], t[\"iothread_id\"], t[\"cpu\"], t[\"node\"], t[\"affinity\"]) for v in j[\"vms\"] if v[\"name\"] == \"db-2\" for t in v[\"io_threads\"])")" = \
		"main loop/2000/None/3/1/2-3 IOThread/2003/1/0/0/0-3 vhost/2500/None/1/0/0-3"
'

test_expect_success 'a vhost kernel thread of another pid is not this VM s' '
	libvirt_tree &&
	stat t/proc/2500/stat 2500 vhost-2001 2 1 &&
	vmmprof list vms --root t --json >l.json 2>err &&
	test "$(json_get l.json "[len(v[\"io_threads\"]) for v in j[\"vms\"] if v[\"name\"] == \"db-2\"]")" = "[2]"
'

test_expect_success 'diagnose: pin-io-threads moves db-2 s IOThread and vhost worker to node 1' '
	libvirt_tree &&
	vmmprof diagnose --root t -d 0.2 --json >d.json 2>err &&
	rules d.json pin-io-threads >adv &&
	echo "pin-io-threads db-2 1 False" >want &&
	diff -u want adv &&
	cmd d.json pin-io-threads 0 >c &&
	printf "%s\n" "virsh emulatorpin db-2 2-3 --live" "virsh iothreadpin db-2 1 2-3 --live" \
		"taskset -pc 2-3 2500" >want &&
	sort c >cs && sort want >ws && diff -u ws cs &&
	json_get d.json "[a[\"evidence\"] for a in j[\"diagnosis\"][\"advice\"] if a[\"rule\"] == \"pin-io-threads\"][0]" >ev &&
	grep_q "IOThread 1 (tid 2003) ran on CPU 0 (node 0), vhost (tid 2500) ran on CPU 1 (node 0); every vCPU ran on node 1" ev
'

test_expect_success 'the control: without the two threads no pin-io-threads advice' '
	vmmprof diagnose --root "$R/host-libvirt-v2" -d 0.2 --json >c.json 2>err &&
	rules c.json pin-io-threads >adv &&
	test ! -s adv
'

test_expect_success 'list vms: the virtual nodes, their backends and what numa_maps says' '
	qemu_tree &&
	vmmprof list vms --root q --json >l.json 2>err &&
	test "$(json_get l.json "\" \".join(\"%s/%s/%s/%s/%s/%s\" % (n[\"id\"], n[\"vcpus\"], n[\"memdev\"], n[\"size_bytes\"], n[\"policy\"], n[\"host_nodes\"]) for n in j[\"vms\"][0][\"vnuma\"])")" = \
		"0/0/m0/134217728/bind/0 1/1/m1/134217728/interleave/0-1" &&
	test "$(json_get l.json "\"%d %d\" % (j[\"vms\"][0][\"vnuma\"][1][\"mem_node_bytes\"][\"0\"], j[\"vms\"][0][\"vnuma\"][1][\"mem_node_bytes\"][\"1\"])")" = "33554432 67108864" &&
	test "$(json_get l.json "\"%d %d\" % (j[\"vms\"][0][\"vnuma\"][0][\"mem_node_bytes\"][\"0\"], j[\"vms\"][0][\"vnuma\"][0][\"mem_node_bytes\"][\"1\"])")" = "134217728 0" &&
	vmmprof list vms --root q >l.txt 2>err &&
	grep_q "vNUMA node 1  vCPUs 1; memdev m1 128.0 MiB, policy interleave, host nodes 0-1; resident node 0 32.0 MiB, node 1 64.0 MiB" l.txt
'

test_expect_success 'two backends of one size and no policy: numa_maps cannot tell them apart' '
	vmmprof list vms --root "$R/host-qemu" --json >l.json 2>err &&
	test "$(json_get l.json "[n[\"mem_node_bytes\"] for n in j[\"vms\"][0][\"vnuma\"]]")" = "[None, None]" &&
	json_get l.json "j[\"vms\"][0][\"vnuma\"][0][\"mem_why\"]" >why &&
	grep_q "2 guest RAM mappings of its size in numa_maps" why
'

test_expect_success 'diagnose: per virtual node, one plan: vCPU 0 pinned to its memory, node 1 bound, no migratepages' '
	qemu_tree &&
	vmmprof diagnose --root q -d 0.2 --json >d.json 2>err &&
	rules d.json pin-vcpu-to-memory migrate-memory vnuma-fidelity >adv &&
	printf "%s\n" "pin-vcpu-to-memory vptest,x 0 False" "vnuma-fidelity vptest,x 1 False" >want &&
	diff -u want adv &&
	cmd d.json pin-vcpu-to-memory 0 >c0 &&
	echo "taskset -pc 0-1 4002" >want &&
	diff -u want c0 &&
	json_get d.json "[a[\"evidence\"] for a in j[\"diagnosis\"][\"advice\"] if a[\"rule\"] == \"pin-vcpu-to-memory\"][0]" >ev0 &&
	grep_q "vCPU 0 is in node 0, whose memory (m0) is 100% on node 0 (numa_maps)" ev0 &&
	json_get d.json "[a[\"effect\"] for a in j[\"diagnosis\"][\"advice\"] if a[\"rule\"] == \"pin-vcpu-to-memory\"][0]" >ef0 &&
	grep_q "not migratepages: it moves every backend.s pages of the process (all 2 virtual nodes.), not node 0.s alone" ef0 &&
	cmd d.json vnuma-fidelity 0 >c1 &&
	printf "%s\n" "taskset -pc 2-3 4003" \
		"# at its next start, on -object memory-backend-*,id=m1: host-nodes=1,policy=bind" >want &&
	diff -u want c1 &&
	json_get d.json "[a[\"evidence\"] for a in j[\"diagnosis\"][\"advice\"] if a[\"rule\"] == \"vnuma-fidelity\"][0]" >ev &&
	grep_q "virtual node 1.s memory (m1) is on host node 0 (33%), 1 (67%); its vCPU 1 ran on host node 1 (1 of 1)" ev &&
	test "$(json_get d.json "[a[\"conflict\"] for a in j[\"diagnosis\"][\"advice\"]]")" = "[False, False, False]"
'

test_expect_success 'diagnose: the plain QEMU main loop away from its vCPUs: taskset' '
	rules d.json pin-io-threads >adv &&
	echo "pin-io-threads vptest,x 1 False" >want &&
	diff -u want adv &&
	cmd d.json pin-io-threads 0 >c &&
	echo "taskset -pc 2-3 4000" >want &&
	diff -u want c
'

test_expect_success 'the control: each virtual node local to its vCPU: no advice, though the whole-VM estimate is remote' '
	qemu_tree &&
	printf "%s\0" qemu-system-x86_64 -accel tcg -name "vptest,,x,debug-threads=on" -smp 2 \
		-m 256 -object memory-backend-ram,id=m0,size=128M,host-nodes=0,policy=bind \
		-object memory-backend-ram,id=m1,size=128M,host-nodes=1,policy=bind \
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
		-display none -nodefaults >q/proc/4000/cmdline &&
	sed -e "s/^7f4000000000 default/7f4000000000 bind:0/" \
		-e "s/^7f4008000000 default anon=24576 dirty=24576 N0=8192 N1=16384/7f4008000000 bind:1 anon=24576 dirty=24576 N1=24576/" \
		"$R/host-qemu/proc/4000/numa_maps" >q/proc/4000/numa_maps &&
	grep -q "^7f4008000000 bind:1 .* N1=24576 " q/proc/4000/numa_maps &&
	cp "$R/host-qemu/proc/4000/task/4002/stat" q/proc/4000/task/4002/stat &&
	cp "$R/host-qemu/proc/4000/task/4003/stat" q/proc/4000/task/4003/stat &&
	vmmprof diagnose --root q -d 0.2 --json >c.json 2>err &&
	json_get c.json "[b[\"factor\"] for b in j[\"diagnosis\"][\"bottlenecks\"]]" | grep -q locality &&
	test "$(json_get c.json "len(j[\"diagnosis\"][\"advice\"])")" = 0
'

test_done
