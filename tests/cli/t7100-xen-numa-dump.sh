#!/bin/sh
# t7100-xen-numa-dump.sh - --xen-numa-dump: memory per node of Xen domains
# from Xen's 'u' debug key, read back from 'xl dmesg', on the xen-dom0
# fixture root (its xl/dmesg.txt holds two dumps; the newest counts).  The
# expected bytes are the newest dump's page counts (lines "Node n: pages")
# times Xen's 4 KiB page, computed here, not taken from vmmprof.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root/xen-dom0
P=4096

test_expect_success 'list vms --xen-numa-dump: the newest dump, pages x 4 KiB per node' '
	vmmprof list vms --root "$R" --xen-numa-dump --json >j &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"guest1\"][0][\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"Domain-0\"][0][\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((201989 * P)), '\''1'\'': $((322299 * P))}" &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"numa vm\"][0][\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((65600 * P)), '\''1'\'': $((65472 * P))}"
'

test_expect_success 'a real Xen 4.17 ring (xen-captured): its newest dump, pages x 4 KiB' '
	vmmprof list vms --root "$VP_DATA/xen-captured" --xen-numa-dump --json >j &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"Domain-0\"][0][\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((188605 * P)), '\''1'\'': $((335683 * P))}" &&
	test $(((188605 + 335683) * P)) = $((2048 * 1024 * 1024))
'

test_expect_success 'list vms --xen-numa-dump: per node sums to the configured memory (128 MiB)' '
	vmmprof list vms --root "$R" --xen-numa-dump --json >j &&
	test "$(json_get j "[sum(v[\"mem_node_bytes\"].values()) for v in j[\"vms\"] if v[\"name\"] == \"guest1\"][0]")" = \
		$((128 * 1024 * 1024)) &&
	test "$(json_get j "[v[\"mem_size_bytes\"] for v in j[\"vms\"] if v[\"name\"] == \"guest1\"][0]")" = \
		$((128 * 1024 * 1024))
'

test_expect_success 'list vms --xen-numa-dump: text names the source' '
	vmmprof list vms guest1 --root "$R" --xen-numa-dump >out &&
	grep_q "per node: node 0 64.0 MiB, node 1 64.0 MiB (Xen.s pages per node" out
'

test_expect_success 'list vms without the opt-in: per node n/a, and says how to get it' '
	vmmprof list vms guest1 --root "$R" >out &&
	grep_q "per node n/a (no vNUMA: .*--xen-numa-dump" out &&
	vmmprof list vms --root "$R" --json >j &&
	test "$(json_get j "[v[\"mem_node_bytes\"] for v in j[\"vms\"] if v[\"name\"] == \"guest1\"][0]")" = None
'

test_expect_success '--xen-numa-dump is for list vms only, and takes seconds' '
	expect_exit 2 vmmprof list events --xen-numa-dump --root "$R" &&
	expect_exit 2 vmmprof top --batch -n 1 --xen-numa-dump=soon --root "$R" &&
	expect_exit 2 vmmprof diagnose -d 0.1 --xen-numa-dump=-1 --root "$R" &&
	expect_exit 2 vmmprof record -o x.vmmdb -d 0.1 --xen-numa-dump=1x --root "$R"
'

test_expect_success 'top --batch --xen-numa-dump: the domU memory known (128 MiB)' '
	vmmprof top --batch -n 1 --root "$R" --xen-numa-dump=0 >out &&
	grep -q "^guest1 *xen *1 *2 *n/a *128.0 " out &&
	vmmprof top --batch -n 1 --root "$R" >out2 &&
	grep -q "^guest1 *xen *1 *2 *n/a *n/a " out2
'

test_expect_success 'record --xen-numa-dump: frames carry the dump per node' '
	vmmprof record -o r.vmmdb -d 1 -I 400 -q --root "$R" --xen-numa-dump &&
	python3 -c "
import sqlite3, sys
db = sqlite3.connect(\"r.vmmdb\")
got = set(db.execute(\"select r.node, r.bytes from row_mem r join rows w on w.seq = r.seq and w.pos = r.pos where w.name = ?\", (\"guest1\",)))
want = {(0, 16384 * 4096), (1, 16384 * 4096)}
sys.exit(0 if got == want else \"row_mem of guest1: %r, want %r\" % (got, want))
"
'

test_expect_success 'help pages name the option' '
	for c in list top diagnose record; do
		vmmprof help $c >h && grep_q "xen-numa-dump" h || return 1
	done
'

test_done
