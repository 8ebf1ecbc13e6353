#!/bin/sh
# t8006-bench-queue-cores.sh - bench queue's shared-tracker scenario: k chains on
# each of 1..n CPUs of one package at once.  Two CPUs cannot show a knee (that
# takes more cores than the socket's trackers serve: docs/bench.md), so this checks
# what the run must state whatever the machine: every core count from 1 up, each
# core's misses and latency measured, the total the sum of the cores', no tracker
# count without a model (n/a with the reason), and a knee only from 3 core counts.
. "$(dirname "$0")/lib.sh"

test_expect_success 'bench queue --json: the cores scenario, its points and notes' '
	vmmprof bench queue --quick --time 1 --json -q >r.json &&
	c="j[\"scenarios\"][\"queue\"][\"cores\"]" &&
	test "$(json_get r.json "$c[\"points\"][0][\"cores\"]")" = 1 &&
	test "$(json_get r.json "all(b[\"cores\"] > a[\"cores\"] for a, b in zip($c[\"points\"], $c[\"points\"][1:]))")" = True &&
	test "$(json_get r.json "all(p[\"misses_per_us_per_core\"] > 0 and p[\"ns_per_miss\"] > 0 for p in $c[\"points\"])")" = True &&
	test "$(json_get r.json "all(abs(p[\"misses_per_us\"] - p[\"cores\"] * p[\"misses_per_us_per_core\"]) <= 1e-9 * p[\"misses_per_us\"] for p in $c[\"points\"])")" = True &&
	test "$(json_get r.json "all(p[\"tracker_full\"] is None for p in $c[\"points\"])")" = True &&
	json_get r.json "$c[\"tracker_note\"]" >tn && grep_q "not counted" tn &&
	test "$(json_get r.json "$c[\"k\"] >= 1")" = True
'

test_expect_success 'a knee only from three core counts; fewer say why' '
	c="j[\"scenarios\"][\"queue\"][\"cores\"]" &&
	n=$(json_get r.json "len($c[\"points\"])") &&
	if [ "$n" -lt 3 ]; then
		test "$(json_get r.json "$c[\"knee_cores\"]")" = None &&
		json_get r.json "$c[\"note\"]" >note && grep_q "needs at least 3" note
	else
		test "$(json_get r.json "$c[\"knee_cores\"] is not None or \"no knee\" in ($c[\"note\"] or \"\")")" = True
	fi
'

test_expect_success 'the text report: the table, the knee line and the bound statement' '
	vmmprof bench queue --quick --time 1 -q >q.txt &&
	grep_q "queue: shared trackers, [0-9]* chains on each of 1..n CPUs of package" q.txt &&
	grep_q "misses/us per core" q.txt &&
	grep_q "trackers full: not counted" q.txt &&
	grep_q "bound: [0-9]* chains on each of CPUs" q.txt
'

# The counting path, with a stand-in: a user model whose queue_full_frac is its node's
# cpu-clock (which counts on every CPU, idle or not) over the frame's duration x the
# CPUs, so 1.0 on a one-node machine whatever runs.  It shows that each point's count
# comes from the node row of the first CPU's node over the point's measured window.
mkdir -p "$TRASH/xdg/vmmprof/models"
cat >"$TRASH/xdg/vmmprof/models/qtest.model" <<'MODEL'
model qtest
description "test: a node software event standing in for a tracker-full count"
match software
include software
event nclk = cpu-clock node
metric queue_full_frac = nclk / (duration * 1e9) / #num_cpus
MODEL
if XDG_CONFIG_HOME="$TRASH/xdg" vmmprof model list 2>/dev/null | grep -q '^\* *qtest ' &&
   [ "$(vmmprof info --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["topology"]["nodes"]))' 2>/dev/null)" = 1 ]; then
	test_expect_success 'with a model that counts it, the trackers-full column is the node row'"'"'s value' '
		XDG_CONFIG_HOME="$TRASH/xdg" vmmprof bench queue --quick --time 1 --json -q >c.json &&
		c="j[\"scenarios\"][\"queue\"][\"cores\"]" &&
		test "$(json_get c.json "all(0.9 <= p[\"tracker_full\"] <= 1.1 for p in $c[\"points\"])")" = True &&
		test "$(json_get c.json "$c[\"tracker_note\"]")" = None
	'
else
	test_skip 'the trackers-full column from a counting model' \
		'the stand-in model is not the one chosen here (a hardware model matches), or more than one node'
fi

test_done
