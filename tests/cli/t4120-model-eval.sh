#!/bin/sh
# t4120-model-eval.sh - `model eval` binds counts from anywhere to a model's inputs by their
# encoding and runs them through the cost stage; `model test` runs every built-in model's
# scenario file (tests/models/*.cases, counts from tests/helpers/gen_counts.py) and the cost
# invariants hold on random physics for every model the generator knows.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
M=$VP_DATA/../models
GEN=$VP_DATA/../helpers/gen_counts.py
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME
# near FILE EXPR VALUE: the JSON expression is VALUE to 1e-9 (relative)
near() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); w=float(sys.argv[3]); sys.exit(0 if v is not None and abs(v-w) <= 1e-9*max(1,abs(w)) else (print("%s = %r, expected %s" % (sys.argv[2], v, w)) or 1))' "$1" "$2" "$3"
}
# fac FILE FACTOR KEY: a factor's KEY on the vcpu row, as a python expression
fac() { echo "[f[\"$3\"] for f in j[\"vcpu\"][\"factors\"] if f[\"factor\"]==\"$2\"][0]"; }
inp() { echo "[i[\"$2\"] for i in j[\"inputs\"] if i[\"name\"]==\"$1\"][0]"; }
CAL="--set cal.lat_local_ns=89 --set cal.lat_remote_ns=143 --set cal.peak_bw_gbs=105 --set cal.lat_c2c_local_ns=50 --set cal.lat_c2c_remote_ns=114 --set cal.lat_llc_ns=20"

