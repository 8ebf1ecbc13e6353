#!/bin/sh
# t7320-xen-trace-periodic.sh - --xentrace in the periodic views (top,
# diagnose, a daemon session): Xen's scheduler trace read as xentrace writes
# it gives each vCPU's run time per node, labelled exact (measured); without
# it, or when xentrace cannot run, residency is sampled from xl vcpu-list and
# the notes say so and why.  Under a fixture root the N-th read of the trace
# is .vmmprof-fixture/xentrace/stream/N.bin, written here by a few lines of
# python from Xen 4.17's record layout (public/trace.h, tools/xentrace).
# The expected seconds are the ticks chosen below over the captured dom0's
# cpu_mhz (2445.428 in its xl info), and the node of each pCPU is the
# captured xl info -n's (pCPU 0 on node 0, pCPU 1 on node 1): vptest's
# vCPU 0 runs 1 s on pCPU 1 (node 1), then 0.5 s on pCPU 0 (node 0), its
# records split over two reads, and no runstate change in the second read
# ends the first run: the stream parser must carry it over.
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured
HZ=2445428000

mk_stream() {
	python3 - "$1" "$HZ" <<'PY'
import struct, sys
d, hz = sys.argv[1], int(sys.argv[2])
def rs(tsc, dom, vcpu, old, new):
    ev = 0x00021001 | old << 8 | new << 4
    return struct.pack('<IIII', ev | 1 << 28 | 1 << 31, tsc & 0xffffffff, tsc >> 32, vcpu | dom << 16)
def window(cpu, recs):
    body = b''.join(recs)
    return struct.pack('<IiI', 0x0001f003 | 2 << 28, cpu, len(body)) + body
t0 = 1000
# read 1: vCPU 0 starts on pCPU 1
open(d + '/1.bin', 'wb').write(window(1, [rs(t0, 1, 0, 1, 0)]))
# read 2: it leaves pCPU 1 1 s later, runs 0.5 s on pCPU 0 until dom0's
# vCPU 1 takes that pCPU (the newest stamp)
open(d + '/2.bin', 'wb').write(window(1, [rs(t0 + hz, 1, 0, 0, 1)]) +
     window(0, [rs(t0 + hz, 1, 0, 1, 0), rs(t0 + hz + hz // 2, 1, 0, 0, 2),
                rs(t0 + hz + hz // 2, 0, 1, 2, 0)]))
PY
}

# vcpu N EXPR FILE: EXPR of vptest's vCPU N (as c) in sample 2 of top --json
vcpu() {
	python3 -c "
import json, sys
s = [json.loads(l) for l in open(sys.argv[3])][1]
c = [c for c in s['vcpus'] if c['vm'] == 'vptest' and c['vcpu'] == int(sys.argv[1])][0]
print(eval(sys.argv[2]))" "$1" "$2" "$3"
}

# notes N FILE: the notes of sample N (from 1) of top --json
notes() {
	python3 -c "import json, sys; print([json.loads(l) for l in open(sys.argv[2])][int(sys.argv[1]) - 1][\"notes\"])" "$1" "$2"
}

test_expect_success 'top --xentrace: run time per node in the interval, exact from the trace' '
	mkdir -p r && cp -r "$X/proc" "$X/sys" "$X/.vmmprof-fixture" r/ &&
	mkdir -p r/.vmmprof-fixture/xentrace/stream && mk_stream r/.vmmprof-fixture/xentrace/stream &&
	vmmprof top --root r --xentrace --json -n 2 -d 0.1 >j &&
	test "$(vcpu 0 "c[\"residency\"][\"source\"]" j)" = xentrace &&
	test "$(vcpu 0 "c[\"residency\"][\"quality\"]" j)" = measured &&
	test "$(vcpu 0 "c[\"residency\"][\"node_run_s\"]" j)" = "[0.5, 1]" &&
	test "$(vcpu 1 "c[\"residency\"][\"node_run_s\"]" j)" = "[0, 0]" &&
	notes 2 j >notes &&
	grep -q "Xen residency per node: exact, from Xen.s scheduler trace (xentrace)" notes
'

test_expect_success 'top without --xentrace: sampled from xl vcpu-list, labelled an estimate, and how to get it exact' '
	vmmprof top --root r --json -n 2 -d 0.1 >j &&
	test "$(vcpu 0 "c[\"residency\"][\"source\"]" j)" = sampled &&
	test "$(vcpu 0 "c[\"residency\"][\"quality\"]" j)" = estimate &&
	notes 2 j >notes &&
	grep -q "Xen residency per node: sampled from xl vcpu-list at each update (.*exact with --xentrace)" notes &&
	! grep -q "exact, from context-switch records" notes
'

test_expect_success 'top --xentrace where xentrace cannot run: sampled, and the reason' '
	vmmprof top --root "$X" --xentrace --json -n 1 >j &&
	json_get j "j[\"notes\"]" >notes &&
	grep -q "Xen residency per node: sampled from xl vcpu-list at each update, not traced: xentrace not found" notes
'

test_expect_success 'a damaged stream: sampled from then on, with the byte where it breaks' '
	mkdir -p bad && cp -r r/proc r/sys r/.vmmprof-fixture bad/ &&
	# a runstate record (16 bytes) with no CPU-change window before it
	printf "\001\020\002\220\000\000\000\000\000\000\000\000\000\000\000\000" \
		>bad/.vmmprof-fixture/xentrace/stream/2.bin &&
	vmmprof top --root bad --xentrace --json -n 2 -d 0.1 >j &&
	notes 2 j >notes &&
	grep -q "not traced: xentrace data: byte 28: a record outside any pCPU window" notes
'

test_expect_success 'diagnose --xentrace: the notes say the residency is exact, and nothing says it is sampled' '
	vmmprof diagnose --root r --xentrace -d 0.5 --json >d 2>/dev/null &&
	json_get d "j[\"notes\"]" >notes &&
	grep -q "Xen residency per node: exact, from Xen.s scheduler trace" notes &&
	! grep -q "sampled" notes
'

test_expect_success 'help: top, diagnose and record take --xentrace' '
	vmmprof help top | grep -q -- "--xentrace" &&
	vmmprof help diagnose | grep -q -- "--xentrace" &&
	vmmprof help record | grep -q -- "--xentrace"
'

# the daemon: xentrace = on (or --xentrace) runs one trace for every
# session and top stream; a session's diagnosis says the residency is exact
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
daemon_home
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null

test_expect_success 'daemon with xentrace = on: a session diagnosis notes exact Xen residency' '
	printf "users = users\nroot = \"%s\"\nxentrace = on\n" "$TRASH/r" >conf &&
	start_daemon on --config conf &&
	grep_q "^vmmprofd: Xen residency from a running xentrace" on.err &&
	expect_status 201 on adm.tok POST /api/v1/sessions -d "{\"model\":\"software\",\"interval_ms\":200}" &&
	id=$(json_get body "j[\"id\"]") &&
	sleep 0.8 &&
	expect_status 200 on adm.tok GET /api/v1/sessions/$id/diagnosis &&
	grep_q "Xen residency per node: exact, from Xen.s scheduler trace" body &&
	expect_status 200 on adm.tok DELETE /api/v1/sessions/$id &&
	stop_daemon on && test "$(cat on.rc)" = 0
'

test_expect_success 'daemon --xentrace where xentrace cannot run: it says so and samples' '
	start_daemon nt --users users --root "$X" --xentrace &&
	grep_q "^vmmprofd: warning: xentrace: xentrace not found" nt.err &&
	expect_status 201 nt adm.tok POST /api/v1/sessions -d "{\"model\":\"software\",\"interval_ms\":200}" &&
	id=$(json_get body "j[\"id\"]") &&
	sleep 0.8 &&
	expect_status 200 nt adm.tok GET /api/v1/sessions/$id/diagnosis &&
	grep_q "Xen residency per node: sampled from xl vcpu-list at each update, not traced: xentrace not found" body &&
	stop_daemon nt &&
	vmmprof help serve | grep -q -- "--xentrace"
'

stop_all_daemons
test_done
