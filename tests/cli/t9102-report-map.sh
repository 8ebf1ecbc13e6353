#!/bin/sh
# t9102-report-map.sh - report --html draws the host's placement map at a few intervals
# (issue 23): one element per node, CPU and vCPU of a fixture host, SMT siblings and LLC
# domains grouped, five severity stripes per vCPU, memory bars split by node; and a
# 100-VM host counted per CPU with a drill-down per node.  Each page is checked in
# headless Chromium against a map written by hand from the fixture tree
# (tests/data/root/README.md, tests/web/many_vms.py), never from vmmprof's output.
# Screenshots: build/test-artefacts/t9102-report-map/ (tests/cli/lib.sh test_artefacts).
. "$(dirname "$0")/lib.sh"
R=$VP_DATA/root
web=$(cd "$(dirname "$0")/../web" && pwd)

# record ROOT NAME: 4 intervals of 0.5 s of the fixture tree, and its HTML report
record() {
	vmmprof record -q --root "$1" -o "$2.vmmdb" -d 2 -I 500 &&
	vmmprof report --html "$2.html" "$2.vmmdb" 2>err
}

test_expect_success 'the recording keeps each CPU package and core and the caches (meta)' '
	record $R/skx-2s skx &&
	python3 - skx.vmmdb <<-PY
	import sqlite3, sys
	m = dict(sqlite3.connect(sys.argv[1]).execute("SELECT key, value FROM meta").fetchall())
	# skx-2s: CPU c is core c mod 4 of package (c mod 8) div 4; c and c + 8 are siblings
	want = ",".join("%d:%d:%d" % (c, (c % 8) // 4, c % 4) for c in range(16))
	assert m["topology_cpus"] == want, m["topology_cpus"]
	assert m["topology_llc"] == "3:0-3,8-11;3:4-7,12-15", m["topology_llc"]
	PY
'

test_expect_success 'a damaged topology_cpus is refused, naming the file and the field' '
	cp skx.vmmdb bad.vmmdb &&
	python3 - bad.vmmdb <<-PY &&
	import sqlite3, sys
	c = sqlite3.connect(sys.argv[1])
	c.execute("UPDATE meta SET value = ? WHERE key = ?", ("0:0:x", "topology_cpus"))
	c.commit()
	PY
	expect_exit 1 vmmprof report --html bad.html bad.vmmdb 2>err &&
	grep_q "bad.vmmdb" err && grep_q "topology_cpus" err
'

if [ -z "$(command -v chromium || true)" ] || ! command -v python3 >/dev/null; then
	test_skip 'the placement map of the HTML report in headless Chromium' 'chromium or python3 is not installed'
	test_done
	exit
fi

# skx-2s: 2 nodes, CPUs c and c + 8 siblings, one L3 per socket; vm1 vCPUs 0-3 on CPUs
# 1, 2, 5, 6; 6 GiB on node 0 (home), 2 GiB on node 1 (remote).  4 intervals: 4 snapshots.
cat >"$TRASH/skx.json" <<'JSON'
{"snaps": 4, "nodes": [0, 1], "cpus": 16, "llcs": 2,
 "cores": [[0, 8], [1, 9], [2, 10], [3, 11], [4, 12], [5, 13], [6, 14], [7, 15]],
 "vcpus": {"vm1/0": 1, "vm1/1": 2, "vm1/2": 5, "vm1/3": 6},
 "bars": {"vm1": {"0": false, "1": true}}, "n_bars": 1}
JSON
test_expect_success 'skx-2s: each snapshot has 2 nodes, 16 CPUs in 8 cores, 2 LLCs, 4 vCPUs, 1 bar' '
	python3 "$web/report_map.py" skx.html skx.json "$(test_artefacts)/t9102-skx-2s.png"
'

# host-libvirt-v2: CPUs 0-1 node 0, 2-3 node 1, each its own core, no caches listed (one
# "LLC not known" group per node); web1 vCPUs on CPUs 1 and 2, db-2 vCPU 0 on CPU 3;
# web1 768 MiB node 0 (home) + 256 MiB node 1, db-2 400 MiB on node 1 only.
cat >"$TRASH/libvirt.json" <<'JSON'
{"snaps": 4, "nodes": [0, 1], "cpus": 4, "llcs": 2, "cores": [[0], [1], [2], [3]],
 "vcpus": {"web1/0": 1, "web1/1": 2, "db-2/0": 3},
 "bars": {"web1": {"0": false, "1": true}, "db-2": {"1": false}}, "n_bars": 2}
JSON
test_expect_success 'host-libvirt-v2: 2 nodes, 4 CPUs, 3 vCPUs, web1 remote on node 1, db-2 local' '
	record $R/host-libvirt-v2 libvirt &&
	python3 "$web/report_map.py" libvirt.html libvirt.json "$(test_artefacts)/t9102-host-libvirt-v2.png"
'

# 100 VMs (tests/web/many_vms.py): vCPU k of VM i on CPU (2i + k) mod 64, so CPUs 0-7
# hold 4 vCPUs and the other 56 hold 3 (200); node n is CPUs 8n..8n+7 and their siblings
# 32+8n..: node 0 has 8 x 4 + 8 x 3 = 56 vCPUs, nodes 1-3 16 x 3 = 48.  24 bars, 76 more.
test_expect_success '100 VMs: vCPUs counted per CPU, a drill-down per node, 24 bars' '
	python3 "$web/many_vms.py" many 100 &&
	record "$TRASH/many" many &&
	python3 - >many.json <<-PY &&
	import json
	print(json.dumps({"snaps": 4, "nodes": [0, 1, 2, 3], "cpus": 64, "llcs": 4,
	                  "cores": [[c, c + 32] for c in range(32)],
	                  "agg": {str(c): 4 if c < 8 else 3 for c in range(64)},
	                  "drill": {"0": 56, "1": 48, "2": 48, "3": 48},
	                  "n_bars": 24, "more": "76 more VMs"}))
	PY
	python3 "$web/report_map.py" many.html many.json "$(test_artefacts)/t9102-100-vms.png"
'

test_done
