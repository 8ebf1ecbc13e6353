#!/bin/sh
# t9047-diagnose-recording-io-vnuma.sh - a recording keeps each KVM VM's I/O
# threads and virtual NUMA nodes (rows.vm_topo, docs/record-format.md), so
# diagnose of the recording gives the pin-io-threads and vnuma-fidelity
# advice the live diagnosis gives; a file from before the column (dropped
# here) reads as not known: no advice of those two, the whole-VM locality
# rule as before virtual nodes were known, no error.
#
# The trees are t9046's, worked by hand there (4 CPUs: 0-1 node 0, 2-3
# node 1):
# - host-libvirt-v2 with db-2's IOThread 1 (tid 2003, CPU 0) and vhost
#   worker (pid 2500, CPU 1) on node 0 while its one vCPU ran on node 1:
#   pin-io-threads to node 1: virsh iothreadpin db-2 1 2-3 --live (the
#   IOThread), virsh emulatorpin db-2 2-3 --live and taskset -pc 2-3 2500
#   (the vhost worker); db-2 is transient (rows.persist): --live only.
# - host-qemu with m0 bound to node 0 (vCPU 0 on node 1) and m1 interleaved
#   (33 % node 0, 67 % node 1; vCPU 1 on node 1): pin-vcpu-to-memory vCPU 0
#   to node 0 (taskset -pc 0-1 4002) and vnuma-fidelity for virtual node 1
#   (taskset -pc 2-3 4003, bind m1 to node 1).  The proxy locality gives no
#   cost either way, so these are the same live and recorded.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

if vmmprof record -o "$TRASH/probe.vmmdb" -d 0.1 --root "$R/host-qemu" 2>&1 |
	grep -q "built without SQLite"; then
	test_skip 'recordings keep I/O threads and virtual nodes' 'built without SQLite'
	test_done
	exit 0
fi

. "$(dirname "$0")/vnuma-lib.sh"

# rules FILE [RULE...]: "rule vm vcpu to_node conflict" of each advice (of those rules), then
# its commands
rules() {
	python3 - "$@" <<-'PY'
	import json, sys
	j = json.load(open(sys.argv[1]))
	for a in j["diagnosis"]["advice"]:
	    if sys.argv[2:] and a["rule"] not in sys.argv[2:]:
	        continue
	    print(a["rule"], a["vm"], a["vcpu"], a.get("to_node"), a["conflict"])
	    sys.stdout.write(a["command"])
	PY
}

test_expect_success 'libvirt: the recording keeps db-2 s I/O threads; diagnose of it pins them' '
	libvirt_tree &&
	vmmprof record --root t -d 0.3 -o t.vmmdb >out 2>err &&
	vmmprof diagnose t.vmmdb --json >d.json 2>err &&
	rules d.json pin-io-threads >adv &&
	printf "%s\n" "pin-io-threads db-2 None 1 False" "virsh iothreadpin db-2 1 2-3 --live" \
		"virsh emulatorpin db-2 2-3 --live" "taskset -pc 2-3 2500" >want &&
	diff -u want adv
'

test_expect_success 'qemu: the recording keeps the virtual nodes; the same per-node plan as live' '
	qemu_tree &&
	vmmprof record --root q -d 0.3 -o q.vmmdb >out 2>err &&
	vmmprof diagnose q.vmmdb --json >d.json 2>err &&
	rules d.json >adv &&
	printf "%s\n" "pin-vcpu-to-memory vptest,x 0 0 False" "taskset -pc 0-1 4002" \
		"pin-io-threads vptest,x None 1 False" "taskset -pc 2-3 4000" \
		"vnuma-fidelity vptest,x None 1 False" "taskset -pc 2-3 4003" \
		"# at its next start, on -object memory-backend-*,id=m1: host-nodes=1,policy=bind" >want &&
	diff -u want adv &&
	vmmprof diagnose --root q -d 0.2 --json >live.json 2>err &&
	rules live.json >live &&
	diff -u want live
'

test_expect_success 'a file from before rows.vm_topo: not known, so no vNUMA or I/O-thread advice, no error' '
	cp q.vmmdb old.vmmdb &&
	python3 -c "import sqlite3; c = sqlite3.connect(\"old.vmmdb\"); c.execute(\"ALTER TABLE rows DROP COLUMN vm_topo\"); c.commit()" &&
	vmmprof diagnose old.vmmdb --json >o.json 2>err &&
	rules o.json >adv &&
	! grep -q "^vnuma-fidelity\|^pin-io-threads" adv &&
	grep_q "^migrate-memory vptest,x None 1 False" adv
'

test_done
