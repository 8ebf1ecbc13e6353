#!/bin/sh
# t3095-stat-metrics.sh - perf's -M/--metrics and --metric-only on a model's
# metrics: -M prints only the metrics and factors named, an unknown name lists
# the ones the model has (read here from the model file itself); --metric-only
# prints one line of values under a line of names (per interval with -I, CSV
# with -x).  Values: cpu_util is task-clock over wall time (software.model),
# so a sleep is near 0 and a spin on one CPU is above 0 and at most 1.
. "$(dirname "$0")/lib.sh"

MODELS="$(cd "$(dirname "$0")/../.." && pwd)/models"
cd "$TRASH" || exit 1
# the metric names of software.model, in its order, from the file
sed -n "s/^metric \([a-z_]*\).*/\1/p" "$MODELS/software.model" >metrics.want

test_expect_success '-M cpu_util,migr_rate,locality: those rows only, in the tables of -m' '
	vmmprof stat -m software -M cpu_util,migr_rate,locality -- sleep 0.1 2>out &&
	awk "/^   METRIC/ { m = 1; next } /^   FACTOR/ { f = 1; m = 0; next } /^ *\$/ { m = 0; f = 0 } m || f { print \$1 }" out >rows &&
	printf "cpu_util\nmigr_rate\nlocality\n" >want &&
	diff -u want rows
'

test_expect_success '-M without -m: the model chosen for this machine; no default counts table' '
	vmmprof stat -M cpu_util -- sleep 0.1 2>out &&
	grep_q "^   cpu_util " out &&
	! grep -q "msec task-clock" out && ! grep -q "^   FACTOR" out
'

test_expect_success '-M NAME the model lacks: exit 1, every metric of the model listed' '
	expect_exit 1 vmmprof stat -m software -M cpu_util,nope -- true 2>err &&
	test $(wc -l <err) = 1 &&
	grep_q "model .software. has no metric or factor .nope." err &&
	sed "s/.*its metrics: //; s/; its factors.*//" err | tr -d " " | tr "," "\n" >got &&
	diff -u metrics.want got &&
	grep_q "its factors: locality, llc, sharing, imc, queue" err
'

test_expect_success '-M: an empty name, with -r, --raw, --per-thread or -A: usage errors' '
	expect_exit 2 vmmprof stat -M "a,,b" -- true 2>err && grep_q "metric names separated by commas" err &&
	expect_exit 2 vmmprof stat -M cpu_util -r 2 -- true 2>err && grep_q "r and -M exclude" err &&
	expect_exit 2 vmmprof stat -m software --raw -M cpu_util -- true 2>err && grep_q "raw prints counts" err &&
	expect_exit 2 vmmprof stat --metric-only --per-thread -- true 2>err &&
	grep_q "per-thread and --metric-only exclude" err &&
	expect_exit 2 vmmprof stat -a -A --metric-only -- true 2>err && grep_q "A is not available with --metric-only" err
'

test_expect_success '--metric-only: a line of names, a line of values; sleep near 0, a spin above 0' '
	vmmprof stat -m software --metric-only -M cpu_util,migr_rate -- sleep 0.3 2>out &&
	grep -x " *cpu_util *migr_rate\\[1/s\\] *" out >/dev/null &&
	v=$(awk "/cpu_util/ { getline; print \$1; exit }" out) &&
	awk -v v="$v" "BEGIN { exit !(v >= 0 && v < 0.05) }" &&
	grep_q "seconds time elapsed" out &&
	vmmprof stat -m software --metric-only -M cpu_util -- timeout 0.5 sh -c "while :; do :; done" 2>out;
	v=$(awk "/cpu_util/ { getline; print \$1; exit }" out) &&
	echo "spin cpu_util $v" &&
	awk -v v="$v" "BEGIN { exit !(v > 0.05 && v <= 1.05) }"
'

test_expect_success '--metric-only: an n/a value carries its reason number, the reason once below' '
	vmmprof stat -m software --metric-only -M cpu_util,llc -- true 2>out &&
	grep -q "n/a\\[1\\]" out &&
	test $(grep -c "^   \\[1\\] " out) = 1
'

test_expect_success '--metric-only -I 100: the names once, a line per interval after its time' '
	vmmprof stat -m software --metric-only -M cpu_util,migr_rate -I 100 -- sleep 0.35 2>out &&
	test $(grep -c "^#           time *cpu_util *migr_rate" out) = 1 &&
	n=$(grep -c "^ *[0-9]*\\.[0-9]\\{9\\} " out) && test "$n" -ge 3 &&
	! grep -q "seconds time elapsed" out
'

test_expect_success '--metric-only -x,: names then values, each ending in the separator' '
	vmmprof stat -m software --metric-only -x, -M cpu_util,migr_rate -- true 2>out &&
	grep -v "^#" out >csv &&
	test "$(sed -n 1p csv)" = "cpu_util,migr_rate[1/s]," &&
	sed -n 2p csv | grep -q "^[0-9.e+-]*,[0-9.e+-]*,\$" &&
	test $(wc -l <csv) = 2
'

test_expect_success '--metric-only --json: the model line with the metrics named only' '
	vmmprof stat -m software --metric-only --json -M cpu_util,locality -o j -- true &&
	test "$(json_get j "\",\".join(m[\"name\"] for m in j[\"metrics\"])")" = cpu_util &&
	test "$(json_get j "\",\".join(f[\"factor\"] for f in j[\"factors\"])")" = locality
'

test_done
