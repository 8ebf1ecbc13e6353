#!/bin/sh
# t9107-report-select.sh - report --vm NAME and --from/--to select VMs and a time window in
# every form (text, CSV, JSON, HTML) and in the diagnosis (issue 23)
. "$(dirname "$0")/lib.sh"

synth="$VP_HELPERS/rec_synth"
if [ ! -x "$synth" ]; then
	test_skip 'report selections' 'VP_HELPERS/rec_synth is not built'
	test_done
	exit $?
fi

# rec_synth churn, 8 frames of 1 s: frame k ends at t_ns = (k + 1) s, so the
# recording starts at 0 and frame k covers (k, k + 1] s.  vm1 is pid 42 in
# frames 0-3 and pid 43 in frames 4-7; vm2 (pid 77, one vCPU) is in frame 2
# alone.  Frame k has a locality score of k / 100.
cd "$TRASH" && "$synth" r.vmmdb 8 2 churn >/dev/null

test_expect_success '--vm vm2: only its rows, only the interval it lived in, in text and CSV' '
	vmmprof report --vm vm2 r.vmmdb >out 2>err &&
	grep_q "^selected: 1 interval; VMs vm2" out &&
	sed -n "/^Timeline/,/^\$/p" out >tl &&
	test "$(grep -c "^ *3.0  vm2" tl)" = 2 &&
	! grep -q "vm1" tl &&
	grep_q "^vmmprof diagnose: recording .* (.*, 1 intervals, 1.0 s)" out &&
	vmmprof report --csv --vm vm2 r.vmmdb >c.csv &&
	test "$(tail -n +2 c.csv | cut -d, -f1,5 | sort -u | tr "\n" " ")" = "2,vm2 "
'

test_expect_success '--from 2 --to 4: the intervals overlapping (2, 4) s, every VM in them' '
	vmmprof report --from 2 --to 4 r.vmmdb >out &&
	grep_q "^selected: 2 intervals overlapping 2 s .. 4 s" out &&
	sed -n "/^Timeline/,/^\$/p" out >tl &&
	test "$(awk "NR > 2 && NF { print \$1 }" tl | sort -u | tr "\n" " ")" = "3.0 4.0 " &&
	grep_q "^ *3.0  vm2 \[pid 77\]" tl &&
	grep_q "^vmmprof diagnose: recording .* (.*, 2 intervals, 2.0 s)" out
'

test_expect_success '--vm vm1 --from 5 in JSON: frames 5-7, all of the second incarnation' '
	vmmprof report --json --vm vm1 --from 5 r.vmmdb >j &&
	test "$(json_get j "[f[\"t_ns\"] // 10**9 for f in j[\"intervals\"]]")" = "[6, 7, 8]" &&
	test "$(json_get j "sorted(set((r[\"vm\"], r[\"pid\"]) for f in j[\"intervals\"] for r in f[\"rows\"] if r[\"kind\"] == \"vm\"))")" = \
		"[('"'"'vm1'"'"', 43)]"
'

test_expect_success '--html --vm vm2: one VM series' '
	vmmprof report --html h.html --vm vm2 r.vmmdb 2>err &&
	test "$(grep -c "<g class=\"vm\"" h.html)" = 1 &&
	grep_q "<g class=\"vm\" data-key=\"vm:kvm:77\"" h.html
'

test_expect_success 'a name the recording does not have, a bad window: errors that say so' '
	expect_exit 1 vmmprof report --vm nosuch r.vmmdb >out 2>err &&
	grep_q "no VM named .nosuch. in .r.vmmdb." err &&
	expect_exit 1 vmmprof report --csv --vm nosuch r.vmmdb >out 2>err &&
	grep_q "no VM named .nosuch." err &&
	expect_exit 2 vmmprof report --from soon r.vmmdb >out 2>err &&
	grep_q "\-\-from takes seconds" err &&
	expect_exit 2 vmmprof report --from 4 --to 2 r.vmmdb >out 2>err &&
	grep_q "\-\-to 2 is not after \-\-from 4" err
'

test_done
