#!/bin/sh
# t11100-hostile-names.sh - a VM named with escape sequences and a newline (QEMU -name takes any
# bytes) prints as text: list vms, top --batch, top on a terminal, diagnose and report show it
# with every control character as '?' on one line; their JSON carries the exact name (issue 21)
. "$(dirname "$0")/lib.sh"

# A stand-in QEMU (tests/helpers/fake_qemu.py; a system python, as a pyenv shim would lose the
# argv[0]).  Its name: ESC [2J (clear the screen), a newline, an OSC title ended by BEL and C1
# CSI (U+009B, two bytes in UTF-8).  Shown, each of the four is one '?'.
HERE=$(cd "$(dirname "$0")" && pwd)
FAKE=$HERE/../helpers/fake_qemu.py
PY=/usr/bin/python3
NAME=$(printf 'vp\033[2Jx\ny\033]0;t\007z\302\233m-%s' $$)
SHOWN="vp?[2Jx?y?]0;t?z?m-$$"
S=vp-t11100-$$
export NAME SHOWN
fpid=
stop_all() {
	[ -n "$fpid" ] && kill $fpid 2>/dev/null
	command -v tmux >/dev/null && tmux kill-session -t "$S" 2>/dev/null
	true
}
trap stop_all EXIT

if ! [ -x $PY ] || ! command -v bash >/dev/null; then
	test_skip 'names with escape sequences print as text' "no system python3 at $PY, or no bash"
	test_done
	exit
fi

# raw_free FILE: no control character but newline and tab, no DEL, no C1 in UTF-8
raw_free() {
	$PY - "$1" <<-'PY'
	import re, sys
	d = open(sys.argv[1], "rb").read()
	m = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", d)
	if m:
	    print("raw control byte %r at %d: %r" % (m.group(), m.start(), d[max(0, m.start() - 30):m.start() + 30]))
	    sys.exit(1)
	PY
}
# exact_in FILE: some string of the JSON document is the name, byte for byte
exact_in() {
	$PY - "$1" <<-'PY'
	import json, os, sys
	name = os.environb[b"NAME"].decode("utf-8")
	def walk(v):
	    if isinstance(v, dict):
	        return any(walk(k) or walk(x) for k, x in v.items())
	    if isinstance(v, list):
	        return any(walk(x) for x in v)
	    return v == name or (isinstance(v, str) and v.startswith(name + " vCPU"))
	txt = open(sys.argv[1], encoding="utf-8").read()
	try:
	    docs = [json.loads(txt)]
	except ValueError:  # JSON lines (top --json)
	    docs = [json.loads(l) for l in txt.splitlines() if l.strip()]
	sys.exit(0 if any(walk(d) for d in docs) else 1)
	PY
}

cd "$TRASH"
bash -c 'exec -a qemu-system-x86_64 "$@"' fake $PY "$FAKE" -name "guest=$NAME,debug-threads=on" -smp 2 &
fpid=$!
# until the adapter finds it (python starts its threads in up to a second or so when loaded)
i=0
while [ $i -lt 100 ] && ! { "$VMMPROF" list vms --json >vms.json 2>/dev/null && exact_in vms.json; }; do
	sleep 0.1
	i=$((i + 1))
done

test_expect_success 'list vms --json: valid JSON with the exact name' '
	exact_in vms.json || { echo "the name is not in list vms --json"; false; }
'

test_expect_success 'list vms: the name on one line, every control character a ?' '
	vmmprof list vms >out && raw_free out &&
	grep -qxF "$SHOWN" out || { echo "no line $SHOWN:"; cat -A out | head -40; false; }
'

test_expect_success 'list vms --raw (the completion words): the name as one word' '
	vmmprof list vms --raw >out && raw_free out && test $(wc -l <out) = 1 &&
	tr " " "\n" <out | grep -qxF "$SHOWN"
'

test_expect_success 'top --batch: the VM and vCPU rows name it as text' '
	vmmprof top --batch -n 1 >out && raw_free out &&
	grep -F "$SHOWN" out >rows && test $(wc -l <rows) -ge 3 ||
		{ cat -A out | head -40; false; }
'

test_expect_success 'top --json: the exact name' '
	vmmprof top --json -n 1 >top.json && exact_in top.json
'

test_expect_success 'diagnose: tables, findings and advice name it as text, one line each' '
	vmmprof diagnose -d 1 >out 2>err && raw_free out && raw_free err &&
	grep -F "$SHOWN" out >rows && test $(wc -l <rows) -ge 2 &&
	! grep -q "^y" out || { cat -A out | head -60; false; }
'

test_expect_success 'diagnose --json: the exact name' '
	vmmprof diagnose -d 1 --json >d.json && exact_in d.json
'

test_expect_success 'record, then report and diagnose FILE: the name as text' '
	vmmprof record -q -o r.vmmdb -d 2 -I 500 &&
	vmmprof report r.vmmdb >out 2>err && raw_free out && raw_free err &&
	grep -F "$SHOWN" out >rows && test $(wc -l <rows) -ge 3 && ! grep -q "^y" out &&
	vmmprof diagnose r.vmmdb >out 2>err && raw_free out && raw_free err &&
	grep -qF "$SHOWN" out && ! grep -q "^y" out
'

test_expect_success 'report --json: the exact name read back from the recording' '
	vmmprof report --json r.vmmdb >r.json && exact_in r.json
'

. "$HERE/tmux-lib.sh"
if command -v tmux >/dev/null; then
	tmux kill-session -t "$S" 2>/dev/null
	tmux new-session -d -s "$S" -x 200 -y 50 \
		"TERM=xterm-256color $VMMPROF top -d 0.3; echo EXIT=\$?; sleep 30"
	test_expect_success 'top on a terminal: the name (cut to its column) as text on its row' '
		screen_wait "2:VMs" s1 && screen_wait "0;t?z?m-.* kvm " s1 &&
		grep -F "vp?[2Jx?y?]0;t?z?m-" s1 | grep -q " kvm " || { cat s1; false; }
	'
	tmux kill-session -t "$S" 2>/dev/null
else
	test_skip 'top on a terminal: the name as text' 'tmux is not installed'
fi

test_done
