#!/bin/sh
# t9120-record-lifecycle.sh - a recording follows the host as VMs start, end, restart, pause and
# gain a vCPU: each incarnation counted for exactly the intervals it existed, in text, CSV and JSON
. "$(dirname "$0")/lib.sh"

# Stand-in QEMU processes (tests/helpers/fake_qemu.py): argv[0] qemu-system-x86_64, vCPU threads
# named "CPU n/KVM" that burn 20 ms of every 100 ms, SIGUSR1 adds a vCPU thread, SIGUSR2 pauses
# (answered over its QMP socket).  A system python: a pyenv shim would lose the argv[0].
FAKE=$(cd "$(dirname "$0")/../helpers" && pwd)/fake_qemu.py
PY=/usr/bin/python3
pids=
stop_all() { for p in $pids; do kill $p 2>/dev/null; done; true; }
trap stop_all EXIT
mono() { $PY -c 'import time; print(time.monotonic_ns())'; }
# dash has no exec -a: bash's, which keeps the pid ($! is the stand-in)
fake() { bash -c 'exec -a qemu-system-x86_64 "$@"' fake $PY "$FAKE" "$@" & }
# seen PID COMM: waits (20 s at most) until a thread of PID is named COMM: when the host can
# see it, which on a loaded machine may be a second or more after the start
seen() {
	n=0
	while [ $n -lt 1000 ] && ! grep -qx "$2" /proc/"$1"/task/*/comm 2>/dev/null; do
		sleep 0.02
		n=$((n + 1))
	done
}

if ! [ -x $PY ] || ! $PY -c 'import socket' 2>/dev/null || ! command -v bash >/dev/null; then
	test_skip 'record a host whose VMs come and go' "no system python3 at $PY, or no bash"
	test_done
fi
cd "$TRASH"
fake -name "guest=lc1-$$,debug-threads=on" -smp 2 -qmp "unix:$TRASH/q1.sock,server=on,wait=off"
pids="$pids $!"
p1=$!
seen $p1 "CPU 1/KVM"
# the schedule, in CLOCK_MONOTONIC ns (the frames' clock), written as it happens
# every VM: the second is not there when the recording starts (--vm would refuse it); other
# VMs of this machine (other tests) may be in it too, and the checks look at these ones only
# (it is stopped with SIGTERM 2 s after the last start was seen; -d 60 is a cap)
"$VMMPROF" record -q -o r.vmmdb -d 60 -I 500 -m software 2>rec.err &
rp=$!
sleep 1.5; echo "start2 $(mono)" >>sched
fake -name "guest=lc2-$$" -smp 1; p2=$!; pids="$pids $p2"
seen $p2 "CPU 0/KVM"; echo "seen2 $(mono)" >>sched
sleep 1.5; echo "hotadd $(mono)" >>sched; kill -USR1 $p1
seen $p1 "CPU 2/KVM"; echo "seenadd $(mono)" >>sched
sleep 0.5; echo "pause1 $(mono)" >>sched; kill -USR2 $p1
sleep 1;   echo "end2 $(mono)" >>sched; kill $p2; wait $p2; echo "gone2 $(mono)" >>sched
sleep 0.5; echo "start3 $(mono)" >>sched
fake -name "guest=lc2-$$" -smp 1; p3=$!; pids="$pids $p3"
seen $p3 "CPU 0/KVM"; echo "seen3 $(mono)" >>sched
sleep 2;   echo "stop $(mono)" >>sched; kill -TERM $rp
wait $rp
echo "rc $?" >>sched
echo "p1 $p1" >>sched; echo "p2 $p2" >>sched; echo "p3 $p3" >>sched

test_expect_success 'the recording ran to its end' '
	grep_q "^rc 0" sched && vmmprof report --json r.vmmdb >r.json &&
	vmmprof report --csv r.vmmdb >r.csv && vmmprof report r.vmmdb >r.txt
'

# Hand-derived from the schedule above: interval i covers (t_i - duration_i, t_i]; the
# collector scans before it stamps t_i, and the scan of interval i+1 starts after t_i.  So:
# - a VM or vCPU that appears in an interval (it started or came since the previous scan) is a
#   row with no counts (its counters open at that interval's end) and is counted in every
#   later interval until the one it ended in, which is counted too and marked ended; no row after;
# - lc2's first incarnation appears from the interval holding start2 to the one after the
#   interval holding seen2 (when this script saw its vCPU thread: python takes a second or
#   more to start its threads on a loaded machine, which the timestamps measure); it ends
#   from the interval holding end2 to the one after the interval holding gone2 (reaped);
# - vCPU 2 of lc1 appears from the interval holding hotadd to the one after seenadd;
# - lc1 is running before the interval holding pause1, and paused (no factor score) from the
#   one after the interval holding pause1 + 2 s on: QMP is asked again when the vCPUs run time
#   jumps by 4x, else every 2 s (the scan cache, src/hv/hv.h);
# - lc2's second incarnation (another pid, a later start) appears from start3 to seen3 + 1.
test_expect_success 'JSON: each incarnation counted exactly for the intervals it existed' '
	$PY - r.json sched "$$" <<-PY
	import json, sys
	j = json.load(open(sys.argv[1]))
	s = dict(l.split() for l in open(sys.argv[2]))
	tag = sys.argv[3]
	iv = j["intervals"]
	assert len(iv) >= 10 and iv[-1]["t_ns"] >= int(s["stop"]) - 1e9, (len(iv), iv[-1]["t_ns"])
	def at(t):  # the interval holding monotonic time t
	    for i, f in enumerate(iv):
	        if f["t_ns"] - f["duration_s"] * 1e9 < t <= f["t_ns"]:
	            return i
	    raise AssertionError("no interval holds %d" % t)
	def rows(pred):
	    return [(i, r) for i, f in enumerate(iv) for r in f["rows"] if pred(r)]
	def life(pred, start, end, what, counted_from=None, start_hi=None, end_hi=None):
	    # counted_from: the first interval with counts (a vCPU: the one after it appeared;
	    # a VM: the one after its first vCPU thread appeared, which may be after the process)
	    rs = rows(pred)
	    first, last = rs[0][0], rs[-1][0]
	    hi = start if start_hi is None else start_hi
	    assert start <= first <= hi, (what, "first", first, start, hi)
	    assert [i for i, _ in rs] == list(range(first, last + 1)), (what, "gaps", rs)
	    cf = first + 1 if counted_from is None else counted_from
	    for i, r in rs:
	        if i < cf:
	            assert r["cycles"] is None, (what, "counted before its counters opened", i, r)
	        else:
	            # a count, which may be 0 in an interval a loaded machine gave the thread no CPU
	            # (or the short last one, cut by SIGTERM); n/a (None) is not counted
	            assert r["cycles"] is not None, (what, "not counted", i, r)
	    assert sum(r["cycles"] or 0 for _, r in rs) > 0, (what, "no cycles in any interval")
	    if end is not None:
	        assert end <= last <= end_hi, (what, "last", last, end, end_hi)
	        assert rs[-1][1]["state"] == "ended", (what, rs[-1])
	        assert all(r["state"] != "ended" for _, r in rs[:-1]), what
	    else:
	        assert last == len(iv) - 1, (what, "lost before the end", last)
	    return rs
	p2, p3 = int(s["p2"]), int(s["p3"])
	def incarnation(pid, start, start_hi, end, end_hi, what):
	    v = life(lambda r: r["kind"] == "vcpu" and r.get("pid") == pid, start, end,
	             what + " vCPU 0", None, start_hi, end_hi)
	    assert all(r["vcpu"] == 0 for _, r in v)
	    return life(lambda r: r["kind"] == "vm" and r.get("pid") == pid, start, end, what,
	                v[0][0] + 1, start_hi, end_hi)
	a = incarnation(p2, at(int(s["start2"])), at(int(s["seen2"])) + 1,
	                at(int(s["end2"])), at(int(s["gone2"])) + 1, "lc2 first")
	b = incarnation(p3, at(int(s["start3"])), at(int(s["seen3"])) + 1, None, None, "lc2 second")
	assert a[0][1]["started"] < b[0][1]["started"], "the incarnations start in order"
	assert a[0][1]["vm"] == b[0][1]["vm"] == "lc2-" + tag
	# vCPU 2 of lc1, added while recording: from the interval after it appeared
	life(lambda r: r["kind"] == "vcpu" and r["vm"] == "lc1-" + tag and r["vcpu"] == 2,
	     at(int(s["hotadd"])), None, "lc1 vCPU 2", None, at(int(s["seenadd"])) + 1)
	# the first vCPUs of lc1 were there before the recording: counted from its first interval
	for n in (0, 1):
	    life(lambda r: r["kind"] == "vcpu" and r["vm"] == "lc1-" + tag and r["vcpu"] == n,
	         0, None, "lc1 vCPU %d" % n, 0)
	v1 = rows(lambda r: r["kind"] == "vm" and r["vm"] == "lc1-" + tag)
	assert [i for i, _ in v1] == list(range(len(iv))), "lc1 in every interval"
	pz = at(int(s["pause1"]))
	pz2 = at(int(s["pause1"]) + 2000000000) + 1
	for i, r in v1:
	    if i >= pz2:
	        assert r["state"] == "paused", (i, r)
	    if i < pz:
	        assert r["state"] == "running", (i, r)
	assert any(r["state"] == "paused" for i, r in v1 if i >= pz2), ("never paused", pz2, len(iv))
	for i, r in rows(lambda r: r["vm"] == "lc1-" + tag and r["state"] == "paused"):
	    assert r["factors"]["locality"]["score"] is None, ("a paused row is rated", i, r)
	PY
'

test_expect_success 'CSV: the same rows, with pid, start and state' '
	$PY - r.csv r.json "$$" <<-PY
	import csv, json, sys
	mine = ("lc1-" + sys.argv[3], "lc2-" + sys.argv[3])
	rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["vm"] in mine]
	j = json.load(open(sys.argv[2]))
	js = [r for f in j["intervals"] for r in f["rows"] if r["vm"] in mine]
	assert len(rows) == len(js), (len(rows), len(js))
	for c, r in zip(rows, js):
	    assert c["state"] == r["state"] and int(c["pid"]) == r["pid"], (c, r)
	    assert abs(float(c["started"]) - r["started"]) < 1e-6
	assert sum(r["state"] == "ended" for r in rows) == 2
	assert len({(r["vm"], r["pid"]) for r in rows if r["kind"] == "vm"}) == 3
	PY
'

test_expect_success 'text: the incarnations by pid, the end and the pause marked' '
	p2=$(sed -n "s/^p2 //p" sched) p3=$(sed -n "s/^p3 //p" sched) &&
	grep_q "lc2-$$ \[pid $p2\] (ended)" r.txt &&
	grep_q "lc2-$$/vCPU 0 (ended)" r.txt &&
	grep_q "lc2-$$ \[pid $p3\]" r.txt &&
	grep_q "lc1-$$ \[pid [0-9]*\] (paused)" r.txt &&
	grep_q "lc1-$$/vCPU 2" r.txt
'
stop_all
test_done
