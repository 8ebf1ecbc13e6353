#!/bin/sh
# t1005-coverage-model.sh - info's factor coverage is what `model list/show/check --root` say, on every fixture
#
# One source of truth: the coverage table is read off the model that
# `model list` marks for the machine, checked as `model check` checks it.
# For each fixture tree, the three commands must agree factor by factor and
# input by input (the expected values are the other commands' own, which do
# not share the coverage code: model_show_json() and model check's count).
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root

cat >"$TRASH/agree.py" <<'PY'
import json, sys
info, lst, show, check = (json.load(open(f)) for f in sys.argv[1:5])
check_line = open(sys.argv[5]).read()
cov = info["coverage"]
bad = []
if cov["model"] != lst["chosen"]:
    bad.append("model %r, model list chose %r" % (cov["model"], lst["chosen"]))
inputs = {i["name"]: i for i in show["inputs"]}
n_ok = 0
for row, f in zip(cov["factors"], show["factors"]):
    name = f["factor"]
    if row["factor"] != name:
        bad.append("factor order: %s against %s" % (row["factor"], name))
        continue
    ok = row["quality"] != "unavailable"
    n_ok += ok
    if ok != bool(f["available"]):
        bad.append("%s: info says %s, model show says available=%s (%s)"
                   % (name, row["quality"], f["available"], f["reason"]))
    if row["model_quality"] != f["quality"]:
        bad.append("%s: model_quality %s, the model says %s" % (name, row["model_quality"], f["quality"]))
    if ok and row["quality"] != f["quality"]:
        bad.append("%s: quality %s, the model says %s" % (name, row["quality"], f["quality"]))
    if not ok and (not f["reason"] or f["reason"] not in (row["note"] or "")):
        bad.append("%s: note %r lacks model show's reason %r" % (name, row["note"], f["reason"]))
    if not ok and not row["instead"]:
        bad.append("%s: unavailable and nothing instead" % name)
    if (f.get("score") or None) != (row["score"] or None):
        bad.append("%s: score %r, the model's %r" % (name, row["score"], f.get("score")))
    for i in row["reads"]:
        s = inputs.get(i["name"])
        if not s:
            bad.append("%s: reads %s, which the model does not define" % (name, i["name"]))
        elif s["spec"] != i["spec"] or bool(s["available"]) != i["present"]:
            bad.append("%s: %s %s present=%s; model show: %s available=%s"
                       % (name, i["name"], i["spec"], i["present"], s["spec"], s["available"]))
        elif not i["present"] and i["reason"] != s["reason"]:
            bad.append("%s: %s reason %r, model show %r" % (name, i["name"], i["reason"], s["reason"]))
    if f.get("score") and not row["reads"]:
        bad.append("%s: a score that reads nothing" % name)
# cost terms: the model's, as model show lists them; the anchor as model check warns
terms = [(t["term"], t["formula"]) for t in cov["costs"]["terms"]]
if terms != [(t["term"], t["formula"]) for t in show["cost_terms"]]:
    bad.append("cost terms %r, model show %r" % (terms, show["cost_terms"]))
for t in cov["costs"]["terms"]:
    if not t["present"] and not t["reason"]:
        bad.append("cost %s absent without a reason" % t["term"])
if "no cost terms" in check_line and cov["costs"]["anchor"] != "none":
    bad.append("model check: no cost terms; info: anchor %s" % cov["costs"]["anchor"])
if "costs are estimates" in check_line and cov["costs"]["anchor"] == "measured":
    bad.append("model check: no stall count; info: anchor measured")
# a model with an error here (a fixture whose PMU lacks a format field) fails
# its check, which then counts no factors: model show's are compared above
if "FAILED" not in check_line and (" %d of 5 factors available;" % n_ok) not in check_line:
    bad.append("model check says %r, info has %d available" % (check_line.strip(), n_ok))
print("\n".join(bad) if bad else "agree")
sys.exit(1 if bad else 0)
PY

for t in $(cd "$R" && ls -d */ | tr -d /); do
	test_expect_success "$t: info's coverage is model list's choice as model show and model check see it" '
		vmmprof info --root "$R/'"$t"'" --json >info.json &&
		vmmprof model list --root "$R/'"$t"'" --json >list.json &&
		m=$(json_get list.json "j[\"chosen\"]") &&
		vmmprof model show --root "$R/'"$t"'" --json "$m" >show.json &&
		{ vmmprof model check --root "$R/'"$t"'" "$m" >check.out 2>/dev/null || :; } &&
		python3 agree.py info.json list.json show.json list.json check.out
	'
