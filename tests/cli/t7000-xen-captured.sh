#!/bin/sh
# t7000-xen-captured.sh - `vmmprof info` over tests/data/xen-captured, the
# files of a live Xen 4.17 PV dom0 from the Xen testbed (tests/vm/xen/):
# the expectations are what that dom0 was (its README), not vmmprof's output.
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured

test_expect_success 'xen dom0: hypervisor Xen although CPUID shows the TCG layer beneath' '
	vmmprof info --root "$X" --json >j &&
	test "$(json_get j "j[\"virtualization\"][\"hypervisor\"]")" = Xen &&
	test "$(json_get j "j[\"virtualization\"][\"signature\"]")" = TCGTCGTCGTCG &&
	test "$(json_get j "j[\"virtualization\"][\"role\"]")" = host &&
	test "$(json_get j "j[\"virtualization\"][\"xen_dom0\"]")" = True &&
	test "$(json_get j "j[\"virtualization\"][\"xen_capabilities\"]")" = control_d
'

test_expect_success 'xen dom0: no PMU mode without the file, and the reason says which' '
	vmmprof info --root "$X" --json >j &&
	test "$(json_get j "j[\"virtualization\"][\"xen_pmu_mode\"]")" = None &&
	json_get j "j[\"virtualization\"][\"xen_pmu_reason\"]" >r &&
	grep_q "pmu/pmu_mode" r
'

test_expect_success 'xen dom0: text says Xen, host, dom0, why no domain is counted, no core PMU' '
	vmmprof info --root "$X" >out &&
	grep_q "^  hypervisor *Xen " out &&
	grep_q "^  role *host: Xen dom0" out &&
	grep_q "^  Xen *dom0" out &&
	! grep_q "counts for every domain" out &&
	grep_q "^  per-domain PMU *n/a: Xen has no vPMU .*add vpmu=1 to Xen.s command line" out &&
	grep_q "^  per-domain PSR *n/a: needs psr=cmt on Xen.s command line" out &&
	grep_q "^  core PMU *none" out
'


# The testbed's Xen (README.md): pCPU 0 on node 0, pCPU 1 on node 1, 1536 and
# 1535 MiB, distances 10/20; its command line as `xl info` printed it.
test_expect_success 'xen dom0: the machine is Xen'"'"'s: two nodes from xl info -n, dom0'"'"'s view as dom0'"'"'s' '
	vmmprof info --root "$X" >out &&
	grep_q "^  host (Xen dom0); .*2 CPUs, 2 NUMA nodes" out &&
	grep_q "^  NUMA nodes *2, from Xen (xl info -n)" out &&
	grep_q "^ *0  0 *1.5 GiB *729 MiB$" out &&
	grep_q "^ *1  1 *1.5 GiB *132 MiB$" out &&
	grep_q "^ *0  10  20$" out &&
	grep_q "^  dom0.s own view *2 vCPUs (0-1), 1 node" out &&
	grep_q "^  Xen version *4.17.5, scheduler credit2" out &&
	grep_q "^  Xen options *dom0_mem=2048M,max:2048M console=com1" out &&
	vmmprof info --root "$X" --json >j &&
	test "$(json_get j "len(j[\"topology\"][\"nodes\"])")" = 2 &&
	test "$(json_get j "j[\"topology\"][\"source\"]")" = xen &&
	test "$(json_get j "j[\"topology\"][\"nodes\"][1][\"mem_total_bytes\"]")" = $((1535 * 1048576)) &&
	test "$(json_get j "j[\"topology\"][\"distance\"]")" = "[[10, 20], [20, 10]]" &&
	test "$(json_get j "j[\"dom0_topology\"][\"n_cpus\"]")" = 2 &&
	test "$(json_get j "len(j[\"dom0_topology\"][\"nodes\"])")" = 1 &&
	test "$(json_get j "j[\"virtualization\"][\"xen_psr\"]")" = False
'

# tests/data/root/xen-dom0 (make-fixtures.py): 4 pCPUs, nodes 0 (0-1) and 1 (2-3) of 2048 MiB
test_expect_success 'xen dom0 fixture: info shows the two nodes of its xl info -n' '
	vmmprof info --root "$VP_DATA/root/xen-dom0" >out &&
	grep_q "^  NUMA nodes *2, from Xen" out &&
	grep_q "^ *0  0-1 *2.0 GiB *512 MiB$" out &&
	grep_q "^ *1  2-3 *2.0 GiB *1.0 GiB$" out &&
	grep_q "^  CPUs *4 online (0-3), 2 packages, 4 cores, SMT off" out
'

test_expect_success 'xen dom0: top has a row per Xen node, memory used = memsize - memfree' '
	vmmprof top --root "$X" --batch -n 1 >out &&
	grep_q "^ *0 *807M *1536M *n/a *n/a *n/a" out &&
	grep_q "^ *1 *1403M *1535M *n/a *n/a *n/a" out &&
	grep_q "nodes are Xen.s (xl info -n)" out
'

test_expect_success 'xen dom0 without xl info: dom0'"'"'s view, and the reason' '
	mkdir -p noxl && cp -r "$X/proc" "$X/sys" noxl/ &&
	vmmprof info --root noxl >out &&
	grep_q "^  NUMA nodes *1, from /sys" out &&
	grep_q "^  xl info *unreadable (cannot open .*xl/info-n.txt" out &&
	grep_q "the machine.s nodes are Xen.s (xl info -n: cannot open" out
'

test_done
