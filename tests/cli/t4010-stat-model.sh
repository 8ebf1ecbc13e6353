#!/bin/sh
# t4010-stat-model.sh - vmmprof stat -m MODEL and the automatic model: metrics from live
# counts against values known from the workload, factors with reasons, --raw, -I, --json
. "$(dirname "$0")/lib.sh"

W=$VP_HELPERS/workload
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME
no_core_pmu() { ! ls /sys/bus/event_source/devices/ 2>/dev/null | grep -qE '^(cpu|cpu_core|cpu_atom|armv[0-9].*)$'; }

# A model of our own over software events, so the expected values follow
# from what the workload does: it touches 3000 new pages (>= 3000 faults)
# and burns 200 ms of CPU in one thread.
cat >"$TRASH/pf.model" <<\MODEL
model pf
description "page faults and CPU time of a known workload"
include software
event pf = page-faults
metric kfaults = pf / 1000                     "thousands of page faults"
metric cpu_ms [ms] = tclk / 1e6
metric faults_per_cpu_ms = d_ratio(pf, tclk / 1e6)
MODEL

test_expect_success '-m FILE: metrics of a user model from live counts' '
	vmmprof stat -m "$TRASH/pf.model" --json -o - -- "$W" --pages 3000 --cpu-ms 200 >j 2>err &&
	vmmprof stat -m "$TRASH/pf.model" --json -o - -- "$W" --pages 0 >j0 2>err &&
	test "$(json_get j "j[\"type\"]")" = model-summary &&
	test "$(json_get j "j[\"model\"]")" = pf &&
	kf=$(json_get j "[m[\"value\"] for m in j[\"metrics\"] if m[\"name\"] == \"kfaults\"][0]") &&
	kf0=$(json_get j0 "[m[\"value\"] for m in j[\"metrics\"] if m[\"name\"] == \"kfaults\"][0]") &&
	ms=$(json_get j "[m[\"value\"] for m in j[\"metrics\"] if m[\"name\"] == \"cpu_ms\"][0]") &&
	python3 -c "import sys; kf, kf0, ms = map(float, sys.argv[1:]);
assert 2.7 <= kf - kf0 <= 3.5, (kf, kf0)  # 3000 more pages touched than the run without
assert 180 <= ms < 600, ms                # 200 ms burnt (a loaded machine adds some)" "$kf" "$kf0" "$ms"
'

test_expect_success '-m: the table names every factor, unavailable ones with the reason' '
	vmmprof stat -m software -- "$W" --cpu-ms 50 2>err &&
	grep_q "^ Model .software. for .*workload --cpu-ms 50. (named with -m):" err &&
	grep_q "^   cpu_util  " err &&
	grep_q "^   llc  *n/a  *unavailable .*LLC misses need a core PMU" err &&
	grep_q "^   queue  *n/a  *unavailable .*request-queue occupancy needs uncore counters" err &&
	! grep -q "Performance counter stats" err
'

test_expect_success '-m: a source with no value for a command is n/a with the reason, never 0' '
	vmmprof stat -m software -- true 2>err &&
	grep_q "wait_frac  *n/a  .*source .wait_ns. unavailable: not for a command stat starts" err
'

test_expect_success '--raw: the counts of the model events, perf layout' '
	vmmprof stat -m "$TRASH/pf.model" --raw -- "$W" --pages 1000 2>err &&
	grep_q "Performance counter stats" err && grep_q "page-faults" err &&
	! grep -q "^ Model " err
'

test_expect_success '-I with -m: one block per interval, CSV rows with the time' '
	vmmprof stat -m "$TRASH/pf.model" -I 200 -x, -- "$W" --cpu-ms 500 2>err &&
	test "$(grep -c ",kfaults$" err)" -ge 2 &&
	grep_q "^[0-9.]*,[0-9.n/a]*,ms,cpu_ms$" err &&
	grep_q "^[0-9.]*,[0-9.n/a]*,unavailable,factor:llc$" err
'

test_expect_success '-I with -m, table: each n/a reason once, numbered; the intervals give its number' '
	vmmprof stat -m software -a -I 200 -- sleep 0.7 2>err &&
	n=$(grep -c "^# [0-9.]* model .software.$" err) && test "$n" -ge 3 &&
	# the software model cannot see llc (models/software.model says why): [k] in every
	# interval, its words once
	k=$(sed -n "s/^   llc  *n\/a  *unavailable  *n\/a  *-  *\[\([0-9]*\)\]\$/\1/p" err | sort -u) &&
	test "$(echo "$k" | wc -l)" = 1 && test -n "$k" &&
	# every interval and the summary at the end
	test "$(grep -c "^   llc  .* \[$k\]\$" err)" = "$((n + 1))" &&
	test "$(grep -c "LLC misses need a core PMU" err)" = 1 &&
	grep_q "^   \[$k\] LLC misses need a core PMU" err
'

test_expect_success 'no -e and no -m: perf default counts, then the model chosen here' '
	vmmprof stat -- true 2>err &&
	grep_q "Performance counter stats for .true." err &&
	grep_q "task-clock" err &&
	grep_q "^ Model .* for .true. (" err
'

if no_core_pmu; then
	test_expect_success 'no PMU here: the automatic model is software' '
		vmmprof stat -- true 2>err && grep_q "^ Model .software. for .true. (software (" err
	'
	test_expect_success '-m vpmu without a PMU: its required cycles are absent here, and it says why' '
		expect_exit 1 vmmprof stat -m vpmu -- true 2>err &&
		grep_q "model .vpmu. cannot run here: event .cyc. (cycles): no core PMU here" err
	'
else
	test_skip 'the automatic model without a PMU is software' 'this machine has a core PMU'
	test_skip '-m vpmu without a PMU' 'this machine has a core PMU'
fi

test_expect_success 'costs need a calibration: n/a, and the note says so' '
	vmmprof stat -m software -- true 2>err &&
	grep_q "note: no calibration: cannot open .*calibration.json" err
'

if [ ! -d /sys/fs/resctrl/mon_data ]; then
	test_expect_success 'a factor whose inputs are absent here is unavailable with the reason, in every format' '
		vmmprof stat -m software --json -o - -- true >j 2>err &&
		json_get j "[(f[\"quality\"], f[\"score\"], f[\"reason\"]) for f in j[\"factors\"] if f[\"factor\"] == \"imc\"][0]" >imc &&
		grep_q "^(.unavailable., None, .source .mbm_total. unavailable" imc &&
		vmmprof stat -m software -- true 2>err &&
		grep "^   imc " err >row && grep_q "unavailable  *n/a  *-  *source .mbm_total. unavailable" row &&
		vmmprof stat -m software -x, -- true 2>err &&
		grep_q "^n/a,unavailable,factor:imc" err
	'
else
	test_skip 'a factor whose inputs are absent here is unavailable' 'this machine has resctrl monitoring (MBM may be present)'
fi

test_expect_success 'errors: unknown model exit 1; --raw without -m exit 2' '
	expect_exit 1 vmmprof stat -m nosuch -- true 2>err && grep_q "no model named .nosuch." err &&
	expect_exit 2 vmmprof stat --raw -- true 2>err && grep_q "raw goes with -m" err
'

test_done
