#!/bin/sh
# t10025-daemon-session-lifecycle.sh - a daemon session on every VM follows the host: a VM that
# starts is counted from the frame after it appeared, one that ends has its last frame marked
# ended, a restart under the same name is another incarnation (pid, start) in the frames and in
# the /metrics labels; the session's targets grow with them
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

# stand-in QEMU processes (tests/helpers/fake_qemu.py, as t9120): a system python, since a
# pyenv shim would lose the argv[0]; dash has no exec -a, bash keeps the pid
FAKE=$(cd "$(dirname "$0")/../helpers" && pwd)/fake_qemu.py
daemon_home
PY=/usr/bin/python3
if ! [ -x $PY ] || ! $PY -c 'import socket' 2>/dev/null || ! command -v bash >/dev/null; then
	test_skip 'daemon sessions over VMs that come and go' "no system python3 at $PY, or no bash"
	test_done
	exit $?
fi
fake() { bash -c 'exec -a qemu-system-x86_64 "$@"' fake $PY "$FAKE" "$@" & }
pids=
stop_all() { for p in $pids; do kill $p 2>/dev/null; done; stop_all_daemons; }
trap stop_all EXIT

mkdir -p models
printf '%s\n' 'model t-clk' 'event tclk = task-clock' 'metric cpu_ms = tclk / 1e6' \
	'factor locality unavailable "t"' 'factor llc unavailable "t"' \
	'factor sharing unavailable "t"' 'factor imc unavailable "t"' \
	'factor queue unavailable "t"' >models/t-clk.model
vmmprof user add op --role operator --users users >op.tok 2>/dev/null
start_daemon d --users users --model-path models

A=dla-$$ B=dlb-$$
fake -name "guest=$A,debug-threads=on" -smp 1; pa=$!; pids="$pids $pa"
sleep 1
test_expect_success 'a session on every VM' '
	expect_status 201 d op.tok POST /api/v1/sessions -d "{\"model\":\"t-clk\",\"interval_ms\":500}"
'
sleep 1.5
fake -name "guest=$B" -smp 1; pb1=$!; pids="$pids $pb1"
sleep 3
kill $pb1
sleep 1.5
fake -name "guest=$B" -smp 1; pb2=$!; pids="$pids $pb2"
sleep 3

# The schedule above in frames of 0.5 s (no clock is compared: the frames' own order is enough):
# B's first incarnation is there for about 3 s (6 frames; at least 3 under load), B's second
# for the last 3 s.  Each is: one frame with no count (its counter opens at that frame's end),
# then counted in every frame (cpu_ms > 0: its vCPU burns 20 ms of each 100 ms), and the first
# one's last frame is marked ended, with no frame of it after.
test_expect_success 'history: each incarnation counted exactly for the frames it existed' '
	expect_status 200 d op.tok GET /api/v1/sessions/s1/history &&
	$PY - body "$A" "$B" $pa $pb1 $pb2 <<-\EOF
	import json, sys
	fr = json.load(open(sys.argv[1]))["frames"]
	A, B, pa, pb1, pb2 = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
	def vm(f, pid):
	    return [r for r in f["rows"] if r["kind"] == "vm" and r["pid"] == pid]
	def life(pid, ends):
	    idx = [i for i, f in enumerate(fr) if vm(f, pid)]
	    assert idx and idx == list(range(idx[0], idx[-1] + 1)), (pid, idx)
	    assert len(idx) >= 3, (pid, "too few frames", idx)
	    rows = [vm(fr[i], pid)[0] for i in idx]
	    vcpus = [[r for r in fr[i]["rows"] if r["kind"] == "vcpu" and r["vm_row"] ==
	              fr[i]["rows"].index(vm(fr[i], pid)[0])] for i in idx]
	    # the first frame a vCPU thread is in has no count; every later one does
	    first_v = [k for k, v in enumerate(vcpus) if v][0]
	    for k, r in enumerate(rows):
	        x = r["metrics"]["cpu_ms"]
	        if k <= first_v:
	            assert x is None, (pid, k, "counted before its counter opened", r)
	        else:
	            assert x is not None and x > 0, (pid, k, "not counted", r)
	    st = [r["state"] for r in rows]
	    if ends:
	        assert st[-1] == "ended" and "ended" not in st[:-1], (pid, st)
	    else:
	        assert "ended" not in st and idx[-1] == len(fr) - 1, (pid, st, idx)
	    return rows
	r1, r2 = life(pb1, True), life(pb2, False)
	assert r1[0]["name"] == r2[0]["name"] == B
	assert r1[0]["started"] < r2[0]["started"], "the second incarnation started later"
	# A was there all along: in every frame, counted in all but (perhaps) the first
	assert all(vm(f, pa) for f in fr)
	assert all(vm(f, pa)[0]["metrics"]["cpu_ms"] > 0 for f in fr[1:])
	EOF
'

test_expect_success 'the session counts the threads that came: its targets grew' '
	expect_status 200 d op.tok GET /api/v1/sessions/s1 &&
	test "$(json_get body "j[\"targets\"] >= 3")" = True
'

test_expect_success '/metrics: one series per incarnation, labelled by pid' '
	curl -sS "$(cat d.url)/metrics" -H "Authorization: Bearer $(cat op.tok)" >m &&
	grep_q "vmmprof_metric{level=\"vm\",vm=\"$B\",pid=\"$pb2\"" m &&
	grep_q "vmmprof_metric{level=\"vm\",vm=\"$A\",pid=\"$pa\"" m &&
	! grep -q "pid=\"$pb1\"" m
'
stop_all
test_done
