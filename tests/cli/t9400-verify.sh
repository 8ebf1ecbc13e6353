#!/bin/sh
# t9400-verify.sh - `vmmprof verify`: each factor's checks, honest skips, the counting
# checks exact, --json and --save with the machine's identity
. "$(dirname "$0")/lib.sh"

test_expect_success 'help and man page' '
	vmmprof help verify >h && grep_q "^  vmmprof verify \[--json\]" h && grep -q -- "--save FILE" h &&
	vmmprof verify --help >h2 && cmp h h2 &&
	vmmprof help --man verify >man && grep_q "^\.TH" man
'

test_expect_success 'usage errors: --runs needs a spread, unknown options and arguments' '
	expect_exit 2 vmmprof verify --runs 1 2>err && grep_q "runs wants 2..16" err &&
	expect_exit 2 vmmprof verify --runs 17 2>err && grep_q "runs wants 2..16" err &&
	expect_exit 2 vmmprof verify --frob 2>err && grep_q "unknown option" err &&
	expect_exit 2 vmmprof verify extra 2>err && grep_q "unexpected argument" err
'

# What this machine has decides which checks may run: the expectation comes
# from the platform (info), not from verify.
vmmprof info --json >"$TRASH/info.json" 2>/dev/null
core=$(python3 -c 'import json; print(json.load(open("'"$TRASH/info.json"'"))["pmus"]["core_pmu"])' 2>/dev/null)
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)

test_expect_success 'verify --json --save: every factor checked, the saved file names the machine' '
	vmmprof verify --json --save saved.json >j &&
	cmp j saved.json &&
	python3 -c "
