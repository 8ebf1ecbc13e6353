#!/bin/sh
# t10540-web-map.sh - the web UI's placement map (issue 23) in headless Chromium, on the
# daemon reading fixture trees (--root): one element per node, CPU and vCPU, SMT siblings
# and LLC domains grouped, memory bars split by node; and a 100-VM host aggregated, then
# drilled down.  The expected maps are written below by hand from the fixture trees
# (tests/data/root/README.md, tests/web/many_vms.py), never from vmmprof's output.
# Screenshots: build/test-artefacts/t10540-web-map/ (tests/cli/lib.sh test_artefacts).
. "$(dirname "$0")/lib.sh"
R=$VP_DATA/root
web_root=$R/skx-2s
. "$(dirname "$0")/../web/daemon.sh"

web_begin 'the placement map in headless Chromium'

# skx-2s: two sockets = two nodes, 4 cores x 2 threads each, CPU c and c + 8 siblings,
# one L3 per socket; vm1 vCPUs 0-3 last on CPUs 1, 2, 5, 6; 6 GiB on node 0 (home),
# 2 GiB on node 1 (remote).  No cost thresholds: every severity is n/a.
cat >"$TRASH/skx.json" <<'JSON'
{"nodes": [0, 1], "cpus": 16, "llcs": 2,
 "cores": [[0, 8], [1, 9], [2, 10], [3, 11], [4, 12], [5, 13], [6, 14], [7, 15]],
 "vcpus": {"vm1/0": 1, "vm1/1": 2, "vm1/2": 5, "vm1/3": 6}, "sev": "n/a",
 "bars": {"vm1": {"0": false, "1": true}}}
JSON
test_expect_success 'skx-2s: 2 nodes, 16 CPUs in 8 SMT cores, 2 LLCs, 4 vCPUs on their CPUs, 1 memory bar' '
	test $started = 1 && webui map --expect skx.json --shot t10540-skx-2s
'

# host-libvirt-v2: CPUs 0-1 node 0, 2-3 node 1, no SMT (each CPU its own core), no cache
# files (one "LLC not known" group per node); web1 vCPU 0 on CPU 1, vCPU 1 on CPU 2, db-2
# vCPU 0 on CPU 3; web1 768 MiB node 0 (home) + 256 MiB node 1, db-2 400 MiB node 1 only.
cat >"$TRASH/libvirt.json" <<'JSON'
{"nodes": [0, 1], "cpus": 4, "llcs": 2, "cores": [[0], [1], [2], [3]],
 "vcpus": {"web1/0": 1, "web1/1": 2, "db-2/0": 3}, "sev": "n/a",
 "bars": {"web1": {"0": false, "1": true}, "db-2": {"1": false}}}
JSON
test_expect_success 'host-libvirt-v2: 2 nodes, 4 CPUs, 3 vCPUs, web1 remote on node 1, db-2 local' '
	web_stop_daemon && web_root=$R/host-libvirt-v2 && web_start_daemon >start2.out 2>&1 &&
	webui map --expect libvirt.json --shot t10540-host-libvirt-v2
'

# 100 VMs (tests/web/many_vms.py): 4 nodes x 16 CPUs (c, c + 32 siblings), vCPU k of VM i on
# CPU (2i + k) mod 64: 200 vCPUs, CPUs 0-7 hold 4, the others 3.  Aggregated: one counted
# square per CPU, 24 bars and "76 more".  Node 0 (CPUs 0-7, 32-39): 8 x 4 + 8 x 3 = 56
# vCPUs one by one.  VM vm042: its 2 vCPUs one by one, the other 198 counted, 1 bar.
test_expect_success '100 VMs: vCPUs counted per CPU, 24 bars; drill down to node 0 and to vm042' '
	python3 "$web_src/tests/web/many_vms.py" "$TRASH/many" 100 &&
	python3 - >many.json <<-PY &&
	import json
	agg = {str(c): 4 if c < 8 else 3 for c in range(64)}
	assert sum(agg.values()) == 200
	print(json.dumps({"nodes": [0, 1, 2, 3], "cpus": 64, "llcs": 4, "n_vcpus": 200,
	                  "cores": [[c, c + 32] for c in range(32)], "agg": agg,
	                  "n_bars": 24, "more": "76 more VMs",
	                  "focus": [{"focus": "node:0", "nodes": [0], "n_vcpu_el": 56, "agg_total": 0, "n_bars": 24},
	                            {"focus": "vm:vm042", "nodes": [0, 1, 2, 3], "n_vcpu_el": 2, "agg_total": 198,
	                             "n_bars": 1}]}))
	PY
	web_stop_daemon && web_root=$TRASH/many && web_start_daemon >start3.out 2>&1 &&
	webui map --expect many.json --shot t10540-100-vms
'

test_done
