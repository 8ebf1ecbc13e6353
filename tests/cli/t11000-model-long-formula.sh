#!/bin/sh
# t11000-model-long-formula.sh - a formula too long for the stack is an error at file:line:col, not a crash
. "$(dirname "$0")/lib.sh"

# a model around one metric line; every factor bound so only the formula can fail
model_with() {
	printf 'model t\nmatch software\nevent tclk = task-clock\nmetric a = %s\n' "$1"
	for f in locality llc sharing imc queue; do
		printf 'factor %s unavailable "none"\n' "$f"
	done
}

test_expect_success 'a chain of 100000 additions: an error naming file:line:col, exit 1' '
	model_with "$(python3 -c "print(\"+\".join([\"tclk\"] * 100000))")" >long.model &&
	expect_exit 1 vmmprof model check --parse-only long.model 2>err &&
	grep_q "^long.model:4:[0-9]*: error: expression too long" err
'

test_expect_success 'the error is at the operator past the limit (1000 operators)' '
	# "metric a = " is 11 columns; each "1+" 2: operator k (from 1) is at column 11 + 2k
	model_with "$(python3 -c "print(\"+\".join([\"1\"] * 1002))")" >over.model &&
	expect_exit 1 vmmprof model check --parse-only over.model 2>err &&
	grep_q "^over.model:4:2013: error: expression too long (more than 1000 operators" err
'

test_expect_success 'a chain of 1000 operators (the limit) and long products are still models' '
	model_with "$(python3 -c "print(\"+\".join([\"1\"] * 1001))")" >ok.model &&
	vmmprof model check --parse-only ok.model &&
	model_with "$(python3 -c "print(\"*\".join([\"2\"] * 400) + \" < 1 if 1 else 0\")")" >mul.model &&
	vmmprof model check --parse-only mul.model
'

test_expect_success 'stat -m with such a model stops with the same error, exit 1, no crash' '
	model_with "$(python3 -c "print(\"-\".join([\"tclk\"] * 60000))")" >neg.model &&
	expect_exit 1 vmmprof stat -m ./neg.model -- true 2>err &&
	grep_q "neg.model:4:[0-9]*: error: expression too long" err
'

test_done
