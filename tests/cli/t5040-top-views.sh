#!/bin/sh
# t5040-top-views.sh - top's node and process views (issue 23): --batch --view
# and the keys 1 and 4 on an 80x24 and a 200x50 screen.  Expected values from
# the host-libvirt-v2 fixture by hand: web1 has 768 MiB on node 0 and 256 MiB
# on node 1 (home 0: 256/1024 = 25.0 % away), db-2 400 MiB on node 1 only
# (home 1: 0.0 %); web1's vCPU 0 runs on node 0 with LOCAL 25.0 %e, its vCPU 1
# and db-2's vCPU 0 on node 1 with 75.0 %e and 0.0 %e, so node 0's LOCAL is
# 25.0 %e and node 1's the higher 75.0 %e.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
S=vp-t5040-$$

# fits W FILE: no line wider than W
fits() {
	awk -v w="$1" 'length($0) > w { print "line " NR " is " length($0) " wide: " $0; bad = 1 }
		END { exit bad }' "$2"
}

test_expect_success '--view node: each node with the five factors, the highest vCPU cell, 80 columns' '
	vmmprof top --batch -n 1 --view node --root $R/host-libvirt-v2 >out &&
	grep_q "^NODES$" out && ! grep -q "^VMS\|^VCPUS" out &&
	grep_q "^node  *mem_used  *load  *vcpus  *LOCAL  *LLC  *SHARE  *IMC  *QUEUE$" out &&
	grep_q "^   0  *4096M  *n/a  *1  *25.0%e  *n/a  *n/a  *n/a  *n/a$" out &&
	grep_q "^   1  *2048M  *n/a  *2  *75.0%e  *n/a  *n/a  *n/a  *n/a$" out &&
	sed -n "/^NODES/,/^\$/p" out >rows && fits 80 rows
'

test_expect_success '--view process: pid, name, memory away from home, the factors, 80 columns' '
	vmmprof top --batch -n 1 --view process --root $R/host-libvirt-v2 >out &&
	grep_q "^PROCESSES$" out &&
	grep_q "^    pid process  *cpu% rmem%  *LOCAL  *LLC  *SHARE  *IMC  *QUEUE$" out &&
	grep_q "^   1000 web1  *n/a  *25.0  *50.0%e  *1.5M  *n/a  *n/a  *n/a$" out &&
	grep_q "^   2000 db-2  *n/a  *0.0  *0.0%e  *n/a  *n/a  *n/a  *n/a$" out &&
	sed -n "/^PROCESSES/,/^\$/p" out >rows && fits 80 rows
'

test_expect_success '--view vm and vcpu: that section alone, as in the full text' '
	vmmprof top --batch -n 1 --root $R/host-libvirt-v2 >all &&
	vmmprof top --batch -n 1 --view vm --root $R/host-libvirt-v2 >vm &&
	vmmprof top --batch -n 1 --view vcpus --root $R/host-libvirt-v2 >vcpu &&
	sed -n "/^VMS/,/^\$/p" all >want && sed -n "/^VMS/,/^\$/p" vm >got && diff -u want got &&
	! grep -q "^NODES\|^VCPUS" vm &&
	sed -n "/^VCPUS/,/^\$/p" all >want && sed -n "/^VCPUS/,/^\$/p" vcpu >got && diff -u want got &&
	! grep -q "^NODES\|^VMS" vcpu
'

