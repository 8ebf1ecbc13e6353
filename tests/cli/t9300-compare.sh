#!/bin/sh
# t9300-compare.sh - `vmmprof compare BEFORE AFTER`: each VM's measures before and after, the
# change with a bootstrap interval, the advice predicted, and no gain claimed that was not seen
. "$(dirname "$0")/lib.sh"

# rec_synth: frame k of every row has place_rem = (k % 100) / 100, so 10
# frames average 0.045 and 100 frames 0.495: the remote share rose by 0.45,
# with a 95 % interval of about +-0.06 (standard errors 0.0091 and 0.0289).
test_expect_success 'remote share before and after: the change worked by hand, its interval excludes 0' '
	"$VP_HELPERS/rec_synth" before.vmmdb 10 2 >/dev/null &&
	"$VP_HELPERS/rec_synth" after.vmmdb 100 2 >/dev/null &&
	vmmprof compare before.vmmdb after.vmmdb >out &&
	grep_q "^VM vm1 (matched by name)" out &&
	grep -E "^  remote_share +0.045 +0.495 +\+0.45 .* estimate, rose" out &&
	vmmprof compare --json before.vmmdb after.vmmdb >j &&
	python3 -c "
import json
j = json.load(open(\"j\"))
v = j[\"vms\"][0]
r = v[\"measures\"][\"remote_share\"]
assert abs(r[\"before\"] - 0.045) < 1e-9 and abs(r[\"after\"] - 0.495) < 1e-9, r
assert abs(r[\"change\"] - 0.45) < 1e-9, r
assert 0.36 < r[\"lo\"] < 0.42 and 0.48 < r[\"hi\"] < 0.54, r
assert r[\"n_before\"] == 10 and r[\"n_after\"] == 100, r
"
'

test_expect_success 'no instruction count: the gain in time is not claimed, and the reason is given' '
	vmmprof compare before.vmmdb after.vmmdb >out &&
	grep_q "cpi .* n/a .*no cycles-per-instruction metric" out &&
	grep_q "realised: the gain in time cannot be measured" out &&
	vmmprof compare --json before.vmmdb after.vmmdb >j &&
	test "$(json_get j "j[\"vms\"][0][\"realised_cpi_change_pct\"]")" = None
'

test_expect_success 'the same run twice: nothing moved' '
	vmmprof compare before.vmmdb before.vmmdb >out &&
	grep -E "^  remote_share +0.045 +0.045 +\+0 " out &&
	! grep -q "rose\|fell" out
'

# --baseline BASE: AFTER set against a recording of the same VMs without the
# advice.  BASE = the 100-frame run (remote share 0.495), AFTER = the 10-frame
# run (0.045): AFTER is lower by 0.45, every measure is better lower, so the
# advice is better; AFTER = BASE: a change of 0, not distinguishable.
test_expect_success 'compare --baseline: the advice against the VMs left to the kernel, measure by measure' '
	vmmprof compare --baseline after.vmmdb before.vmmdb before.vmmdb >out &&
	grep_q "^baseline: after.vmmdb (model .*, 100 intervals" out &&
	grep_q "^  against the baseline (the same VM without the advice):" out &&
	grep -E "^    remote_share +0.495 +0.045 +-0.45 .* advice better$" out &&
	vmmprof compare --json --baseline after.vmmdb before.vmmdb before.vmmdb >j &&
	python3 -c "
import json
j = json.load(open(\"j\"))
assert j[\"baseline\"] == \"after.vmmdb\" and j[\"baseline_intervals\"] == 100, j
v = j[\"vms\"][0]
assert v[\"in_baseline\"] is True, v
b = v[\"measures\"][\"remote_share\"][\"vs_baseline\"]
assert abs(b[\"baseline\"] - 0.495) < 1e-9 and abs(b[\"change\"] + 0.45) < 1e-9, b
assert b[\"hi\"] < 0 and b[\"verdict\"] == \"advice better\", b
" &&
	vmmprof compare --baseline after.vmmdb before.vmmdb after.vmmdb >out &&
	grep -E "^    remote_share +0.495 +0.495 +\+0 .* not distinguishable$" out &&
	expect_exit 1 vmmprof compare --baseline nosuch.vmmdb before.vmmdb after.vmmdb 2>err &&
	grep_q "nosuch.vmmdb" err
'

test_expect_success 'bad input: one recording, a missing file, a file that is no recording' '
	expect_exit 2 vmmprof compare before.vmmdb 2>err &&
	grep_q "two recordings are needed" err &&
	expect_exit 1 vmmprof compare before.vmmdb nosuch.vmmdb 2>err &&
	grep_q "nosuch.vmmdb" err &&
	echo "not sqlite" >bad.vmmdb &&
	expect_exit 1 vmmprof compare bad.vmmdb before.vmmdb 2>err &&
	grep_q "bad.vmmdb" err
'

test_done
