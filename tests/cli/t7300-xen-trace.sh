#!/bin/sh
# t7300-xen-trace.sh - `list vms --xentrace`: exact residency per vCPU and
# pCPU from a Xen trace.  The trace is written here, by a few lines of
# python, from Xen 4.17's record layout (public/trace.h, tools/xentrace):
# the expected seconds are the ticks chosen below over the captured dom0's
# cpu_mhz (2445.428 in xl info), not vmmprof's output.
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured
HZ=2445428000

# trace FILE: vptest (domain 1) vCPU 0 runs 1 s on pCPU 1, then 0.5 s on
# pCPU 0 and blocks; vCPU 1 leaves no record; the idle vCPU is skipped
mk_trace() {
	python3 - "$1" "$HZ" <<'PY'
import struct, sys
out, hz = sys.argv[1], int(sys.argv[2])
def rs(tsc, dom, vcpu, old, new):
    ev = 0x00021001 | old << 8 | new << 4
    return struct.pack('<IIII', ev | 1 << 28 | 1 << 31, tsc & 0xffffffff, tsc >> 32, vcpu | dom << 16)
def window(cpu, recs):
    body = b''.join(recs)
    return struct.pack('<IiI', 0x0001f003 | 2 << 28, cpu, len(body)) + body
t0 = 1000
data = window(1, [rs(t0, 1, 0, 1, 0), rs(t0 + hz, 1, 0, 0, 1)])
data += window(0, [rs(t0 + hz, 1, 0, 1, 0), rs(t0 + hz + hz // 2, 1, 0, 0, 2),
                   rs(t0 + hz + hz // 2, 0x7fff, 0, 2, 0)])
open(out, 'wb').write(data)
PY
}

test_expect_success 'list vms --xentrace: each vCPU'"'"'s seconds per pCPU, as traced' '
	mkdir -p r && cp -r "$X/proc" "$X/sys" "$X/.vmmprof-fixture" r/ &&
	mkdir -p r/.vmmprof-fixture/xentrace && mk_trace r/.vmmprof-fixture/xentrace/trace.bin &&
	vmmprof list vms --xentrace --root r --json >j &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"vcpus\"][0][\"traced_run_s_per_pcpu\"] == {\"0\": 0.5, \"1\": 1.0}")" = True &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"vcpus\"][1][\"traced_run_s_per_pcpu\"] == {\"0\": 0, \"1\": 0}")" = True &&
	test "$(json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"trace_s\"]")" = 1.5 &&
	json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"trace_reason\"]" >reason &&
	grep -q "TRC_SCHED_MIN" reason &&
	vmmprof list vms --xentrace --root r >out &&
	grep -q "^    vCPU 0: pCPU 0 0.500 s, pCPU 1 1.000 s$" out &&
	grep -q "^    vCPU 1: did not run$" out
'

test_expect_success 'list vms --xentrace without a trace: the reason, no figures' '
	vmmprof list vms --xentrace=2 --root "$X" --json >j &&
	json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"trace_reason\"]" >reason &&
	grep -q "no traced residency: cannot open .*xentrace/trace.bin" reason &&
	test "$(json_get j "\"traced_run_s_per_pcpu\" in [v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"vcpus\"][0]")" = False
'

test_expect_success 'a damaged trace is refused with the byte where it breaks' '
	head -c 20 r/.vmmprof-fixture/xentrace/trace.bin >t && mv t r/.vmmprof-fixture/xentrace/trace.bin &&
	vmmprof list vms --xentrace --root r >out &&
	grep -q "no traced residency: xentrace data: byte 0: window of pCPU 1 runs past the end" out
'

test_expect_success '--xentrace takes 1 to 3600 s, and only for vms' '
	expect_exit 2 vmmprof list vms --xentrace=0 --root "$X" &&
	expect_exit 2 vmmprof list events --xentrace --root "$X"
'

test_done