# host-libvirt-v2 has no counters: LLC, SHARE, IMC and QUEUE are n/a for the one
# reason (counters are off on a fixture tree), LOCAL is the placement estimate
test_expect_success 'the whole --batch text fits 80 columns, its footer folded; a shared reason once' '
	for v in "" "--view node" "--view process" "--view vm" "--view vcpu"; do
		vmmprof top --batch -n 1 $v --root $R/host-libvirt-v2 >out && fits 80 out || exit 1
	done &&
	vmmprof top --batch -n 1 --root $R/host-libvirt-v2 >out && unfold out >flat &&
	grep_q "^LLC n/a: \[1\]$" flat && grep_q "^SHARE n/a: \[1\]$" flat &&
	grep_q "^IMC n/a: \[1\]$" flat && grep_q "^QUEUE n/a: \[1\]$" flat &&
	grep_q "^\[1\] counters are off: the root directory is a fixture tree" flat &&
	test "$(grep -c "whose threads are not this machine.s (.vmmprof info" flat)" = 2 &&
	grep_q "^LOCAL: expected remote-memory fraction; e = estimate from placement" flat
'

# the same hand values in every --json sample: the node view's cells (node 0 LOCAL 0.25,
# node 1 the higher 0.75, the n/a ones with the vCPUs' reason) and the process rows
# (web1 768 MiB at home on node 0, 256 MiB away: 25 %; db-2 400 MiB at home, none away)
test_expect_success '--json: each node with the node view cells, and the process rows' '
	vmmprof top --json -n 1 --root $R/host-libvirt-v2 >j &&
	python3 - j <<-PY
	import json, sys
	s = json.load(open(sys.argv[1]))
	n = {x["node"]: x["factors"] for x in s["nodes"]}
	assert n[0]["locality"]["value"] == 0.25 and n[0]["locality"]["quality"] == "estimate", n[0]
	assert n[1]["locality"]["value"] == 0.75, n[1]
	for k in ("llc", "sharing", "imc", "queue"):
	    c = n[0][k]
	    assert c["value"] is None and c["quality"] == "unavailable" and c["severity"] == "n/a", c
	    assert "counters are off" in c["why"], c
	p = {x["name"]: x for x in s["processes"]}
	w, d = p["web1"], p["db-2"]
	assert w["pid"] == 1000 and w["mem_local_bytes"] == 768 << 20 and w["mem_remote_bytes"] == 256 << 20, w
	assert w["rmem_pct"] == 25.0 and w["factors"]["locality"]["value"] == 0.5, w
	assert d["pid"] == 2000 and d["mem_local_bytes"] == 400 << 20 and d["mem_remote_bytes"] == 0, d
	assert d["rmem_pct"] == 0.0, d
	PY
'

test_expect_success '--view: an unknown view, or with --json: usage errors' '
	expect_exit 2 vmmprof top --batch --view disks --root $R/host-libvirt-v2 2>err &&
	grep_q "one of node, vm, vcpu, process" err &&
	expect_exit 2 vmmprof top --json --view node --root $R/host-libvirt-v2 2>err &&
	grep_q "json" err
'

if ! command -v tmux >/dev/null; then
	test_skip 'the node and process views on a screen' 'tmux is not installed'
	test_done
	exit
fi
. "$(dirname "$0")/tmux-lib.sh"
start() {
	tmux kill-session -t "$S" 2>/dev/null
	tmux new-session -d -s "$S" -x "$1" -y "$2" \
		"TERM=xterm-256color $VMMPROF top -d 0.3 ${3:-} --root $R/host-libvirt-v2; echo EXIT=\$?; sleep 30"
}

start 80 24
test_expect_success '80x24, key 1: nodes with every factor; Right: the page rates' '
	screen_wait "2:VMs" s1 && keys 1 && screen_wait "^ NODE .*QUEUE *\$" s1 &&
	screen_wait "^    1  *2048M .* 75.0%e" s1 && fits 80 s1 &&
	grep_q "^    0  *4096M .* 25.0%e  *n/a  *n/a  *n/a  *n/a *\$" s1 &&
	keys Right && screen_wait "REMOTE/s" s1 && fits 80 s1 && keys Left
'

test_expect_success '80x24, key 4: processes with rmem% and every factor; Tab cycles the four views' '
	keys 4 && screen_wait "^ *PID PROCESS" s2 && screen_wait "^ *1000 web1 " s2 && fits 80 s2 &&
	# CPU%: n/a on the first sample, 0.0 from the second (a fixture thread never runs)
	grep_q "^ *1000 web1  *\(n/a\|0\.0\)  *25.0  *50.0%e  *1.5M  *n/a  *n/a  *n/a *\$" s2 &&
	grep_q "4:Procs" s2 &&
	keys Tab && screen_wait "^ NODE " s2 &&
	keys q && screen_wait "EXIT=0" s2
'

start 80 24 "--view process"
test_expect_success '--view process: the screen starts in the process view' '
	screen_wait "^ *1000 web1 " s3 && grep_q "^ *PID PROCESS" s3 &&
	keys q && screen_wait "EXIT=0" s3
'

start 200 50
test_expect_success '200x50: the wide node view has the numastat columns and the factors' '
	screen_wait "2:VMs" w1 && keys 1 &&
	screen_wait "^ NODE .*MISS/s .*LOCAL .*QUEUE *\$" w1 && fits 200 w1 &&
	screen_wait "^    1  *2048M  *8192M .* 75.0%e" w1 &&
	keys 4 && screen_wait "^ *1000 web1 " w1 && fits 200 w1 &&
	keys q && screen_wait "EXIT=0" w1
'
tmux kill-session -t "$S" 2>/dev/null

test_done
