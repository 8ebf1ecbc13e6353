#!/bin/sh
# t3090-stat-run-controls.sh - perf stat's run controls in vmmprof stat:
# --timeout, -D/--delay, -n/--null, -v/--verbose, -T/--transaction, --append.
# Expected values are the physics of the commands run (a sleep of 0.3 s takes
# at least 0.3 s; a spin killed after 1 s burns CPU only in that second) and
# perf's documented formats, never the output of an earlier run.
. "$(dirname "$0")/lib.sh"

cd "$TRASH" || exit 1

# elapsed FILE: the seconds of the table's "seconds time elapsed" line
elapsed() { awk '/seconds time elapsed/ { print $1 }' "$1"; }
# msec FILE: task-clock of the table in msec
msec() { awk '/ msec task-clock/ { gsub(",", "", $1); print $1 }' "$1"; }

test_expect_success '--timeout 300 ends a 30 s command after 0.3 s, exit 0 as perf' '
	vmmprof stat -e task-clock --timeout 300 -- sleep 30 2>out &&
	e=$(elapsed out) &&
	awk -v e="$e" "BEGIN { exit !(e >= 0.3 && e < 10) }"
'

test_expect_success '--timeout with -a and no command: the run ends by itself' '
	vmmprof stat -a -e task-clock --timeout 200 2>out &&
	e=$(elapsed out) &&
	awk -v e="$e" "BEGIN { exit !(e >= 0.2 && e < 10) }" &&
	grep_q "system wide" out
'

test_expect_success '--timeout: under 10 ms, not a number, or with -I: usage errors' '
	expect_exit 2 vmmprof stat --timeout 5 -- true 2>err && grep_q "timeout .5.: milliseconds, 10" err &&
	expect_exit 2 vmmprof stat --timeout x -- true 2>err && grep_q "timeout .x." err &&
	expect_exit 2 vmmprof stat --timeout 100 -I 100 -- true 2>err &&
	grep_q "timeout and -I exclude each other" err
'

# spin.sh: burns CPU for 1 s of wall time (timeout ends the loop), then sleeps 0.8 s; a
# delay of 1.6 s leaves room for a slow start on a loaded machine
cat >spin.sh <<EOF
timeout 1 sh -c "while :; do :; done"
sleep 0.8
EOF

test_expect_success '-D 1600: the spin of the first second is not counted; elapsed is the time counted' '
	vmmprof stat -e task-clock -- sh spin.sh 2>base &&
	vmmprof stat -e task-clock -D 1600 -- sh spin.sh 2>out &&
	b=$(msec base) && d=$(msec out) && e=$(elapsed out) &&
	echo "without -D $b msec, with -D $d msec, elapsed $e" &&
	awk -v b="$b" -v d="$d" -v e="$e" "BEGIN { exit !(b > 60 && d < 30 && e >= 0.05 && e < 1.6) }" &&
	grep_q "^Events disabled" out && grep_q "^Events enabled" out
'

test_expect_success '-D -1 (perf: start disabled for --control) and -D x are refused, exit 2' '
	expect_exit 2 vmmprof stat -D -1 -- true 2>err && grep_q "no.* --control\|does not have" err &&
	expect_exit 2 vmmprof stat -D x -- true 2>err && grep_q "D .x.: the delay is milliseconds" err
'

test_expect_success '-n: no counter line, the elapsed time of the command (>= 0.3 s for sleep 0.3)' '
	vmmprof stat -n -- sleep 0.3 2>out &&
	# perf 6.1: the header, one blank line, the time
	sed -n 2,4p out | sed "s/[0-9.]* seconds time/T seconds time/" >got &&
	printf " Performance counter stats for \\047sleep 0.3\\047:\\n\\n       T seconds time elapsed\\n" >want &&
	diff -u want got &&
	e=$(elapsed out) &&
	awk -v e="$e" "BEGIN { exit !(e >= 0.3 && e < 10) }" &&
	! grep -q "msec\|task-clock\|cycles" out &&
	grep_q "Performance counter stats for .sleep 0.3.:" out
'

test_expect_success '-n -x, prints the time as perf prints duration_time (ns)' '
	vmmprof stat -n -x, -- sleep 0.2 2>out &&
	test $(wc -l <out) = 1 &&
	awk -F, "\$2 == \"ns\" && \$3 == \"duration_time\" && \$1 >= 200000000 && \$1 < 10000000000 && \$5 == \"100.00\" { ok = 1 } END { exit !ok }" out
'

