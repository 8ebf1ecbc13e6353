#!/bin/sh
# t5010-list-vms.sh - `vmmprof list vms` on fixture trees: libvirt (cgroup v1, v2), plain QEMU, Xen dom0
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root

test_expect_success 'libvirt v2: both VMs, vCPU threads, placement, cgroups, memory per node' '
	vmmprof list vms --json --root "$R/host-libvirt-v2" >out &&
	test "$(json_get out "\",\".join(v[\"name\"] for v in j[\"vms\"])")" = "web1,db-2" &&
	test "$(json_get out "j[\"vms\"][0][\"pid\"]")" = 1000 &&
	test "$(json_get out "\" \".join(\"%s/%s/%s/%s\" % (c[\"tid\"], c[\"cpu\"], c[\"node\"], c[\"affinity\"]) for c in j[\"vms\"][0][\"vcpus\"])")" = \
		"1002/1/0/0-1 1003/2/1/2-3" &&
	test "$(json_get out "j[\"vms\"][0][\"vcpus\"][1][\"cgroup\"]")" = "/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope/libvirt/vcpu1" &&
	# 196608 and 65536 pages of 4 KiB
	test "$(json_get out "j[\"vms\"][0][\"mem_node_bytes\"][\"0\"]")" = 805306368 &&
	test "$(json_get out "j[\"vms\"][0][\"mem_node_bytes\"][\"1\"]")" = 268435456 &&
	# 200 huge pages of 2 MiB on node 1
	test "$(json_get out "j[\"vms\"][1][\"mem_node_bytes\"][\"1\"]")" = 419430400 &&
	test "$(json_get out "j[\"vms\"][0][\"uuid\"]")" = 6c3f1f5e-1111-4c1b-9a55-0123456789ab
'

test_expect_success 'libvirt v1 without debug-threads: name from the cgroup, vCPUs from KVM debugfs' '
	vmmprof list vms --json --root "$R/host-libvirt-v1" >out &&
	test "$(json_get out "j[\"vms\"][0][\"name\"]")" = app &&
	test "$(json_get out "j[\"vms\"][0][\"name_source\"]")" = "libvirt cgroup" &&
	test "$(json_get out "j[\"vms\"][0][\"cgroup_version\"]")" = 1 &&
	test "$(json_get out "[c[\"tid\"] for c in j[\"vms\"][0][\"vcpus\"]]")" = "[3003, 3004]" &&
	test "$(json_get out "j[\"vms\"][0][\"other_tids\"]")" = "[3000, 3001]"
'

test_expect_success 'plain QEMU under TCG: text output names the VM, its vCPUs and the estimate' '
	vmmprof list vms --root "$R/host-qemu" >out &&
	grep_q "^vptest,x$" out &&
	grep_q "hypervisor  kvm, type tcg, pid 4000" out &&
	grep_q "node 0 160.0 MiB, node 1 64.0 MiB" out &&
	grep_q "^ *0  *4002  *0  *0  *0-3 .* 28.6% " out &&
	grep_q "^ *1  *4003  *3  *1  *0-3 .* 71.4% " out &&
	grep_q "an estimate, not a count" out
'

test_expect_success 'pattern selects VMs; no match says so' '
	vmmprof list vms "db*" --root "$R/host-libvirt-v2" >out &&
	grep_q "^db-2$" out && ! grep -q "^web1$" out &&
	vmmprof list vms nosuch --root "$R/host-libvirt-v2" >out &&
	grep_q "no VMs found matching .nosuch." out
'

test_expect_success 'Xen dom0: domains and vCPUs as xl reports them' '
	vmmprof list vms --json --root "$R/xen-dom0" >out &&
	test "$(json_get out "\",\".join(\"%s/%s\" % (v[\"name\"], v[\"domid\"]) for v in j[\"vms\"])")" = \
		"Domain-0/0,guest1/1,numa vm/3" &&
	test "$(json_get out "\" \".join(\"%s|%s|%s|%s\" % (c[\"cpu\"], c[\"state\"], c[\"affinity\"], c[\"soft_affinity\"]) for c in j[\"vms\"][1][\"vcpus\"])")" = \
		"1|-b-|all|0-1 0|r--|0|all" &&
	test "$(json_get out "j[\"vms\"][1][\"mem_size_bytes\"]")" = 134217728 &&
	test "$(json_get out "j[\"vms\"][1][\"node_affinity\"]")" = 0 &&
	test "$(json_get out "j[\"vms\"][1][\"mem_node_bytes\"]")" = None &&
	test "$(json_get out "j[\"vms\"][2][\"vcpus\"][2][\"cpu\"]")" = None
'

test_expect_success 'a tree without /proc is an error, exit 1' '
	mkdir empty &&
	expect_exit 1 vmmprof list vms --root empty 2>err && grep_q "proc" err
'

test_done
