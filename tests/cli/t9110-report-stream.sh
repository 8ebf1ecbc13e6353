#!/bin/sh
# t9110-report-stream.sh - reports read recordings one interval at a time: the HTML page of a long
# recording is downsampled as documented, memory does not grow with the length, damage keeps
# what came before it
. "$(dirname "$0")/lib.sh"

synth="$VP_HELPERS/rec_synth"
if [ ! -x "$synth" ]; then
	test_skip 'streamed reports of synthetic recordings' 'VP_HELPERS/rec_synth is not built'
	test_done
	exit $?
fi
# rec_synth PATH FRAMES VCPUS: frame k has place_rem = (k % 100) / 100 on every row
# (src/record/synth.h), so the locality score of the VM row is (k % 100) / 100.

test_expect_success 'HTML of 1500 intervals: 1000 points, each the mean of its 1 or 2 intervals' '
	"$synth" long.vmmdb 1500 2 >/dev/null &&
	vmmprof report --html long.html long.vmmdb 2>err &&
	grep_q "Downsampled: 1500 intervals in 1000 squares of 1 or 2 intervals" long.html &&
	python3 - long.html <<-PY
	import math, re, sys
	s = open(sys.argv[1]).read()
	# the locality chart is the one factor measured; its one line is VM vm1
	pts = re.findall(r"<path [^>]* d=\"([^\"]*)\"", s)
	assert len(pts) == 1, len(pts)
	# one segment: M at the first bucket, L to each next one (no gap: vm1 was always there)
	assert pts[0].startswith("M") and pts[0].count("M") == 1, pts[0][:40]
	pts = [tuple(map(float, p[1:].split(","))) for p in pts[0].split()]
	assert len(pts) == 1000, len(pts)
	n, nb = 1500, 1000
	vmax = 0.99                       # the highest single interval: k % 100 = 99
	for b, (x, y) in enumerate(pts):
	    first, end = -(-b * n // nb), -(-(b + 1) * n // nb)
	    vals = [(k % 100) / 100 for k in range(first, end)]
	    mean = sum(vals) / len(vals)
	    wx = 40 + 670 * b / (nb - 1)
	    wy = 180 - mean / vmax * 170
	    assert abs(x - wx) < 0.06 and abs(y - wy) < 0.06, (b, x, y, wx, wy)
	# the heatmap: one row per vCPU, 1000 cells, 500 of 2 intervals and 500 of 1
	cells = re.findall(r"title=\"(intervals? [^\"]*)\"", s)
	assert len(cells) == 2 * 1000, len(cells)
	two = [c for c in cells if c.startswith("intervals ")]
	assert len(two) == 2 * 500, len(two)
	# intervals numbered from 1, as the x axis of the charts numbers them
	assert cells[0] == "intervals 1-2: node 0 in 2 of 2", cells[0]
	assert cells[1] == "interval 3: node 0", cells[1]
	assert cells[999] == "interval 1500: node 0", cells[999]
	PY
'

test_expect_success 'CSV of the same 1500 intervals: every interval and row, not downsampled' '
	vmmprof report --csv long.vmmdb >long.csv &&
	python3 - long.csv <<-PY
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	assert len(rows) == 1500 * 3, len(rows)
	for r in rows:
	    k = int(r["interval"])
	    assert abs(float(r["locality_score"]) - (k % 100) / 100) < 1e-12, r
	assert [r["interval"] for r in rows[:4]] == ["0", "0", "0", "1"]
	PY
'

# peak RSS in KiB of one command, from wait4()
cat >rss.py <<'PY'
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, sys.argv
print(ru.ru_maxrss)
PY
mv rss.py "$TRASH/rss.py"

if grep -q __asan_init "$VMMPROF" 2>/dev/null; then
	test_skip 'memory grows only by the bootstrap samples' 'AddressSanitizer build: its quarantine keeps freed memory, so RSS grows with what was ever allocated'
else
# The rows are read one frame at a time.  What a diagnosing mode keeps per
# interval is the confidence intervals' bootstrap input (src/collect/cost_ci.c):
# one cost per entity and factor per sample: 22 entities (the VM, its 20 vCPUs,
# node 0) x 5 factors x 8 bytes = 880 bytes an interval, 2700 more intervals
# 2.3 MB, up to twice that while its arrays double (4,641 KiB).  Everything
# else must stay within 4 MiB, as for CSV and JSON, which keep nothing.
test_expect_success 'memory grows only by the bootstrap samples: 3000 intervals against 300' '
	"$synth" s.vmmdb 300 20 >/dev/null && "$synth" l.vmmdb 3000 20 >/dev/null &&
	boot=$(( 2700 * 22 * 5 * 8 * 2 / 1024 )) &&
	for mode in "report --csv" "report --json" "report" "diagnose" "report --html out.html"; do
		a=$(python3 rss.py "$VMMPROF" $mode s.vmmdb) &&
		b=$(python3 rss.py "$VMMPROF" $mode l.vmmdb) &&
		case "$mode" in "report --csv"|"report --json") extra=0 ;; *) extra=$boot ;; esac &&
		echo "$mode: $a KiB at 300 intervals, $b KiB at 3000 (allowed $((4096 + extra)) more)" &&
		# holding 2700 more intervals of 21 rows would take well over 10 MB
		test $((b - a)) -lt $((4096 + extra)) || return 1
	done
'
fi

test_expect_success 'a damaged recording: what comes before the damage, then the error naming it' '
	"$synth" d.vmmdb 300 20 >/dev/null &&
	python3 -c "import sqlite3; c = sqlite3.connect(\"d.vmmdb\"); c.execute(\"delete from frames where seq = 100\"); c.commit()" &&
	expect_exit 1 vmmprof report --csv d.vmmdb >d.csv 2>err &&
	grep_q "d.vmmdb. is damaged at frame 100" err &&
	test $(wc -l <d.csv) = $((1 + 100 * 21)) &&
	expect_exit 1 vmmprof report --json d.vmmdb >d.json 2>err &&
	test "$(json_get d.json "len(j[\"intervals\"])")" = 100 &&
	expect_exit 1 vmmprof diagnose d.vmmdb >d.txt 2>err &&
	grep_q "d.vmmdb. is damaged at frame 100" err &&
	grep_q "100 intervals, 100.0 s" d.txt &&
	grep_q "damaged after interval 100" d.txt &&
	expect_exit 1 vmmprof report d.vmmdb >t.txt 2>err &&
	grep_q "100 intervals of 1 s" t.txt && grep_q "damaged after interval 100" t.txt &&
	test $(grep -c "vm1/vCPU 19" t.txt) = 100 &&
	expect_exit 1 vmmprof report --html d.html d.vmmdb 2>err &&
	grep_q "damaged at frame 100" err && test ! -e d.html
'

test_done
