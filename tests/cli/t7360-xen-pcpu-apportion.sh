#!/bin/sh
# t7360-xen-pcpu-apportion.sh - core counters per domain in dom0 (issue 18
# item 4): with Xen's pmu_mode all, vpmu=1 and dom0 pinned 1:1
# (dom0_vcpus_pin, dom0's 2 vCPUs on Xen's 2 pCPUs), dom0 counts per pCPU
# and each pCPU's count is shared out to the vCPUs that ran there by their
# run time in Xen's scheduler trace, labelled apportioned.  Under a fixture
# root the N-th per-pCPU read is .vmmprof-fixture/xen-pcpu/N (cumulative
# counts) and the N-th trace read .vmmprof-fixture/xentrace/stream/N.bin,
# written below from Xen 4.17's record layout (public/trace.h) as in t7320.
#
# The fabricated schedule, in seconds after the first stamp:
#   pCPU 0: dom0 vCPU 0 0 - 0.5, vptest vCPU 1 0.5 - 2.0
#   pCPU 1: vptest vCPU 0 0 - 1.0, dom0 vCPU 1 1.0 - 1.5, nobody 1.5 - 2.0
# and the counts over the run (file 2 minus file 1):
#   cycles        pCPU 0: 4000, pCPU 1: 3000
#   instructions  pCPU 0: 2000, pCPU 1: 6000
# By hand: pCPU 0 ran 2.0 s in all, pCPU 1 1.5 s, so
#   vptest vCPU 1: cycles 4000 x 1.5/2.0 = 3000, instructions 2000 x 1.5/2.0 = 1500, IPC 0.5
#   vptest vCPU 0: cycles 3000 x 1.0/1.5 = 2000, instructions 6000 x 1.0/1.5 = 4000, IPC 2
#   vptest:        cycles 5000, instructions 5500
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured
HZ=2445428000

mk_root() {
	mkdir -p "$1" && cp -r "$X/proc" "$X/sys" "$X/.vmmprof-fixture" "$1"/ &&
	mkdir -p "$1/sys/hypervisor/pmu" "$1/sys/bus/event_source/devices/cpu" &&
	echo "$2" >"$1/sys/hypervisor/pmu/pmu_mode" &&
	echo 4 >"$1/sys/bus/event_source/devices/cpu/type" &&
	sed -i "s/^xen_commandline        : /&$3 /" "$1/.vmmprof-fixture/xl/info-n.txt" &&
	# dom0_vcpus_pin: dom0.s vCPU k hard-pinned on pCPU k in xl vcpu-list
	sed -i "s|^\(Domain-0  *0  *\([0-9]\)  .*\)all / all\$|\1\2 / all|" "$1/.vmmprof-fixture/xl/vcpu-list.txt" &&
	test "$(grep -c "^Domain-0 .* [01] / all\$" "$1/.vmmprof-fixture/xl/vcpu-list.txt")" = 2 &&
	mkdir -p "$1/.vmmprof-fixture/xentrace/stream" "$1/.vmmprof-fixture/xen-pcpu" &&
	printf "cycles 100 200\ninstructions 10 20\n" >"$1/.vmmprof-fixture/xen-pcpu/1" &&
	printf "cycles 4100 3200\ninstructions 2010 6020\n" >"$1/.vmmprof-fixture/xen-pcpu/2" &&
	python3 - "$1/.vmmprof-fixture/xentrace/stream" "$HZ" <<-\PY
	import struct, sys
	d, hz = sys.argv[1], int(sys.argv[2])
	def rs(tsc, dom, vcpu, old, new):
	    ev = 0x00021001 | old << 8 | new << 4
	    return struct.pack("<IIII", ev | 1 << 28 | 1 << 31, tsc & 0xffffffff, tsc >> 32, vcpu | dom << 16)
	def window(cpu, recs):
	    body = b"".join(recs)
	    return struct.pack("<IiI", 0x0001f003 | 2 << 28, cpu, len(body)) + body
	t0, h = 1000, hz // 2
	# read 1: dom0 vCPU 0 starts on pCPU 0, vptest vCPU 0 on pCPU 1
	open(d + "/1.bin", "wb").write(window(0, [rs(t0, 0, 0, 1, 0)]) + window(1, [rs(t0, 1, 0, 1, 0)]))
	# read 2: the rest of the schedule above (running 0, runnable 1, blocked 2)
	open(d + "/2.bin", "wb").write(
	    window(0, [rs(t0 + h, 0, 0, 0, 2), rs(t0 + h, 1, 1, 1, 0), rs(t0 + 4 * h, 1, 1, 0, 2)]) +
	    window(1, [rs(t0 + 2 * h, 1, 0, 0, 2), rs(t0 + 2 * h, 0, 1, 1, 0), rs(t0 + 3 * h, 0, 1, 0, 2)]))
	PY
}

