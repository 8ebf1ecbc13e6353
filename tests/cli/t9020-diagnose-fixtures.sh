#!/bin/sh
# t9020-diagnose-fixtures.sh - diagnose, record, report and daemon sessions on
# fixture trees (--root): per-thread counters off with the reason (the tree's
# thread ids are not this machine's), the diagnosis and the placement advice
# from what the tree holds.
#
# Hand calculations from tests/data/root/README.md and the trees' files
# (4 CPUs: 0-1 node 0, 2-3 node 1; "processor" is field 39 of a task's stat):
# - host-libvirt-v2: web1 has 768 MiB on node 0 and 256 MiB on node 1, so
#   node 0 holds 768/1024 = 75 % of it.  vCPU 0 (tid 1002) ran on CPU 1
#   (node 0): remote share 25 %; vCPU 1 (tid 1003) on CPU 2 (node 1): remote
#   share 75 %, local access ratio 25 % < 80 % -> pin vCPU 1 to node 0's CPUs
#   0-1.  db-2 has all 400 MiB on node 1, where its vCPU ran: nothing to do.
# - host-qemu: vptest,x has 160 MiB on node 0 and 64 MiB on node 1 (160/224
#   = 71 %); vCPU 0 (tid 4002) ran on CPU 0 (node 0): remote share 64/224 =
#   29 %, vCPU 1 (tid 4003) on CPU 3 (node 1): 71 %.  But the guest has two
#   virtual nodes (-numa node,nodeid=0,cpus=0,memdev=m0 and nodeid=1,cpus=1,
#   memdev=m1), both backends 128M with no policy, and numa_maps has two
#   128 MiB mappings with the default policy (one 128 MiB on node 0, one
#   32 MiB on node 0 and 64 MiB on node 1): which is m0 cannot be told, so
#   no vCPU can be pinned "to its memory" (vCPU 1 to node 0 would be right
#   only if m1 were the first mapping).  The fix that holds either way: each
#   backend bound where its vCPU runs, the vCPU pinned there ->
#   vnuma-fidelity for virtual node 0 (taskset -pc 0-1 4002, m0 to node 0)
#   and virtual node 1 (taskset -pc 2-3 4003, m1 to node 1).
# - host-libvirt-v1: app has 1 GiB on each node: no node holds more of its
#   memory than the one a vCPU runs on, so no pin helps.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

test_cmp_sorted() { sort "$1" >"$1.s" && sort "$2" >"$2.s" && diff -u "$1.s" "$2.s"; }

# advice FILE: rule, vm, vcpu, node and first command line of each advice
advice() {
	python3 - "$1" <<-'PY'
	import json, sys
	j = json.load(open(sys.argv[1]))
	for a in j["diagnosis"]["advice"]:
	    print(a["rule"], a["vm"], a["vcpu"], a.get("to_node"), a["command"].splitlines()[0])
	PY
}

