#!/bin/sh
# t11110-long-names.sh - two VMs of 64 vCPUs each, named with 442 bytes (200 two-byte characters):
# longer than every fixed field that once held a name or a reason (top's VM name 96, its notes
# 1024, the frame's notes 2048 hold far less than 128 vCPU rows name).  top --batch, top --json,
# diagnose and diagnose --json show every VM and vCPU row with the whole name (issue 24)
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
FAKE=$HERE/../helpers/fake_qemu.py
PY=/usr/bin/python3
LONG=$(printf '\303\251%.0s' $(seq 200))
NAME1="vp-long-$$-a-$LONG-end"
NAME2="vp-long-$$-b-$LONG-end"
export NAME1 NAME2
pids=
stop_all() {
	[ -n "$pids" ] && kill $pids 2>/dev/null
	true
}
trap stop_all EXIT

if ! [ -x $PY ] || ! command -v bash >/dev/null; then
	test_skip 'VMs of 64 vCPUs with long names' "no system python3 at $PY, or no bash"
	test_done
	exit
fi

# whole FILE: both names, byte for byte, on VM rows and on the 64 vCPU rows of each (JSON)
whole() {
	$PY - "$1" <<-'PY'
	import json, os, sys
	names = [os.environb[k].decode("utf-8") for k in (b"NAME1", b"NAME2")]
	txt = open(sys.argv[1], encoding="utf-8").read()
	try:
	    docs = [json.loads(txt)]
	except ValueError:  # JSON lines (top --json)
	    docs = [json.loads(l) for l in txt.splitlines() if l.strip()]
	strs = []
	def walk(v):
	    if isinstance(v, dict):
	        for x in v.values():
	            walk(x)
	    elif isinstance(v, list):
	        for x in v:
	            walk(x)
	    elif isinstance(v, str):
	        strs.append(v)
	for d in docs:
	    walk(d)
	bad = 0
	for n in names:
	    exact = sum(1 for s in strs if s == n)
	    vcpu = sum(1 for s in strs if s.startswith(n + " vCPU"))
	    # a cut name is a prefix of the whole one: say how long it came out
	    cut = [len(s.encode()) for s in strs if len(s) >= 20 and n.startswith(s[:20]) and s != n and
	           not s.startswith(n)]
	    if exact + vcpu == 0 or cut:
	        print("%s...: %d exact, %d vCPU strings, cut to %s bytes" % (n[:16], exact, vcpu, cut))
	        bad = 1
	sys.exit(bad)
	PY
}

cd "$TRASH"
for n in "$NAME1" "$NAME2"; do
	FAKE_QEMU_BUSY=0.0005 bash -c 'exec -a qemu-system-x86_64 "$@"' fake $PY "$FAKE" \
		-name "guest=$n,debug-threads=on" -smp 64 &
	pids="$pids $!"
done
# until the adapter finds both with all their vCPUs
i=0
while [ $i -lt 150 ]; do
	if "$VMMPROF" list vms --json >vms.json 2>/dev/null &&
	   $PY -c 'import json,sys; d=json.load(open("vms.json")); sys.exit(0 if sum(1 for v in d["vms"] if len(v.get("vcpus", [])) == 64) >= 2 else 1)' 2>/dev/null; then
		break
	fi
	sleep 0.1
	i=$((i + 1))
done

test_expect_success 'list vms --json: both VMs, whole names' '
	whole vms.json
'

test_expect_success 'top --json: VM rows and 128 vCPU rows carry the whole names' '
	vmmprof top --json -n 1 >top.json && whole top.json &&
	$PY -c "import json,os,sys
d=json.loads(open(\"top.json\").read().splitlines()[-1])
n=[os.environ[k] for k in (\"NAME1\",\"NAME2\")]
v=[c for c in d[\"vcpus\"] if c.get(\"vm\") in n]
print(len(v), \"vCPU rows of the two VMs\")
sys.exit(0 if len(v)==128 else 1)"
'

test_expect_success 'top --batch: every row of the two VMs with the whole name' '
	vmmprof top --batch -n 1 >out &&
	test $(grep -cF "$NAME1" out) -ge 1 && test $(grep -cF "$NAME2" out) -ge 1 ||
		{ head -20 out; false; }
'

test_expect_success 'diagnose --json: the whole names' '
	vmmprof diagnose -d 1 --json >d.json && whole d.json
'

test_expect_success 'diagnose: the whole names in its text' '
	vmmprof diagnose -d 1 >out 2>err &&
	grep -qF "$NAME1" out && grep -qF "$NAME2" out || { head -40 out; cat err; false; }
'

test_done
