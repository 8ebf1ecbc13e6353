#!/bin/sh
# t8001-bench-latency.sh - the latency sweep finds cache levels and a plausible DRAM
# latency; the memory lands on the node it was bound to (move_pages and numastat)
. "$(dirname "$0")/lib.sh"

numa_hit() {
	awk '$1 == "numa_hit" {print $2}' /sys/devices/system/node/node0/numastat
}

# A shared noisy machine can spoil a sweep; the levels must show in one of three.
sweep_ok() {
	vmmprof bench latency --quick --time 4 --json -q >lat.json || return 1
	json_get lat.json "len(j[\"scenarios\"][\"latency\"][\"points\"]) >= 10 and len(set(l[\"name\"] for l in j[\"scenarios\"][\"latency\"][\"levels\"] if l[\"name\"] != \"DRAM\")) >= 2 and 30 <= j[\"scenarios\"][\"latency\"][\"dram_ns\"] <= 500" >ok &&
	grep -q True ok
}

test_expect_success 'latency --json: two or more cache levels, DRAM 30..500 ns' '
	for i in 1 2 3; do
		sweep_ok && return 0
		json_get lat.json "([(l[\"name\"], round(l[\"ns\"], 1)) for l in j[\"scenarios\"][\"latency\"][\"levels\"]], j[\"scenarios\"][\"latency\"][\"dram_ns\"])"
	done
	return 1
'

test_expect_success 'cache levels come in order, each faster than DRAM' '
	json_get lat.json "([l[\"ns\"] for l in j[\"scenarios\"][\"latency\"][\"levels\"] if l[\"name\"] != \"DRAM\"], j[\"scenarios\"][\"latency\"][\"dram_ns\"])" >ns &&
	python3 -c "import sys; v, d = eval(open(\"ns\").read()); sys.exit(0 if all(a < b for a, b in zip(v, v[1:])) and all(x < d for x in v) else 1)" ||
	{ cat ns; false; }
'

test_expect_success '--size sets the DRAM working set; a bad one is a usage error' '
	vmmprof bench latency --quick --time 1 --size 16M --json -q >s.json &&
	test "$(json_get s.json "int(max(p[\"bytes\"] for p in j[\"scenarios\"][\"latency\"][\"points\"]))")" = 16777216 &&
	expect_exit 2 vmmprof bench latency --size 12X 2>err && grep_q "size wants" err &&
	expect_exit 2 vmmprof bench latency --size 100K 2>err && grep_q "size wants" err
'

test_expect_success 'latency table: levels, DRAM line and the binding statement' '
	vmmprof bench latency --time 1 --quick -q >lat.txt &&
	grep_q "levels found" lat.txt &&
	grep_q "DRAM latency:" lat.txt &&
	grep_q "bound: sweep: chaser on CPU [0-9]* (node [0-9]*)" lat.txt &&
	grep_q "bound to node [0-9]* (mbind MPOL_BIND)" lat.txt
'

if [ "$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)" -eq 1 ]; then
	test_expect_success 'one node: --matrix reports the one pair and says why' '
		vmmprof bench latency --matrix --quick --json -q >m.json &&
		json_get m.json "len(j[\"scenarios\"][\"latency\"][\"matrix_ns\"])" >rows &&
		test "$(cat rows)" = 1 &&
		json_get m.json "j[\"scenarios\"][\"latency\"][\"matrix_note\"]" >note &&
		grep_q "one NUMA node" note &&
		json_get m.json "j[\"scenarios\"][\"latency\"][\"matrix_ns\"][0][0] > 0" >pos &&
		grep_q True pos
	'

	test_expect_success 'one node: every sampled page on node 0, and node 0 numastat counted them' '
		before=$(numa_hit) &&
		vmmprof bench latency --matrix --quick -q >m.txt &&
		after=$(numa_hit) &&
		grep_q "matrix (0,0): chaser on CPU [0-9]*; memory 64 MiB bound to node 0" m.txt &&
		grep_q "sampled pages: 512/512 on node 0" m.txt &&
		! grep -q "on node [1-9]" m.txt &&
		test $((after - before)) -ge 32
	'
else
	test_skip 'one node: --matrix reports the one pair' 'this machine has several NUMA nodes'
	test_skip 'one node: pages on node 0' 'this machine has several NUMA nodes'
fi

test_done
