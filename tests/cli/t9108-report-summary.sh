#!/bin/sh
# t9108-report-summary.sh - the text report of a long recording is a summary, one row per entity
# (its intervals, first and last t, mean cycles and factor values), --timeline prints every
# interval and --summary asks for the summary of a short one (issue 23)
. "$(dirname "$0")/lib.sh"

synth="$VP_HELPERS/rec_synth"
if [ ! -x "$synth" ]; then
	test_skip 'report summaries' 'VP_HELPERS/rec_synth is not built'
	test_done
	exit $?
fi

# rec_synth lifecycle, 200 frames of 1 s, 2 vCPUs: frame k ends at k + 1 s with a locality score
# of (k % 100) / 100.  vm1 is pid 42 in frames 0-99 (ended in 99): mean (0 + ... + 0.99) / 100 =
# 0.495; vm2 (pid 77) lives in frame 50 alone (ended there): 0.5; vm1 pid 43 in frames 100-199,
# paused from frame 150 (a paused row is not rated): mean over frames 100-149 of 0 .. 0.49 = 0.245.
cd "$TRASH" && "$synth" lc.vmmdb 200 2 lifecycle >/dev/null && "$synth" s.vmmdb 8 2 churn >/dev/null

test_expect_success '200 intervals: a summary by default, one row per entity, values by hand' '
	vmmprof report lc.vmmdb >out 2>err &&
	grep_q "^Summary of 200 intervals" out &&
	! grep -q "^Timeline" out &&
	# the p: models/software.model binds locality with quality = proxy
	grep_q "^  vm1 \[pid 42\]  *100  *1.0  *100.0  *2e+08  *s0.495p .* ended\$" out &&
	grep_q "^  vm2 \[pid 77\]  *1  *51.0  *51.0  *2e+08  *s0.5p .* ended\$" out &&
	grep_q "^  vm1 \[pid 43\]  *100  *101.0  *200.0  *2e+08  *s0.245p .* paused in 50\$" out &&
	test "$(sed -n "/^Summary/,/^\$/p" out | grep -c "vCPU")" = 5 &&
	grep_q "^vmmprof diagnose: recording .* (.*, 200 intervals, 200.0 s)" out
'

test_expect_success '--timeline: every interval of every entity' '
	vmmprof report --timeline lc.vmmdb >out 2>err &&
	grep_q "^Timeline" out && ! grep -q "^Summary" out &&
	# 100 + 1 + 100 VM rows, each with its 2 or 1 vCPU rows: 300 + 2 + 300
	test "$(sed -n "/^Timeline/,/^\$/p" out | grep -c "^ *[0-9.]*  vm[12]")" = 602
'

test_expect_success 'short recordings: the timeline by default, --summary on request' '
	vmmprof report s.vmmdb >out &&
	grep_q "^Timeline" out &&
	vmmprof report --summary s.vmmdb >out &&
	grep_q "^Summary of 8 intervals" out &&
	grep_q "^  vm1 \[pid 42\]  *4  *1.0  *4.0 " out &&
	vmmprof report --summary --vm vm2 s.vmmdb >out &&
	grep_q "^Summary of 1 intervals" out &&
	test "$(sed -n "/^Summary/,/^\$/p" out | grep -c "vm1")" = 0
'

test_expect_success '--summary or --timeline with another form is a usage error' '
	expect_exit 2 vmmprof report --summary --json s.vmmdb >out 2>err &&
	grep_q "views of the text report" err &&
	expect_exit 2 vmmprof report --timeline --html x.html s.vmmdb >out 2>err &&
	test ! -e x.html
'

test_done