for f in "$M"/*.cases; do
	name=$(basename "$f" .cases)
	test_expect_success "model test $name.cases: every case as worked out by hand" '
		python3 "$GEN" "$f" '"$name"'.cases &&
		vmmprof model test '"$name"'.cases >out || { cat out; exit 1; }
		grep -q "^'"$name"'.cases: [0-9]* cases, [0-9]* passed, 0 failed$" out || { cat out; exit 1; }
	'
done

test_expect_success 'model test fails a case whose expectation is wrong, naming its line' '
	python3 "$GEN" "$M/skx.cases" skx.cases &&
	line=$(grep -n "^expect cost locality 25.8..26$" skx.cases | cut -d: -f1) &&
	sed "s/^expect cost locality 25.8..26$/expect cost locality 30..40/" skx.cases >bad.cases &&
	expect_exit 1 vmmprof model test bad.cases >out &&
	grep_q "^FAIL bad.cases:[0-9]* skx remote-chaser$" out &&
	grep_q "bad.cases:$line: cost locality is 25.9[0-9]* %, expected 30..40" out &&
	grep_q "11 cases, 10 passed, 1 failed" out
'

test_expect_success 'model test: score n/a, severity, quality and why fail when wrong, naming their line' '
	python3 "$GEN" "$M/vpmu.cases" vpmu.cases &&
	sed -e "s/^expect severity locality critical$/expect severity locality warning/" \
	    -e "s/^expect why queue a vPMU exposes no uncore tracker events$/expect why queue CPI as a stand-in/" \
	    -e "s/^expect quality llc unavailable$/expect quality llc measured/" \
	    -e "s/^expect metric cpi 11.99..12.01$/expect score locality n\/a/" vpmu.cases >bad.cases &&
	expect_exit 1 vmmprof model test bad.cases >out &&
	grep_q "severity of locality is critical, expected warning" out &&
	grep_q "no reason of queue says .CPI as a stand-in. (score: a vPMU exposes no uncore tracker events" out &&
	grep_q "quality of llc is unavailable, expected measured" out &&
	grep_q "score locality is 0.6, expected n/a" out &&
	grep_q "6 cases, 4 passed, 2 failed" out
'

test_expect_success 'model test: a gen line not expanded, and an unknown statement, are errors at their line' '
	printf "model skx\ncase a\ngen dram_local=1\n" >g.cases &&
	expect_exit 1 vmmprof model test g.cases 2>err &&
	grep_q "g.cases:3: .gen. lines are physics for tests/helpers/gen_counts.py" err &&
	printf "model skx\ncase a\nfrobnicate 1\n" >u.cases &&
	expect_exit 1 vmmprof model test u.cases 2>err &&
	grep_q "u.cases:3: unknown statement .frobnicate." err
'

# the review's remote chaser on Skylake-SP, with every spelling of one event
cat >"$TRASH/chaser.json" <<'JSON'
{"duration_s": 1, "cpu_ghz": 2.4,
 "counts": {
  "cycles": 2.4e9, "instructions": 1e9, "task-clock": 1e9,
  "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM": 3.2e6,
  "skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM": 4.8e6,
  "r04d3": 0,
  "cpu/event=0xd3,umask=0x08/": 0,
  "r5304d2": 0,
  "LONGEST_LAT_CACHE:MISS": 8e6, "LONGEST_LAT_CACHE:REFERENCE": 8e6,
  "CYCLE_ACTIVITY:STALLS_L3_MISS": 2.33088e9,
  "CYCLE_ACTIVITY:STALLS_L2_MISS": 2.33088e9,
  "CYCLE_ACTIVITY:STALLS_MEM_ANY": 2.33088e9,
  "OFFCORE_REQUESTS_BUFFER:SQ_FULL": null,
  "r1234": 7,
  "no_such_event": 1
 },
 "llc_alone": true}
JSON

test_expect_success 'model eval: a libpfm4 name, a table-qualified name, raw codes and sysfs terms bind by encoding' '
	vmmprof model eval skx --root "$R/skx-2s" --counts "$TRASH/chaser.json" $CAL --json >j &&
	test "$(json_get j "$(inp rem_dram from)")" = "skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM ($TRASH/chaser.json:5:48)" &&
	test "$(json_get j "$(inp rem_dram value)")" = "4800000" &&
	test "$(json_get j "$(inp rem_hitm from)")" = "r04d3 ($TRASH/chaser.json:6:12)" &&
	test "$(json_get j "$(inp rem_hitm value)")" = "0" &&
	test "$(json_get j "$(inp loc_hitm bound_by)")" = "encoding" &&
	test "$(json_get j "$(inp loc_hitm from)")" = "r5304d2 ($TRASH/chaser.json:8:14)" &&
	test "$(json_get j "$(inp rem_fwd from)")" = "cpu/event=0xd3,umask=0x08/ ($TRASH/chaser.json:7:33)"
'

test_expect_success 'model eval: unmatched counts are unused with the reason; inputs without a count are n/a, not 0' '
	test "$(json_get j "sorted(u[\"spec\"] for u in j[\"unused\"])")" = "['"'"'no_such_event'"'"', '"'"'r1234'"'"']" &&
	json_get j "[u[\"why\"] for u in j[\"unused\"] if u[\"spec\"]==\"r1234\"][0]" | grep -q "its encoding is none of the model" &&
	test "$(json_get j "$(inp sq_full value)")" = "None" &&
	json_get j "$(inp sq_full why)" | grep -q "not counted (null in the counts file)" &&
	test "$(json_get j "$(inp fb_full value)")" = "None" &&
	test "$(json_get j "$(inp fb_full why)")" = "no count given for it"
'

test_expect_success 'model eval: the remote chaser ranks locality first (25.9 %), LLC contention 0, the budget measured' '
	near j "round($(fac j locality cost_pct), 2)" 25.92 &&
	near j "$(fac j llc cost_pct)" 0 &&
	test "$(json_get j "j[\"vcpu\"][\"cost\"][\"anchor\"]")" = "measured" &&
	near j "round(j[\"vcpu\"][\"cost\"][\"budget_pct\"], 2)" 97.12 &&
	test "$(json_get j "$(fac j locality cost_quality)")" = "measured" &&
	json_get j "$(fac j imc cost_why)" | grep -q "the calibration has no loaded-latency points"
'

test_expect_success 'model eval text: every factor with score, severity, cost and quality; remainder and budget' '
	vmmprof model eval skx --root "$R/skx-2s" --counts "$TRASH/chaser.json" $CAL >t &&
	grep_q "^  locality  *0.6 critical  measured  *6.22[0-9e+]* *25.9[0-9]*  measured" t &&
	grep_q "^  remainder " t &&
	grep_q "^  budget: 2.33[0-9e+]* cycles (97.12% of cycles), measured" t &&
	grep_q "^unused counts:" t &&
	grep_q "chaser.json:15:[0-9]*: .no_such_event.: it does not resolve" t
'

test_expect_success 'model eval --perf-csv: perf stat -x, output, <not counted> n/a, msec task-clock back to ns' '
	cat >perf.csv <<-CSV &&
	# started on Tue Dec  1 12:00:00 2026

	2400000000,,cycles,1000000000,100.00,,
	1000.00,msec,task-clock,1000000000,100.00,1.000,CPUs utilized
	1000000000,,instructions,1000000000,100.00,0.42,insn per cycle
	3200000,,MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM,1000000000,100.00,,
	4800000,,r02d3,1000000000,100.00,,
	<not counted>,,r04d3,0,0.00,,
	<not supported>,,CYCLE_ACTIVITY:STALLS_L3_MISS,0,100.00,,
	1000000000,ns,duration_time,1000000000,100.00,,
	CSV
	vmmprof model eval skx --root "$R/skx-2s" --perf-csv perf.csv --ghz 2.4 $CAL --json >p &&
	near p "j[\"duration_s\"]" 1 &&
	near p "$(inp tclk value)" 1e9 &&
	near p "$(inp rem_dram value)" 4.8e6 &&
	json_get p "$(inp rem_hitm why)" | grep -q "perf: <not counted>" &&
	json_get p "$(inp stall_l3 why)" | grep -q "perf: <not supported>" &&
	test "$(json_get p "len(j[\"unused\"])")" = 0 &&
	test "$(json_get p "j[\"vcpu\"][\"cost\"][\"anchor\"]")" = "estimated"
'

test_expect_success 'model eval --perf-csv: a line that is not perf output is an error at its line' '
	printf "1,,cycles,1,100,,\nhello\n" >bad.csv &&
	expect_exit 1 vmmprof model eval skx --root "$R/skx-2s" --perf-csv bad.csv --duration 1 2>err &&
	grep_q "bad.csv:2: not a line of .perf stat -x,." err
'

test_expect_success 'model eval: a bad counts file is an error at file:line:col' '
	printf "{\"duration_s\": 1,\n \"counts\": {\"cycles\": \"many\"}}\n" >bad.json &&
	expect_exit 1 vmmprof model eval skx --counts bad.json 2>err &&
	grep_q "bad.json:2:23: the count of .cycles. must be a number or null" err &&
	printf "{\"duration_s\": 1, \"counts\": {}, \"colour\": 1}\n" >bad2.json &&
	expect_exit 1 vmmprof model eval skx --counts bad2.json 2>err &&
	grep_q "bad2.json:1:43: unknown member .colour." err &&
	printf "{\"counts\": {\"cycles\": 1}}\n" >nod.json &&
	expect_exit 1 vmmprof model eval skx --counts nod.json 2>err &&
	grep_q "no duration" err &&
	printf "{\"duration_s\": 1, \"counts\": {\n" >trunc.json &&
	expect_exit 1 vmmprof model eval skx --counts trunc.json 2>err &&
	grep_q "trunc.json:2:1:" err
'

test_expect_success 'model eval: usage errors' '
	expect_exit 2 vmmprof model eval skx 2>err &&
	grep_q "needs --counts FILE or --perf-csv FILE" err &&
	expect_exit 2 vmmprof model eval skx --counts "$TRASH/chaser.json" --row socket 2>err &&
	grep_q "vcpu or node" err &&
	expect_exit 1 vmmprof model eval skx --counts "$TRASH/chaser.json" --set cal.bogus=1 2>err &&
	grep_q "unknown calibration value .cal.bogus." err &&
	expect_exit 1 vmmprof model eval skx --counts "$TRASH/chaser.json" --set "#row_nodes=2" 2>err &&
	grep_q "#row_nodes. is the row" err
'

test_expect_success 'model eval --row node: the counts are a node row, its bandwidth and queueing shown' '
	printf "{\"duration_s\": 1, \"counts\": {\"uncore_imc/event=0x04,umask=0x03/\": 1.5625e9, \"uncore_imc/event=0x04,umask=0x0c/\": 0}}\n" >node.json &&
	vmmprof model eval skx --root "$R/skx-2s" --counts node.json --row node $CAL --set cal.loaded=0:89,50:95,80:120,100:180 --json >n &&
	near n "[m[\"value\"] for m in j[\"node\"][\"metrics\"] if m[\"name\"]==\"mem_bw\"][0]" 100 &&
	near n "round(j[\"node\"][\"state\"][\"imc_delay_ns\"], 6)" 91
'

test_expect_success 'Zen 3, idle machine, 50 % remote chaser: the queue cost is n/a, not the locality cost again' '
	python3 "$GEN" --model zen3 ghz=3.0 dram_local=4e6 dram_remote=4e6 lat_local=90 lat_remote=140 >z.json &&
	vmmprof model eval zen3 --root "$R/zen3-2s" --counts z.json --set cal.lat_local_ns=90 --set cal.lat_remote_ns=140 --set cal.peak_bw_gbs=150 --json >zj &&
	near zj "round($(fac zj locality cost_pct), 6)" 20 &&
	test "$(json_get zj "$(fac zj queue cost_pct)")" = "None" &&
	json_get zj "$(fac zj queue cost_why)" | grep -q "no residency of the shared request trackers" &&
	test "$(json_get zj "$(fac zj locality cost_quality)")" = "estimate"
'

# Invariants on random physics, every model the generator knows (a fixed seed: the same
# counts every run): no negative cost, costs + remainder <= budget <= cycles; more remote
# accesses never lower the locality cost, more co-runner misses never lower LLC contention.
test_expect_success 'invariants on 8 random scenarios per model, and monotonicity' '
	cat >inv.py <<-PY &&
	import importlib.util, json, random, subprocess, sys
	gen, vm, root = sys.argv[1], sys.argv[2], sys.argv[3]
	spec = importlib.util.spec_from_file_location("gen_counts", gen)
	G = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(G)
	roots = {"skx": "skx-2s", "icx": "icx-2s", "spr": "spr-2s", "zen2": "zen2-2s",
	         "zen3": "zen3-2s", "zen4": "zen4-2s", "neoverse-n1": "arm-n1"}
	cal = ["--set", "cal.lat_local_ns=89", "--set", "cal.lat_remote_ns=143",
	       "--set", "cal.peak_bw_gbs=105", "--set", "cal.lat_c2c_local_ns=50",
	       "--set", "cal.lat_c2c_remote_ns=114", "--set", "cal.lat_llc_ns=20",
	       "--set", "cal.loaded=0:89,50:95,80:120,100:180"]
	def ev(model, params):
	    p, x, c, n = G.generate(model, params)
	    doc = {"duration_s": p["duration"], "cpu_ghz": p["ghz"], "counts": c, "node_counts": n}
	    if p["extra_miss"] > 0:
	        doc["solo_mpki"] = x["solo"]
	    json.dump(doc, open("c.json", "w"))
	    out = subprocess.run([vm, "model", "eval", model, "--root", root + "/" + roots[model],
	                          "--counts", "c.json", "--json"] + cal,
	                         check=True, capture_output=True, text=True).stdout
	    return json.loads(out)["vcpu"]
	def cost(row, f):
	    return [x["cost_cycles"] for x in row["factors"] if x["factor"] == f][0]
	rnd = random.Random(15)
	bad = 0
	for model in roots:
	    for i in range(8):
	        p = {"dram_local": rnd.choice([0, rnd.uniform(0, 3e7)]),
	             "dram_remote": rnd.choice([0, rnd.uniform(0, 3e7)]),
	             "hitm_remote": rnd.choice([0, rnd.uniform(0, 5e6)]),
	             "hitm_local": rnd.choice([0, rnd.uniform(0, 5e6)]),
	             "l3_hit": rnd.choice([0, rnd.uniform(0, 5e7)]),
	             "extra_miss": rnd.choice([0, rnd.uniform(0, 1e7)]),
	             "mlp": rnd.uniform(1, 12), "busy": rnd.uniform(0.05, 1),
	             "node_bw": rnd.uniform(0, 104), "q_local": rnd.uniform(0, 90),
	             "tracker_extra": rnd.choice([0, rnd.uniform(0, 100)]),
	             "mem_other_stall": rnd.uniform(0, 0.3)}
	        row = ev(model, p)
	        cyc, c = row["cycles"], row["cost"]
	        costs = [x["cost_cycles"] for x in row["factors"] if x["cost_cycles"] is not None]
	        tot = sum(costs) + (c["remainder_cycles"] or 0)
	        b = c["budget_cycles"]
	        eps = 1e-9 * cyc   # a cost of -3e-8 cycles is a rounding of 0 (reported)
	        ok = all(x >= -eps for x in costs) and (c["remainder_cycles"] or 0) >= -eps and \
	             (b is None or (tot <= b * (1 + 1e-9) + 1e-6 and b <= cyc * (1 + 1e-9)))
	        # more remote accesses never lower the locality cost
	        q = dict(p); q["dram_remote"] = p["dram_remote"] * 1.5 + 1e6
	        l0, l1 = cost(row, "locality"), cost(ev(model, q), "locality")
	        if l0 is not None and l1 is not None and l1 < l0 * (1 - 1e-9):
	            ok = False; print("locality fell", model, p, l0, l1)
	        # more co-runner misses never lower LLC contention
	        q = dict(p); q["extra_miss"] = p["extra_miss"] * 1.5 + 1e6
	        c0, c1 = cost(row, "llc"), cost(ev(model, q), "llc")
	        if c0 is not None and c1 is not None and c1 < c0 * (1 - 1e-9):
	            ok = False; print("llc fell", model, p, c0, c1)
	        if not ok:
	            bad += 1
	            print("FAIL", model, p, json.dumps(row["cost"]), costs)
	print("invariants: %d failed" % bad)
	sys.exit(1 if bad else 0)
	PY
	python3 inv.py "$GEN" "$VMMPROF" "$R" >out || { cat out; exit 1; }
	grep_q "invariants: 0 failed" out
'

test_done