test_expect_success 'host-libvirt-v2: diagnose --root runs with per-thread counters off and says why' '
	vmmprof diagnose --root "$R/host-libvirt-v2" -d 0.2 --json >d.json 2>err &&
	test "$(json_get d.json "j[\"inputs_not_counted\"][\"tclk\"]")" = \
		"not counted: the root directory is a fixture tree, whose threads are not this machine'"'"'s" &&
	json_get d.json "j[\"notes\"]" | grep -q "per-thread counters off: the root directory is a fixture tree" &&
	test "$(json_get d.json "[v[\"vm\"] for v in j[\"diagnosis\"][\"vms\"]]")" = "['"'"'web1'"'"', '"'"'db-2'"'"']"
'

test_expect_success 'host-libvirt-v2: vCPU 1 ran remote from 75% of web1 memory: pin it to node 0' '
	advice d.json >adv &&
	test "$(wc -l <adv)" = 1 &&
	grep_q "^pin-vcpu-to-memory web1 1 0 virsh vcpupin web1 1 0-1 " adv &&
	json_get d.json "j[\"diagnosis\"][\"advice\"][0][\"evidence\"]" >ev &&
	grep_q "remote-access share 75%" ev &&
	grep_q "local access ratio 25% < 80%" ev &&
	grep_q "it ran on node 1" ev
'

test_expect_success 'host-libvirt-v2: the text names the advice and the command' '
	vmmprof diagnose --root "$R/host-libvirt-v2" -d 0.2 >d.txt 2>err &&
	grep_q "pin web1 vCPU 1 to node 0 (CPUs 0-1), where 75% of its memory is" d.txt &&
	grep_q "^       virsh vcpupin web1 1 0-1" d.txt
'

# libvirt's files decide the flags: web1 is persistent (etc/libvirt/qemu/web1.xml),
# so --live --config and the pin survives a restart; without that file (the
# directory still there) it is transient, and --config would be refused.
test_expect_success 'host-libvirt-v2: persistent web1: --live --config, survives a restart' '
	advice d.json >adv &&
	test "$(cat adv)" = "pin-vcpu-to-memory web1 1 0 virsh vcpupin web1 1 0-1 --live --config" &&
	test "$(json_get d.json "j[\"diagnosis\"][\"advice\"][0][\"survives_restart\"]")" = \
		"yes: written to web1'"'"'s configuration (--config)"
'

test_expect_success 'host-libvirt-v2 with web1 transient: --live only, lost at a restart' '
	cp -R "$R/host-libvirt-v2" t && rm t/etc/libvirt/qemu/web1.xml &&
	vmmprof diagnose --root t -d 0.2 --json >t.json 2>err &&
	advice t.json >adv &&
	test "$(cat adv)" = "pin-vcpu-to-memory web1 1 0 virsh vcpupin web1 1 0-1 --live" &&
	json_get t.json "j[\"diagnosis\"][\"advice\"][0][\"survives_restart\"]" | grep -q "^no: web1 is transient"
'

test_expect_success 'host-qemu: two virtual nodes, memory not placeable: each bound where its vCPU runs, taskset' '
	vmmprof diagnose --root "$R/host-qemu" -d 0.2 --json >q.json 2>err &&
	advice q.json >adv &&
	printf "%s\n" "vnuma-fidelity vptest,x None 0 taskset -pc 0-1 4002" \
		"vnuma-fidelity vptest,x None 1 taskset -pc 2-3 4003" >want &&
	diff -u want adv &&
	json_get q.json "j[\"diagnosis\"][\"advice\"][1][\"command\"]" >c1 &&
	grep_q "^# at its next start, on -object memory-backend-\*,id=m1: host-nodes=1,policy=bind" c1 &&
	json_get q.json "j[\"diagnosis\"][\"advice\"][1][\"evidence\"]" >ev &&
	grep_q "vCPU 1 has a locality finding (remote-access share 71% of the VM.s memory, proxy)" ev &&
	test "$(json_get q.json "j[\"diagnosis\"][\"advice\"][0][\"needs\"]")" = "taskset (Debian package util-linux)" &&
	json_get q.json "j[\"diagnosis\"][\"advice\"][0][\"survives_restart\"]" | grep -q "^no: taskset"
'

# skx-2s (make-platform-fixtures.py): vm1, plain QEMU, 6 of its 8 GiB on node
# 0 (CPUs 0-3,8-11); vCPUs 2 and 3 (tids 4246, 4247) ran on CPUs 5 and 6 of
# node 1: remote share 6/8 = 75 %, local access ratio 25 % -> both pinned to
# node 0, where 4 vCPUs fit on 8 CPUs (no conflict).  The skx model sees no
# locality without a core PMU table here; the software model's placement
# estimate does.
test_expect_success 'skx-2s: vm1 vCPUs on node 1 pinned to node 0 (-m software)' '
	vmmprof diagnose --root "$R/skx-2s" -m software -d 0.2 --json >s.json 2>err &&
	advice s.json >adv &&
	printf "%s\n" "pin-vcpu-to-memory vm1 2 0 taskset -pc 0-3,8-11 4246" \
		"pin-vcpu-to-memory vm1 3 0 taskset -pc 0-3,8-11 4247" >want &&
	test_cmp_sorted want adv &&
	test "$(json_get s.json "[a[\"conflict\"] for a in j[\"diagnosis\"][\"advice\"]]")" = "[False, False]"
'

test_expect_success 'host-libvirt-v1: memory evenly split: no pin is advised' '
	vmmprof diagnose --root "$R/host-libvirt-v1" -d 0.2 --json >v1.json 2>err &&
	test "$(json_get v1.json "len(j[\"diagnosis\"][\"advice\"])")" = 0 &&
	test "$(json_get v1.json "len(j[\"diagnosis\"][\"bottlenecks\"])")" = 2
'

if vmmprof record -o "$TRASH/probe.vmmdb" -d 0.1 --root "$R/host-libvirt-v2" 2>&1 |
	grep -q "built without SQLite"; then
	test_skip 'record and report on a fixture tree' 'built without SQLite'
else
test_expect_success 'record --root, then diagnose FILE: the same advice' '
	vmmprof record --root "$R/host-libvirt-v2" -d 0.6 -I 300 -o r.vmmdb -q 2>err &&
	vmmprof diagnose --json r.vmmdb >rd.json 2>err &&
	advice rd.json >adv &&
	grep_q "^pin-vcpu-to-memory web1 1 0 virsh vcpupin web1 1 0-1 " adv &&
	vmmprof report r.vmmdb >rep.txt 2>err &&
	grep_q "web1/vCPU 1  *1 " rep.txt &&
	grep_q "pin web1 vCPU 1 to node 0" rep.txt
'
fi

. "$(dirname "$0")/daemon-lib.sh"
if "$VMMPROF" serve --users /nonexistent 2>&1 | grep -q "built without libmicrohttpd" ||
	! command -v curl >/dev/null 2>&1; then
	test_skip 'a daemon session on a fixture tree' 'no daemon in this build, or no curl'
else
test_expect_success 'daemon --root: a session counts nothing per thread, diagnoses, advises' '
	add_users users adm:admin &&
	start_daemon d --users users --root "$R/host-libvirt-v2" &&
	expect_status 201 d adm.token POST /api/v1/sessions -d "{\"model\":\"software\",\"interval_ms\":200}" &&
	sid=$(json_get body "j[\"id\"]") &&
	sleep 0.5 &&
	expect_status 200 d adm.token GET /api/v1/sessions/$sid/diagnosis &&
	advice body >adv &&
	grep_q "^pin-vcpu-to-memory web1 1 0 virsh vcpupin web1 1 0-1 " adv &&
	json_get body "j[\"inputs_not_counted\"][\"tclk\"]" | grep -q "fixture tree" &&
	stop_daemon d
'
fi

stop_all_daemons
test_done
