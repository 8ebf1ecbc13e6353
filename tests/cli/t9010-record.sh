#!/bin/sh
# t9010-record.sh - record a live QEMU VM, read it back with report and diagnose, refuse damaged files
. "$(dirname "$0")/lib.sh"

vm=vprec-$$
qpid=
stop_vm() { [ -n "$qpid" ] && kill $qpid 2>/dev/null && wait $qpid 2>/dev/null; qpid=; true; }
trap stop_vm EXIT
have_vm=0
if command -v qemu-system-x86_64 >/dev/null; then
	qemu-system-x86_64 -accel tcg -name "guest=$vm,debug-threads=on" -smp 2 -m 128 \
		-display none -nodefaults -no-reboot >/dev/null 2>&1 &
	qpid=$!
	i=0
	while [ $i -lt 50 ]; do
		if grep -qs "CPU 1/TCG" /proc/$qpid/task/*/comm; then have_vm=1; break; fi
		sleep 0.2
		i=$((i + 1))
	done
	sleep 0.5
fi

if [ $have_vm = 1 ]; then
test_expect_success 'record 2 s at 500 ms: a file with the VM, both vCPUs, every interval' '
	vmmprof record -q -o r.vmmdb -d 2 -I 500 --vm $vm &&
	vmmprof report --json r.vmmdb >r.json &&
	n=$(json_get r.json "len(j[\"intervals\"])") &&
	test "$n" -ge 3 && test "$n" -le 5 &&
	test "$(json_get r.json "\",\".join(sorted(set(r[\"kind\"] for i in j[\"intervals\"] for r in i[\"rows\"])))")" = vcpu,vm &&
	test "$(json_get r.json "max(len(i[\"rows\"]) for i in j[\"intervals\"])")" = 3 &&
	test "$(json_get r.json "j[\"model\"]")" = software &&
	json_get r.json "all(abs(i[\"duration_s\"] - 0.5) < 0.25 for i in j[\"intervals\"])" | grep -q True
'

test_expect_success 'diagnose FILE gives the same diagnosis structure as live' '
	vmmprof diagnose --json r.vmmdb >d.json &&
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"vm\"]")" = $vm &&
	test "$(json_get d.json "j[\"targets\"]")" = 2 &&
	json_get d.json "j[\"recording\"]" | grep -q r.vmmdb &&
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"factors\"][\"sharing\"][\"cost_pct\"]")" = None
'

test_expect_success 'the text report has the timeline and the diagnosis' '
	vmmprof report r.vmmdb >t.txt &&
	grep_q "^Timeline" t.txt && grep_q "$vm/vCPU 1" t.txt &&
	grep_q "^Bottlenecks" t.txt && grep_q "^Advice" t.txt
'

test_expect_success 'CSV: one line per interval and entity, the header names every factor' '
	vmmprof report --csv r.vmmdb >r.csv &&
	python3 - r.csv r.json <<-PY
	import csv, json, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	j = json.load(open(sys.argv[2]))
	assert len(rows) == sum(len(i["rows"]) for i in j["intervals"]), len(rows)
	for f in ("locality", "llc", "sharing", "imc", "queue"):
	    assert f + "_score" in rows[0] and f + "_quality" in rows[0]
	# what cannot be measured is empty and labelled, never 0
	assert all(r["sharing_score"] == "" and r["sharing_quality"] == "unavailable" for r in rows)
	PY
'

test_expect_success 'HTML: one self-contained page with charts, heatmap, bottlenecks, advice' '
	vmmprof report --html r.html r.vmmdb 2>err &&
	grep_q "wrote .r.html." err &&
	python3 - r.html <<-PY
	import sys
	from html.parser import HTMLParser
	class P(HTMLParser):
	    def __init__(self):
	        super().__init__(); self.tags = {}; self.ext = []
	    def handle_starttag(self, t, a):
	        self.tags[t] = self.tags.get(t, 0) + 1
	        for k, v in a:
	            if k in ("src", "href") and v and "://" in v: self.ext.append(v)
	p = P(); s = open(sys.argv[1]).read(); p.feed(s)
	assert p.tags.get("svg", 0) >= 1, p.tags
	assert p.tags.get("path", 0) >= 1, p.tags
	assert "vCPU placement over time" in s and "Ranked bottlenecks" in s and "Advice" in s
	assert "Not measured" in s and "traffic" in s
	assert not p.ext, p.ext
	assert "script" not in p.tags
	PY
'

test_expect_success 'SIGTERM during record leaves a valid file with what was collected' '
	"$VMMPROF" record -q -o s.vmmdb -I 200 --vm $vm 2>err &
	p=$!
	# wait (on a loaded machine, up to 60 s) until 3 intervals are committed
	seen=0 i=0
	while [ "$seen" -lt 3 ] && [ $i -lt 300 ]; do
		sleep 0.2
		seen=$(python3 -c "import sqlite3,sys
try: print(sqlite3.connect(\"file:s.vmmdb?mode=ro\", uri=True).execute(\"select count(*) from frames\").fetchone()[0])
except Exception: print(0)")
		i=$((i + 1))
	done
	kill -TERM $p
	wait $p &&
	vmmprof report --json s.vmmdb >s.json &&
	json_get s.json "len(j[\"intervals\"]) >= $seen" | grep -q True &&
	test "$seen" -ge 3
'

test_expect_success 'a recording is never overwritten' '
	expect_exit 1 vmmprof record -q -o r.vmmdb -d 0.2 --vm $vm 2>err &&
	grep_q "exists" err
'

test_expect_success 'a truncated recording is refused with the reason, no crash' '
	head -c 5000 r.vmmdb >cut.vmmdb &&
	expect_exit 1 vmmprof report cut.vmmdb 2>err &&
	grep_q "cut.vmmdb" err &&
	expect_exit 1 vmmprof diagnose cut.vmmdb 2>err2 &&
	grep_q "cut.vmmdb" err2
'
else
	test_skip 'record and report a live QEMU VM' 'qemu-system-x86_64 is not installed'
fi
stop_vm

test_expect_success 'a file that is not a recording, a missing file: clear errors, exit 1' '
	echo "hello" >x.vmmdb &&
	expect_exit 1 vmmprof report x.vmmdb 2>err && grep_q "not a readable vmmprof recording" err &&
	expect_exit 1 vmmprof report nope.vmmdb 2>err && grep_q "cannot open recording .nope.vmmdb." err
'

test_expect_success 'without -o: vmmprof.vmmdb, the one before kept as vmmprof.vmmdb.old (as perf.data)' '
	mkdir def && { sleep 60 & sp=$!; } &&
	( cd def && vmmprof record -q -p $sp -d 0.3 -I 100 ) &&
	test -s def/vmmprof.vmmdb && ! test -e def/vmmprof.vmmdb.old &&
	cp def/vmmprof.vmmdb first.copy &&
	( cd def && vmmprof record -q -p $sp -d 0.3 -I 100 ) &&
	cmp def/vmmprof.vmmdb.old first.copy && ! cmp -s def/vmmprof.vmmdb first.copy &&
	vmmprof report def/vmmprof.vmmdb.old >/dev/null &&
	# a run that cannot start leaves the last recording where it was
	cp def/vmmprof.vmmdb second.copy &&
	( cd def && expect_exit 1 vmmprof record -q -p $sp -m no-such-model -d 0.3 2>../err ) &&
	cmp def/vmmprof.vmmdb second.copy && cmp def/vmmprof.vmmdb.old first.copy &&
	kill $sp
'

test_expect_success 'usage errors exit 2' '
	expect_exit 2 vmmprof record -o x -I 1 2>err && grep_q "invalid interval" err &&
	expect_exit 2 vmmprof report 2>err && grep_q "RECORDING is required" err
'

test_done
