#!/bin/sh
# t9125-record-vm-restart.sh - record --vm NAME goes on when the VM ends: a VM started again
# under its name (another process) is recorded as another incarnation; -p still stops (t11030)
. "$(dirname "$0")/lib.sh"

# Stand-in QEMU processes as in t9120 (tests/helpers/fake_qemu.py, argv[0] qemu-system-x86_64,
# vCPU threads named "CPU n/KVM"); a system python keeps the argv[0].
FAKE=$(cd "$(dirname "$0")/../helpers" && pwd)/fake_qemu.py
PY=/usr/bin/python3
pids=
stop_all() { for p in $pids; do kill $p 2>/dev/null; done; true; }
trap stop_all EXIT
fake() { bash -c 'exec -a qemu-system-x86_64 "$@"' fake $PY "$FAKE" "$@" & }

if ! [ -x $PY ] || ! command -v bash >/dev/null; then
	test_skip 'record --vm across a restart' "no system python3 at $PY, or no bash"
	test_done
fi
cd "$TRASH"
name=rs-$$
fake -name "guest=$name,debug-threads=on" -smp 1
p1=$!; pids="$pids $p1"
# the VM must be there for --vm (or --wait for it)
"$VMMPROF" record -q -o r.vmmdb -d 8 -I 500 -m software --vm "$name" --wait=20 2>rec.err &
rp=$!
sleep 3; kill $p1
sleep 2
fake -name "guest=$name,debug-threads=on" -smp 1
p2=$!; pids="$pids $p2"
wait $rp
echo "rc $?" >sched

# Without the restart rule the recording stopped at the interval after the end (about 6 of
# the 16 half-second intervals of 8 s).  It runs to its duration: 16 intervals, less one
# when --wait and the first scan took a while on a loaded machine (allowance: 12 or more).
test_expect_success 'the recording runs to its duration and says the VM ended' '
	grep_q "^rc 0" sched &&
	grep_q "every VM named has ended (interval [0-9]*); recording goes on" rec.err &&
	vmmprof report --json r.vmmdb >r.json &&
	n=$(json_get r.json "len(j[\"intervals\"])") &&
	test "$n" -ge 12 && test "$n" -le 17
'

test_expect_success 'both incarnations are recorded, the first marked ended, the second after it' '
	vmmprof report r.vmmdb >r.txt &&
	grep_q "$name \[pid $p1\] (ended)" r.txt &&
	grep_q "$name \[pid $p2\]" r.txt &&
	$PY - r.json "$p1" "$p2" <<-PY
	import json, sys
	iv = json.load(open(sys.argv[1]))["intervals"]
	p1, p2 = int(sys.argv[2]), int(sys.argv[3])
	def where(pid):
	    return [i for i, f in enumerate(iv) for r in f["rows"] if r.get("kind") == "vm" and r.get("pid") == pid]
	a, b = where(p1), where(p2)
	assert a and b, (a, b)
	assert max(a) < min(b), (a, b)
	# the second runs to the end of the recording
	assert max(b) == len(iv) - 1, (b, len(iv))
	PY
'

test_done
