#!/bin/sh
# t7200-xen-diagnose.sh - diagnose --xen-numa-dump: each Xen domain's memory
# per node from Xen's 'u' dump, printed (text and JSON) and weighed by the
# placement estimate of locality as numa_maps' bytes are for KVM.
#
# Expectations from the xen-dom0 fixture's own files, by hand:
# - its xl/dmesg.txt: the newest dump gives guest1 (domain 1) 16384 pages on
#   node 0 and 16384 on node 1, "numa vm" (domain 3) 65600 and 65472; Xen
#   pages are 4 KiB;
# - xl list -l: "numa vm" has vNUMA nodes of 262144 KiB on pnodes 0 and 1,
#   guest1 none (no memory per node without the dump);
# - xl vcpu-list: guest1's vCPUs run on pCPUs 1 and 0, both node 0 by
#   xl info -n.  So each of its vCPUs has run time 1.0 on node 0, and the
#   placement estimate of its remote share is 1 x (share not on node 0):
#   16384 / 32768 = 0.5 with the fixture's dump, 1 when a dump puts all
#   32768 pages on node 1, 0 when it puts them all on node 0.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root/xen-dom0
P=4096
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

# vm_get FILE NAME EXPR: EXPR of the diagnosis' VM named NAME (as v)
vm_get() {
	json_get "$1" "[v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"$2\"][0]$3"
}

# a copy of the fixture whose ring holds one dump of guest1 (domain 1):
# N0 pages on node 0, N1 on node 1 (Xen 4.17's format, as in the fixture)
ring_root() {
	rm -rf x && cp -a "$R" x &&
	cat >x/.vmmprof-fixture/xl/dmesg.txt <<EOF
(XEN) 'u' pressed -> dumping numa info (now = 93144286402)
(XEN) NODE0 start->0 size->524288 free->101422
(XEN) NODE1 start->524288 size->524288 free->230030
(XEN) CPU0...1 -> NODE0
(XEN) CPU2...3 -> NODE1
(XEN) Memory location of each domain:
(XEN) Domain 0 (total: 524288):
(XEN)     Node 0: 300000
(XEN)     Node 1: 224288
(XEN) Domain 1 (total: 32768):
(XEN)     Node 0: $1
(XEN)     Node 1: $2
EOF
}