test_expect_success '-n -r 3 --json: three runs, no events, each run >= 0.1 s' '
	vmmprof stat -n -r 3 --json -o j -- sleep 0.1 &&
	test "$(json_get j "j[\"runs\"]")" = 3 &&
	test "$(json_get j "len(j[\"events\"])")" = 0 &&
	test "$(json_get j "min(j[\"elapsed_runs\"]) >= 0.1")" = True
'

test_expect_success '-n with -e, -I or -p: a usage error naming the flag' '
	expect_exit 2 vmmprof stat -n -e task-clock -- true 2>err && grep_q "n opens no counter.*-e" err &&
	expect_exit 2 vmmprof stat -n -a -I 100 2>err && grep_q "with -I" err &&
	expect_exit 2 vmmprof stat -n -p $$ 2>err && grep_q "with -p/-t" err
'

online=$(cat /sys/devices/system/cpu/online)
ncpus=$(echo "$online" | tr ',' '\n' | awk -F- '{ n += NF > 1 ? $2 - $1 + 1 : 1 } END { print n }')

test_expect_success '-vv -a: per online CPU "task-clock: CPU: raw enabled running", then their sum' '
	vmmprof stat -vv -a -e task-clock -- sleep 0.2 2>out &&
	grep "^task-clock: [0-9]*: " out >percpu &&
	test $(wc -l <percpu) = '"$ncpus"' &&
	sum=$(awk "{ s += \$3 } END { printf \"%d\", s }" percpu) &&
	total=$(awk "/^task-clock: [0-9]* [0-9]* [0-9]*\$/ { print \$2 }" out) &&
	test "$sum" = "$total" &&
	# task-clock counts ns: each CPU about 0.2 s of wall time or more
	awk "\$3 < 150000000 { bad = 1 } END { exit bad }" percpu
'

test_expect_success '-v: the sum only, no line per CPU (perf 6.1)' '
	vmmprof stat -v -a -e task-clock -- sleep 0.1 2>out &&
	test $(grep -c "^task-clock: [0-9]* [0-9]* [0-9]*\$" out) = 1 &&
	! grep -q "^task-clock: [0-9]*: " out
'

test_expect_success '-v -x,: the counts go to stderr, the CSV to -o stays CSV' '
	vmmprof stat -v -x, -o csv -e task-clock -- true 2>err &&
	grep_q "^task-clock: [0-9]* [0-9]* [0-9]*\$" err &&
	! grep -q "^task-clock:" csv && grep_q ",task-clock," csv
'

if [ -e /sys/bus/event_source/devices/cpu/events/tx-start ]; then
test_expect_success '-T: the transaction events are counted (cycles-t, tx-start)' '
	vmmprof stat -T -x, -- true 2>out &&
	grep_q ",cpu/tx-start/," out && grep_q ",cpu/cycles-t/," out
'
else
test_expect_success '-T without TSX events: an error that says why, exit 1' '
	expect_exit 1 vmmprof stat -T -- true 2>err &&
	grep_q "TSX" err && grep_q "no such event" err &&
	test $(wc -l <err) = 1
'
fi

test_expect_success '--append: two runs in one file, each after perf header line' '
	vmmprof stat -x, -e task-clock -o f -- true &&
	vmmprof stat -x, -e task-clock -o f --append -- true &&
	test $(grep -c "^# started on " f) = 2 &&
	test $(grep -c ",task-clock," f) = 2 &&
	vmmprof stat -x, -e task-clock -o f -- true &&
	test $(grep -c "^# started on " f) = 1 &&
	test $(grep -c ",task-clock," f) = 1
'

test_expect_success '--append to a file not there yet creates it; without -o it is a usage error' '
	vmmprof stat -x, -e task-clock -o new --append -- true &&
	test $(grep -c ",task-clock," new) = 1 &&
	expect_exit 2 vmmprof stat --append -e task-clock -- true 2>err &&
	grep_q "append adds to the file of -o" err
'

if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o p.probe -- true 2>/dev/null; then
test_expect_success 'the same file as perf stat -o --append, but for the date and the counts' '
	perf stat -x, -e task-clock -o p -- true && perf stat -x, -e task-clock -o p --append -- true &&
	vmmprof stat -x, -e task-clock -o v -- true && vmmprof stat -x, -e task-clock -o v --append -- true &&
	# the date line, the blank line after it, and unit, event and running share of each count
	shape() { sed "s/^# started on .*/# started on DATE/" "$1" | awk -F, "NF > 3 { print \$2 \",\" \$3 \",\" \$5; next } { print }"; } &&
	shape p >p.shape && shape v >v.shape && diff -u p.shape v.shape &&
	test $(grep -c "^# started on" v) = 2
'

test_expect_success '-D: the messages perf stat -D prints, on standard error' '
	perf stat -D 50 -e task-clock -- sleep 0.2 2>p.err &&
	vmmprof stat -D 50 -e task-clock -- sleep 0.2 2>v.err &&
	grep "^Events" p.err >p.msg && grep "^Events" v.err >v.msg && diff -u p.msg v.msg &&
	test $(wc -l <v.msg) = 2
'
else
test_skip 'the same file as perf stat -o --append; the -D messages' 'perf is not installed or cannot count here'
fi

test_expect_success '--json -o: no header line (every line is JSON)' '
	vmmprof stat --json -e task-clock -o j -- true &&
	! grep -q "^#" j && json_get j "j[\"type\"]" >/dev/null
'

test_done