done

# models/skx.model: score tracker_full_frac = max(rpq_full, wpq_full) / imc_clk
test_expect_success 'the skx queue factor is the skx model'"'"'s: the IMC pending queues full, per node' '
	vmmprof info --root "$R/skx-2s" >out &&
	grep -A8 "^  queue" out >q &&
	grep_q "^  queue *apportioned *model skx (uncore)" q &&
	grep_q "score: tracker_full_frac" q &&
	grep_q "reads  rpq_full = uncore_imc/event=0x12/ .*: uncore_imc, per node" q &&
	grep_q "reads  wpq_full = uncore_imc/event=0x22/ .*: uncore_imc, per node" q &&
	! grep -q "sq_full" q
'

test_expect_success 'costs: skx anchored on its stall counts; neoverse-n1 estimates; the software model none' '
	vmmprof info --root "$R/skx-2s" --json >j &&
	# models/skx.model: cost stall_mem = stall_mem (CYCLE_ACTIVITY:STALLS_MEM_ANY), a core event
	test "$(json_get j "j[\"coverage\"][\"costs\"][\"anchor\"]")" = measured &&
	test "$(json_get j "[t[\"present\"] for t in j[\"coverage\"][\"costs\"][\"terms\"] if t[\"term\"] == \"stall_mem\"][0]")" = True &&
	vmmprof info --root "$R/kvm-guest-vpmu" --json >j &&
	# a guest: node_bw_gbs reads uncore_imc CAS counts, which it lacks
	json_get j "[t[\"reason\"] for t in j[\"coverage\"][\"costs\"][\"terms\"] if t[\"term\"] == \"node_bw_gbs\"][0]" |
		grep -q "no PMU .uncore_imc. here" &&
	vmmprof info --root "$R/arm-n1" --json >j &&
	# models/neoverse-n1.model binds dram_local, dram_remote, llc_miss, instr and no stall
	# term; models/arm-cmn.inc the CMN home nodes retry share as tracker_full
	test "$(json_get j "j[\"coverage\"][\"costs\"][\"anchor\"]")" = estimated &&
	test "$(json_get j "\",\".join(t[\"term\"] for t in j[\"coverage\"][\"costs\"][\"terms\"])")" = \
		dram_local,dram_remote,llc_miss,instr,tracker_full &&
	vmmprof info --root "$R/kvm-guest-novpmu" >out &&
	grep_q "^  costs: none: the model binds no cost terms" out
'

test_expect_success 'no PMU (kvm-guest-novpmu, xen-pv-dom0, local): the software model, and info says why' '
	for t in kvm-guest-novpmu xen-pv-dom0 local; do
		vmmprof info --root "$R/$t" --json >j &&
		test "$(json_get j "j[\"coverage\"][\"model\"]")" = software &&
		json_get j "j[\"coverage\"][\"chosen_by\"]" | grep -q "^software (.*); no core PMU: " &&
		test "$(json_get j "j[\"coverage\"][\"core_table\"]")" = None || { echo "$t"; return 1; }
	done
'

test_expect_success '--model-path: a model of ours chosen before the built-in ones changes the table' '
	mkdir mp &&
	cat >mp/mine.model <<-\EOM &&
	model mine
	match cpu intel family 6 model 0x55
	event tclk = task-clock
	metric busy = tclk / duration
	factor locality
	    score = busy
	    warning = 1
	    critical = 2
	    quality = proxy
	factor llc unavailable "not mine"
	factor sharing unavailable "not mine"
	factor imc unavailable "not mine"
	factor queue unavailable "not mine"
	EOM
	vmmprof info --root "$R/skx-2s" --model-path "$TRASH/mp" --json >j &&
	test "$(json_get j "j[\"coverage\"][\"model\"]")" = mine &&
	test "$(json_get j "\",\".join(f[\"quality\"] for f in j[\"coverage\"][\"factors\"])")" = \
		proxy,unavailable,unavailable,unavailable,unavailable &&
	test "$(json_get j "j[\"coverage\"][\"factors\"][1][\"note\"]")" = "model mine: not mine"
'

test_done
