#!/bin/sh
# t8000-bench-usage.sh - bench, calibrate and probe: usage errors and help
. "$(dirname "$0")/lib.sh"

test_expect_success 'bench without a scenario: usage error, exit 2' '
	expect_exit 2 vmmprof bench 2>err && grep_q "which scenario" err
'

test_expect_success 'bench with an unknown scenario names it, exit 2' '
	expect_exit 2 vmmprof bench frob 2>err && grep_q "unknown scenario .frob." err
'

test_expect_success 'bench rejects a bad --time and an unknown --isa' '
	expect_exit 2 vmmprof bench latency --time -1 2>err && grep_q "time wants seconds" err &&
	expect_exit 2 vmmprof bench latency --time x 2>err && grep_q "time wants seconds" err &&
	expect_exit 2 vmmprof bench bandwidth --isa mmx 2>err && grep_q "unknown --isa .mmx." err
'

test_expect_success 'bench, calibrate and probe reject unknown options' '
	expect_exit 2 vmmprof bench latency --frob 2>err && grep_q "unknown option" err &&
	expect_exit 2 vmmprof calibrate --frob 2>err && grep_q "unknown option" err &&
	expect_exit 2 vmmprof probe --frob 2>err && grep_q "unknown option" err &&
	expect_exit 2 vmmprof probe extra 2>err && grep_q "unexpected argument" err
'

test_expect_success 'help pages name every scenario' '
	vmmprof help bench >h &&
	for s in latency bandwidth llc sharing imc queue; do grep_q "^  $s " h || return 1; done
'

test_done
