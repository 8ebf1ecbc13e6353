#!/bin/sh
# t9106-diagnose-file-incarnations.sh - diagnose FILE tells the incarnations of
# a VM restarted under its name apart in every table, by pid (issue 20)
. "$(dirname "$0")/lib.sh"

synth="$VP_HELPERS/rec_synth"
if [ ! -x "$synth" ]; then
	test_skip 'incarnations in diagnose FILE' 'VP_HELPERS/rec_synth is not built'
	test_done
	exit $?
fi

# rec_synth churn: vm1 runs as pid 42 in frames 0-3, then as pid 43 in
# frames 4-7; vm2 (pid 77) lives in frame 2 alone.  Frame k has a locality
# score of k / 100 on every row, so pid 42 means (0 + 1 + 2 + 3) / 4 / 100
# = 0.015 and vm2 0.02.
test_expect_success 'per-VM tables name each incarnation with its pid, a VM without a twin without' '
	"$synth" r.vmmdb 8 2 churn >/dev/null &&
	vmmprof diagnose r.vmmdb >out 2>err &&
	sed -n "/^Factor cost per VM/,/^\$/p" out >cost &&
	grep_q "^  vm1 \[pid 42\]  *2  *s0.015p " cost &&
	grep_q "^  vm1 \[pid 43\]  *2 " cost &&
	grep_q "^  vm2  *1  *s0.02p " cost &&
	sed -n "/^Memory per node/,/^\$/p" out >mem &&
	grep_q "^  vm1 \[pid 42\]  " mem &&
	grep_q "^  vm1 \[pid 43\]  " mem &&
	test "$(grep -c "^  vm2  " mem)" = 1
'

test_done