import json, socket, os
j = json.load(open(\"j\"))
m = j[\"machine\"]
assert m[\"host\"] == socket.gethostname(), m
assert m[\"kernel\"] == os.uname().release and m[\"arch\"] == os.uname().machine, m
assert m[\"cpus\"] >= 1 and m[\"nodes\"] >= 1 and m[\"when\"].endswith(\"Z\"), m
assert m[\"model\"], m
fs = set(c[\"factor\"] for c in j[\"checks\"])
assert fs == {\"counting\", \"locality\", \"llc\", \"sharing\", \"imc\", \"queue\"}, fs
v = j[\"verdict\"]
n = len(j[\"checks\"])
assert v[\"passed\"] + v[\"failed\"] + v[\"skipped\"] == n, v
for c in j[\"checks\"]:
    assert c[\"verdict\"] in (\"pass\", \"fail\", \"skipped\"), c
    assert c[\"why\"], c
    if c[\"verdict\"] == \"skipped\":
        assert c[\"measured\"] is None and c[\"control\"] == [] and c[\"treatment\"] == [], c
"
'

# Touching N fresh anonymous pages (no huge pages) faults exactly once per
# page (the kernel's page fault handler; anonymous memory has no fault-around):
# 2064 pages against 16 is +2048 faults, with no spread.
test_expect_success 'software counting: page faults of fresh pages are exact' '
	python3 -c "
import json
j = json.load(open(\"j\"))
c = [c for c in j[\"checks\"] if c[\"check\"] == \"page faults of fresh pages\"][0]
assert c[\"kind\"] == \"software\" and c[\"expected\"] == 2048, c
assert c[\"verdict\"] == \"pass\" and c[\"measured\"] == 2048, c
"
'

# mbind(MPOL_BIND) to the CPU's own node: every page there (move_pages and numa_maps).
test_expect_success 'placement: memory bound to the local node is there' '
	python3 -c "
import json
j = json.load(open(\"j\"))
for name in (\"pages where bound, local node\", \"numa_maps sees them there, local node\"):
    c = [c for c in j[\"checks\"] if c[\"check\"] == name][0]
    assert c[\"kind\"] == \"placement\" and c[\"verdict\"] == \"pass\" and c[\"measured\"] == 100, c
"
'

if test "$core" = False; then
	test_expect_success 'no core PMU: every hardware check skipped with that reason, none passed' '
		python3 -c "
import json
j = json.load(open(\"j\"))
hw = [c for c in j[\"checks\"] if c[\"kind\"] == \"hardware\"]
assert len(hw) >= 12, len(hw)
for c in hw:
    assert c[\"verdict\"] == \"skipped\", c
    assert c[\"why\"].startswith(\"no core PMU\"), c
" &&
		vmmprof verify >out &&
		grep_q "^counting  *instructions of a loop of known length .*skipped: no core PMU" out &&
		grep_q "^verdict: [0-9]* passed, 0 failed, [0-9]* skipped: no hardware check ran here" out
	'
else
	test_skip 'no core PMU: every hardware check skipped' "this machine has a core PMU"
fi

if test "$nodes" = 1; then
	test_expect_success 'one NUMA node: the remote checks say so' '
		vmmprof verify >out &&
		grep_q "pages where bound, remote node .*skipped: needs 2 NUMA nodes, this machine has 1" out &&
		grep_q "IMC cost, packed vs spread .*needs 2 NUMA nodes, this machine has 1" out
	'
else
	test_skip 'one NUMA node: the remote checks say so' "this machine has $nodes nodes"
fi


test_expect_success '--load: a saved result prints the same table, judged again from its runs' '
	vmmprof verify --save s.json >live &&
	vmmprof verify --load s.json >loaded &&
	sed 1,2d live >a && sed 1,2d loaded >b && cmp a b &&
	vmmprof verify --load s.json --json >j2 && cmp s.json j2 &&
	expect_exit 2 vmmprof verify --load s.json --runs 3 2>err && grep_q "no --save, --runs" err &&
	echo "{}" >bad.json &&
	expect_exit 1 vmmprof verify --load bad.json 2>err &&
	grep_q "bad.json.*not a .vmmprof verify. result" err
'

test_expect_success 'a file that cannot be written is an error naming it' '
	expect_exit 1 vmmprof verify --save /nonexistent/dir/v.json 2>err &&
	grep_q "/nonexistent/dir/v.json" err
'

# verify --bench: the benchmark's figures against references.  The peers here
# are stand-ins on a PATH of their own, printing what the real tools print
# (mbw 1.2.2, sysbench 1.0.20, stress-ng), so the judging is known by hand:
# mbw says 1 MiB/s (0.001 GB/s): our copy, over 1 GB/s on any machine this
# runs on, is a ratio far above 1 (pass); sysbench says 10^9 MiB/s, about
# 10^6 GB/s, which no memory gives: the ratio is far below 1 (fail, exit 1);
# stress-ng says its run was too short: no figure, skipped, never a zero.
test_expect_success 'verify --bench: each peer ratio judged, a missing figure skipped' '
	mkdir fakebin &&
	printf "#!/bin/sh\nprintf \"AVG\\\\tMethod: MEMCPY\\\\tElapsed: 1.0\\\\tMiB: 256.00000\\\\tCopy: 1.000 MiB/s\\\\n\"\n" >fakebin/mbw &&
	printf "#!/bin/sh\necho \"1000.00 MiB transferred (1000000000.00 MiB/sec)\"\n" >fakebin/sysbench &&
	printf "#!/bin/sh\necho \"stress-ng: info:  [55] stream: run duration too short to determine memory rate\"\n" >fakebin/stress-ng &&
	chmod +x fakebin/mbw fakebin/sysbench fakebin/stress-ng &&
	vp=$(command -v vmmprof) &&
	expect_exit 1 env PATH="$PWD/fakebin" "$VMMPROF" verify --bench --runs 2 --json >bj &&
	python3 -c "
import json, math
j = json.load(open(\"bj\"))
b = {c[\"check\"]: c for c in j[\"checks\"] if c[\"factor\"] == \"benchmark\"}
assert len(b) == 4, list(b)
cp = b[\"copy bandwidth vs mbw (memcpy), 1 thread\"]
assert cp[\"verdict\"] == \"pass\" and cp[\"measured\"] > 100 and len(cp[\"treatment\"]) == 2, cp
rd = b[\"read bandwidth vs sysbench memory, all CPUs of a node\"]
assert rd[\"verdict\"] == \"fail\" and rd[\"measured\"] < 1e-3, rd
tr = b[\"triad bandwidth vs stress-ng --stream, all CPUs of a node\"]
assert tr[\"verdict\"] == \"skipped\" and \"stress-ng printed no figure\" in tr[\"why\"], tr
lat = b[\"DRAM latency: samples\u0027 median vs a plain chase\u0027s mean\"]
assert lat[\"kind\"] == \"software\" and len(lat[\"control\"]) == 2 and len(lat[\"treatment\"]) == 2, lat
assert all(v > 0 for v in lat[\"control\"] + lat[\"treatment\"]), lat
" &&
	rm fakebin/mbw &&
	expect_exit 1 env PATH="$PWD/fakebin" "$VMMPROF" verify --bench --runs 2 >bt &&
	grep_q "^benchmark  *copy bandwidth vs mbw.*skipped: mbw: not installed (Debian package mbw)" bt &&
	grep_q "^benchmark  *read bandwidth vs sysbench.*FAIL (below the floor" bt &&
	expect_exit 2 vmmprof verify --load bj --bench 2>err && grep_q "no --save, --runs, --bench" err
'

test_expect_success 'without --bench no benchmark check is run or listed' '
	python3 -c "
import json
j = json.load(open(\"j\"))
assert not [c for c in j[\"checks\"] if c[\"factor\"] == \"benchmark\"]
"
'

test_done