test_expect_success 'diagnose --json --xen-numa-dump: memory per node of each domain, pages x 4 KiB' '
	vmmprof diagnose -d 0.3 --root "$R" --xen-numa-dump --json >j 2>err &&
	test "$(vm_get j guest1 "[\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	test "$(vm_get j "numa vm" "[\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((65600 * P)), '\''1'\'': $((65472 * P))}" &&
	vm_get j guest1 "[\"mem_reason\"]" | grep -q "debug key" &&
	# Domain-0 is the host, not a VM to diagnose
	test "$(json_get j "len([v for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"Domain-0\"])")" = 0
'

test_expect_success 'diagnose without the opt-in: guest1 null with how to get it, numa vm its vNUMA' '
	vmmprof diagnose -d 0.3 --root "$R" --json >j 2>err &&
	test "$(vm_get j guest1 "[\"mem_node_bytes\"]")" = None &&
	vm_get j guest1 "[\"mem_reason\"]" | grep -q -- "--xen-numa-dump" &&
	test "$(vm_get j "numa vm" "[\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((262144 * 1024)), '\''1'\'': $((262144 * 1024))}"
'

test_expect_success 'diagnose (text): a memory-per-node row per domain, naming its source' '
	vmmprof diagnose -d 0.3 --root "$R" --xen-numa-dump >out 2>err &&
	grep_q "^Memory per node" out &&
	grep_q "^  guest1   node 0 64.0 MiB, node 1 64.0 MiB (Xen.s pages per node (4 KiB) from its .u. debug key" out &&
	grep_q "^  numa vm  node 0 256.2 MiB, node 1 255.8 MiB (Xen.s pages" out &&
	vmmprof diagnose -d 0.3 --root "$R" >out 2>err &&
	grep_q "^  guest1   n/a (no vNUMA: .*--xen-numa-dump" out
'

test_expect_success 'locality estimate from the dump: guest1 (vCPUs on node 0, half its pages on node 1) scores 0.5' '
	vmmprof diagnose -d 0.3 --root "$R" --xen-numa-dump --json >j 2>err &&
	test "$(vm_get j guest1 "[\"factors\"][\"locality\"][\"score\"]")" = 0.5 &&
	test "$(json_get j "sorted(b[\"evidence\"] for b in j[\"diagnosis\"][\"bottlenecks\"] if b[\"vm\"] == \"guest1\" and b[\"factor\"] == \"locality\")")" = \
		"['\''remote_est 0.5 (proxy)'\'', '\''remote_est 0.5 (proxy)'\'']"
'

test_expect_success 'locality estimate from the dump: all 32768 pages on node 1 scores 1, critical, for each vCPU' '
	ring_root 0 32768 &&
	vmmprof diagnose -d 0.3 --root x --xen-numa-dump --json >j 2>err &&
	test "$(vm_get j guest1 "[\"mem_node_bytes\"]")" = "{'\''0'\'': 0, '\''1'\'': $((32768 * P))}" &&
	test "$(vm_get j guest1 "[\"factors\"][\"locality\"][\"score\"]")" = 1 &&
	test "$(vm_get j guest1 "[\"factors\"][\"locality\"][\"severity\"]")" = critical &&
	test "$(json_get j "sorted((b[\"vcpu\"], b[\"evidence\"]) for b in j[\"diagnosis\"][\"bottlenecks\"] if b[\"vm\"] == \"guest1\")")" = \
		"[(0, '\''remote_est 1 (proxy)'\''), (1, '\''remote_est 1 (proxy)'\'')]"
'

test_expect_success 'locality estimate from the dump: all pages on node 0 (where it runs) scores 0, no bottleneck' '
	ring_root 32768 0 &&
	vmmprof diagnose -d 0.3 --root x --xen-numa-dump --json >j 2>err &&
	test "$(vm_get j guest1 "[\"mem_node_bytes\"]")" = "{'\''0'\'': $((32768 * P)), '\''1'\'': 0}" &&
	test "$(vm_get j guest1 "[\"factors\"][\"locality\"][\"score\"]")" = 0 &&
	test "$(json_get j "len([b for b in j[\"diagnosis\"][\"bottlenecks\"] if b[\"vm\"] == \"guest1\"])")" = 0
'

test_expect_success 'a domain the dump lacks: no memory per node, the reason says so' '
	ring_root 0 32768 &&
	vmmprof diagnose -d 0.3 --root x --xen-numa-dump --json >j 2>err &&
	# numa vm (domain 3) is not in this ring: its vNUMA configuration stays
	test "$(vm_get j "numa vm" "[\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((262144 * 1024)), '\''1'\'': $((262144 * 1024))}" &&
	vm_get j "numa vm" "[\"mem_reason\"]" | grep -q "vNUMA"
'

test_expect_success 'a real Xen 4.17 ring (xen-captured): vptest 16384 pages per node, its estimate 0.5' '
	vmmprof diagnose -d 0.3 --root "$VP_DATA/xen-captured" --xen-numa-dump --json >j 2>err &&
	test "$(vm_get j vptest "[\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	test "$(vm_get j vptest "[\"factors\"][\"locality\"][\"score\"]")" = 0.5
'

test_expect_success 'record --xen-numa-dump then diagnose FILE: the recorded memory per node' '
	vmmprof record -o r.vmmdb -d 0.6 -I 300 -q --root "$R" --xen-numa-dump 2>err &&
	vmmprof diagnose r.vmmdb --json >j 2>err &&
	test "$(vm_get j guest1 "[\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	test "$(vm_get j guest1 "[\"factors\"][\"locality\"][\"score\"]")" = 0.5
'

# xen-dom0 (make-fixtures.py): 'numa vm' has vNUMA 256 MiB on each of nodes 0
# and 1, vCPUs 0-1 on pCPUs 2-3 (node 1): remote estimate 0.5, critical; its
# 4 vCPUs do not fit a node of 2 pCPUs, so the advice is a vNUMA restart
test_expect_success 'xen: critical locality gets advice in Xen'"'"'s idioms, never "none"' '
	vmmprof diagnose -d 0.3 --root "$R" >out 2>err &&
	grep -q "critical" out &&
	! grep -q "^  none: no bottleneck" out &&
	grep -q "recreate numa vm with a vNUMA layout over the host.s nodes" out &&
	grep -q "vnuma = \[ \[ \"pnode=0\", \"size=256\", \"vcpus=0-1\", \"vdistances=10,20\" \]" out &&
	grep -q "xl shutdown -w .numa vm." out &&
	grep -q "needs a restart" out &&
	vmmprof diagnose -d 0.3 --root "$R" --json >j 2>err &&
	test "$(json_get j "[a[\"rule\"] for a in j[\"diagnosis\"][\"advice\"]]")" = "['\''xen-recreate'\'']"
'

test_expect_success 'xen: --xen-hard-pin is accepted and documented' '
	vmmprof diagnose -d 0.3 --root "$R" --xen-hard-pin >out 2>err &&
	vmmprof help diagnose >h &&
	grep -q "xen-hard-pin" h
'

test_done
