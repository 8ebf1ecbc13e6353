#!/bin/sh
# t5300-list-vms-faults.sh - `vmmprof list vms`: each vCPU's NUMA hinting faults per node
# (the kernel's sched file) and their share off the vCPU's node, or why there are none
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
# near FILE EXPR WANT: the JSON value EXPR is WANT within 1e-9 (and not null)
near() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); v=eval(sys.argv[2])
sys.exit(0 if v is not None and abs(v - float(sys.argv[3])) < 1e-9 else print(sys.argv[2], "=", v, "want", sys.argv[3]) or 1)' "$1" "$2" "$3"
}
V='j["vms"]'

# host-libvirt-v2 (make-fixtures.py), kernel.numa_balancing = 1:
#   web1 vCPU 0 (CPU 1, node 0): task_private+task_shared 12+3 = 15 on node 0, 80+0 = 80 on node 1
#   web1 vCPU 1 (CPU 2, node 1): 30+10 = 40 on node 0, 150+10 = 160 on node 1
#   db-2 vCPU 0: zeros (not scanned yet)
# the group_* columns never count
test_expect_success 'libvirt v2: shares per node and off the vCPU node, by hand from the fixture' '
	vmmprof list vms --json --root "$R/host-libvirt-v2" >out &&
	near out "$V[0][\"vcpus\"][0][\"fault_node_share\"][\"0\"]" "$(python3 -c "print(15/95)")" &&
	near out "$V[0][\"vcpus\"][0][\"fault_node_share\"][\"1\"]" "$(python3 -c "print(80/95)")" &&
	near out "$V[0][\"vcpus\"][0][\"fault_remote_share\"]" "$(python3 -c "print(80/95)")" &&
	near out "$V[0][\"vcpus\"][1][\"fault_node_share\"][\"0\"]" 0.2 &&
	near out "$V[0][\"vcpus\"][1][\"fault_node_share\"][\"1\"]" 0.8 &&
	near out "$V[0][\"vcpus\"][1][\"fault_remote_share\"]" 0.2 &&
	test "$(json_get out "$V[0][\"vcpus\"][0][\"fault_preferred_node\"]")" = 1 &&
	test "$(json_get out "$V[0][\"vcpus\"][0][\"fault_why\"]")" = None &&
	test "$(json_get out "$V[1][\"vcpus\"][0][\"fault_node_share\"]")" = None &&
	test "$(json_get out "$V[1][\"vcpus\"][0][\"fault_remote_share\"]")" = None &&
	test "$(json_get out "$V[1][\"vcpus\"][0][\"fault_why\"]")" = \
		"not scanned by NUMA balancing yet (no hinting faults)"
'

test_expect_success 'libvirt v2 text: remote(faults) and faults per node columns, the reason under the table' '
	vmmprof list vms --root "$R/host-libvirt-v2" >out &&
	grep_q "^ *0  *1002  *1  *0 .* 25\.0%  *84\.2%  *0:15\.8% 1:84\.2% " out &&
	grep_q "^ *1  *1003  *2  *1 .* 75\.0%  *20\.0%  *0:20\.0% 1:80\.0% " out &&
	grep_q "^ *0  *2002  *3  *1 .* 0\.0%  *n/a  *n/a " out &&
	grep_q "^  faults n/a vcpu 0: not scanned by NUMA balancing yet (no hinting faults)$" out &&
	test "$(grep -c "faults n/a" out)" = 1 &&
	grep_q "^remote(faults): .*hinting faults" out
'

# host-libvirt-v1, kernel.numa_balancing = 0: vCPU 0 zeros; vCPU 1 (node 1) keeps
# decayed faults 1+2 = 3 on node 0 and 6+0 = 6 on node 1
test_expect_success 'balancing off: zeros say so, decayed faults from before still show' '
	vmmprof list vms --json --root "$R/host-libvirt-v1" >out &&
	test "$(json_get out "$V[0][\"vcpus\"][0][\"fault_why\"]")" = \
		"NUMA balancing is off (kernel.numa_balancing = 0)" &&
	test "$(json_get out "$V[0][\"vcpus\"][0][\"fault_remote_share\"]")" = None &&
	near out "$V[0][\"vcpus\"][1][\"fault_node_share\"][\"0\"]" "$(python3 -c "print(3/9)")" &&
	near out "$V[0][\"vcpus\"][1][\"fault_remote_share\"]" "$(python3 -c "print(3/9)")" &&
	vmmprof list vms --root "$R/host-libvirt-v1" >txt &&
	grep_q "^ *1  *3004 .* 33\.3%  *0:33\.3% 1:66\.7% " txt &&
	grep_q "faults n/a vcpu 0: NUMA balancing is off (kernel.numa_balancing = 0)" txt
'

test_expect_success 'no sysctl, no sched file, Xen: each says why, never a 0' '
	vmmprof list vms --json --root "$R/host-qemu" >out &&
	test "$(json_get out "$V[0][\"vcpus\"][0][\"fault_why\"]")" = \
		"the kernel has no NUMA balancing (no /proc/sys/kernel/numa_balancing)" &&
	json_get out "$V[0][\"vcpus\"][1][\"fault_why\"]" >why &&
	grep_q "^no ./proc/4000/task/4003/sched. (the thread is gone" why &&
	! grep -q "$R" why &&
	vmmprof list vms --root "$R/host-qemu" >txt &&
	grep_q "^  faults n/a vcpu 0: the kernel has no NUMA balancing" txt &&
	grep_q "^  faults n/a vcpu 1: no ./proc/4000/task/4003/sched." txt &&
	vmmprof list vms --json --root "$R/xen-dom0" >xen &&
	test "$(json_get xen "\";\".join(sorted(set(str(c[\"fault_remote_share\"]) + \"|\" + c[\"fault_why\"] for v in $V for c in v[\"vcpus\"])))")" = \
		"None|a Xen vCPU has no host thread with NUMA balancing stats"
'

test_expect_success 'a malformed numa_faults line is that vCPU'"'"'s reason; the rest is listed' '
	cp -R "$R/host-libvirt-v2" bad &&
	printf "numa_faults node=0 task_private=12 task_shared=3\nnuma_faults node=1 task_private=x\n" \
		>bad/proc/1000/task/1003/sched &&
	vmmprof list vms --json --root bad >out &&
	json_get out "$V[0][\"vcpus\"][1][\"fault_why\"]" >why &&
	grep_q "sched line 2: cannot parse .numa_faults node=1 task_private=x." why &&
	test "$(json_get out "$V[0][\"vcpus\"][1][\"fault_remote_share\"]")" = None &&
	near out "$V[0][\"vcpus\"][0][\"fault_remote_share\"]" "$(python3 -c "print(80/95)")"
'

test_done