# vmrow NAME KEY FILE: diagnose --json's KEY of the VM row NAME
vmrow() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[3]))
print([v for v in d[\"diagnosis\"][\"vms\"] if v[\"vm\"] == sys.argv[1] and v[\"kind\"] == \"vm\"][0][sys.argv[2]])" "$1" "$2" "$3"
}

test_expect_success 'setup: a dom0 in pmu_mode all, pinned 1:1, with a trace and per-pCPU counts' '
	mk_root r all "vpmu=1 dom0_vcpus_pin" &&
	vmmprof info --root r >info &&
	grep_q "per-domain PMU   apportioned: pmu_mode is .all.; dom0 has one vCPU pinned on each of the 2 pCPUs" info &&
	vmmprof info --root r --json >info.json &&
	test "$(json_get info.json "j[\"virtualization\"][\"xen_domain_pmu\"]")" = True
'

test_expect_success 'diagnose --xentrace: the domain gets its share of each pCPU count, labelled apportioned' '
	vmmprof diagnose --root r -m vpmu --xentrace -d 0.3 --json >d.json 2>err &&
	test "$(vmrow vptest cycles d.json)" = 5000 &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "core counters per domain: pmu_mode is .all.; dom0 has one vCPU pinned on each of the 2 pCPUs" notes &&
	grep_q "apportioned: each pCPU.s count over the interval shared out by the time each domain.s vCPUs ran on it" notes &&
	! grep_q "perf events are not counted per vCPU" notes
'

test_expect_success 'without --xentrace: not apportioned, and the note says what to add' '
	vmmprof diagnose --root r -m vpmu -d 0.2 --json >d.json 2>err &&
	test "$(vmrow vptest cycles d.json)" = None &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "core counters per domain: n/a: .*add --xentrace" notes
'

test_expect_success 'pmu_mode self: n/a, naming pmu_mode all and that vmmprof never switches it' '
	mk_root self self "vpmu=1 dom0_vcpus_pin" &&
	vmmprof diagnose --root self -m vpmu --xentrace -d 0.2 --json >d.json 2>err &&
	test "$(vmrow vptest cycles d.json)" = None &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "core counters per domain: n/a: pmu_mode is .self.: dom0.s counters cover dom0 alone" notes &&
	grep_q "vmmprof never switches it" notes
'

test_expect_success 'dom0 not pinned: n/a, naming dom0_vcpus_pin' '
	mk_root nopin all "vpmu=1" &&
	vmmprof diagnose --root nopin -m vpmu --xentrace -d 0.2 --json >d.json 2>err &&
	test "$(vmrow vptest cycles d.json)" = None &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "core counters per domain: n/a: pmu_mode is .all.; dom0 is not pinned 1:1 (2 vCPU(s) on 2 pCPUs, no dom0_vcpus_pin)" notes &&
	grep_q "dom0_max_vcpus=2 dom0_vcpus_pin" notes
'

test_expect_success 'dom0 vCPU not hard-pinned in xl vcpu-list: n/a, whatever the command line says' '
	mk_root loose all "vpmu=1 dom0_vcpus_pin" &&
	sed -i "s|^\(Domain-0  *0  *1  .*\)1 / all\$|\1all / all|" loose/.vmmprof-fixture/xl/vcpu-list.txt &&
	vmmprof diagnose --root loose -m vpmu --xentrace -d 0.3 --json >d.json 2>err &&
	test "$(vmrow vptest cycles d.json)" = None &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "core counters per domain: n/a: dom0.s vCPU 1 is not hard-pinned on pCPU 1 (xl vcpu-list)" notes
'

test_expect_success 'no vPMU (the captured dom0): n/a, naming vpmu=1' '
	mkdir -p novpmu && cp -r "$X/proc" "$X/sys" "$X/.vmmprof-fixture" novpmu/ &&
	mkdir -p novpmu/sys/bus/event_source/devices/cpu && echo 4 >novpmu/sys/bus/event_source/devices/cpu/type &&
	vmmprof diagnose --root novpmu -m vpmu --xentrace -d 0.2 --json >d.json 2>err &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "core counters per domain: n/a: Xen has no vPMU .*add vpmu=1" notes
'

. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
daemon_home
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null

# fr VCPU EXPR FILE: EXPR over vptest vCPU VCPU's row (as r) in the frame
# of the history whose interval holds the counts (cycles > 0)
fr() {
	python3 -c "
import json, sys
fs = json.load(open(sys.argv[3]))[\"frames\"]
rows = [r for f in fs for r in f[\"rows\"] if r[\"key\"].endswith(\":1:v\" + sys.argv[1]) and r[\"kind\"] == \"vcpu\" and (r[\"cycles\"] or 0) > 0]
r = rows[0]
print(eval(sys.argv[2]))" "$1" "$2" "$3"
}

test_expect_success 'a daemon session: vCPU frames carry the apportioned counts and say so' '
	printf "users = users\nroot = \"%s\"\nxentrace = on\n" "$TRASH/r" >conf &&
	start_daemon on --config conf &&
	expect_status 201 on adm.tok POST /api/v1/sessions -d "{\"model\":\"vpmu\",\"interval_ms\":200}" &&
	id=$(json_get body "j[\"id\"]") &&
	sleep 1 &&
	expect_status 200 on adm.tok GET "/api/v1/sessions/$id/history?since=0" &&
	cp body hist.json &&
	test "$(fr 0 "r[\"cycles\"]" hist.json)" = 2000 &&
	test "$(fr 0 "r[\"metrics\"][\"ipc\"] == 2" hist.json)" = True &&
	test "$(fr 1 "r[\"cycles\"]" hist.json)" = 3000 &&
	test "$(fr 1 "r[\"metrics\"][\"ipc\"] == 0.5" hist.json)" = True &&
	fr 0 "\" \".join(r[\"apportioned\"])" hist.json >ap &&
	grep_q "ipc" ap && grep_q "cpi" ap &&
	expect_status 200 on adm.tok DELETE /api/v1/sessions/$id &&
	stop_daemon on && test "$(cat on.rc)" = 0
'

stop_all_daemons
test_done
