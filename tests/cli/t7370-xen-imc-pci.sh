#!/bin/sh
# t7370-xen-imc-pci.sh - the memory controllers' counters from dom0 without
# the kernel's uncore driver (issue 18 item 5): diagnose --xen-imc reads
# CAS_COUNT.RD/WR from the IMC channels' PCI configuration space and gives
# the model's uncore_imc inputs per node (measured on the node rows).
# The fixture is the captured dom0 made an Intel Broadwell-EP (family 6
# model 79) with pCPU 1 on socket 1, and a fabricated config space: a Ubox
# 0x6f1e on bus 7f (node id 0) and ff (node id 1), GIDNIDMAP 0x8 (socket 0
# is node id 0, socket 1 node id 1), an IMC channel 0x6fb0 on each bus
# (device ids of uncore_snbep.c's bdx_uncore_pci_ids).  The N-th counter
# read takes .vmmprof-fixture/imc-config/N/BDF.  Over the run, by hand:
#   socket 0 (node 0): RD 15,625,000 + WR 7,812,500 CAS x 64 B = 1.5e9 B
#   socket 1 (node 1): RD 781,250 x 64 B = 5e7 B
# so node 0's bandwidth x the run's duration is 1.5 GB and node 1's 0.05 GB.
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured

mk_intel() {
	mkdir -p "$1" && cp -r "$X/proc" "$X/sys" "$X/.vmmprof-fixture" "$1"/ &&
	sed -i "s/AuthenticAMD/GenuineIntel/; s/^cpu family\t: 15/cpu family\t: 6/; s/^model\t\t: 107/model\t\t: 79/" "$1/proc/cpuinfo" &&
	sed -i "s/^  1:       1        0        1/  1:       1        1        1/" "$1/.vmmprof-fixture/xl/info-n.txt" &&
	grep -q "^  1:       1        1        1" "$1/.vmmprof-fixture/xl/info-n.txt"
}

# pci.py: dev(ROOT, BDF, DEVICE_ID, {OFFSET: DWORD}) makes an Intel PCI device
# under ROOT/sys/bus/pci/devices; cfg(PATH, {OFFSET: QWORD}) writes a config
# space file holding those 64-bit values (counters: 48 bits, low dword first)
cat >"$TRASH/pci.py" <<-\PY
import os, struct
def dev(r, bdf, did, regs):
    D = r + "/sys/bus/pci/devices/" + bdf
    os.makedirs(D, exist_ok=True)
    open(D + "/vendor", "w").write("0x8086\n")
    open(D + "/device", "w").write("0x%04x\n" % did)
    c = bytearray(256)
    for off, v in regs.items():
        c[off:off + 4] = struct.pack("<I", v)
    open(D + "/config", "wb").write(c)
def cfg(path, vals):
    c = bytearray(256)
    for off, v in vals.items():
        c[off:off + 8] = struct.pack("<Q", v)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(c)
PY

mk_imc() {
	PYTHONPATH=$TRASH python3 - "$1" <<-\PY
	import sys
	from pci import dev, cfg
	r = sys.argv[1]
	dev(r, "0000:7f:10.5", 0x6f1e, {0x40: 0, 0x54: 0x8})
	dev(r, "0000:ff:10.5", 0x6f1e, {0x40: 1, 0x54: 0x8})
	dev(r, "0000:7f:14.0", 0x6fb0, {})
	dev(r, "0000:ff:14.0", 0x6fb0, {})
	# CAS_COUNT.RD in counter 0 (0xa0), .WR in counter 1 (0xa8)
	F = r + "/.vmmprof-fixture/imc-config/"
	cfg(F + "1/0000:7f:14.0", {0xa0: 1000})
	cfg(F + "1/0000:ff:14.0", {})
	cfg(F + "2/0000:7f:14.0", {0xa0: 1000 + 15625000, 0xa8: 7812500})
	cfg(F + "2/0000:ff:14.0", {0xa0: 781250})
	PY
}

# gb N FILE: node N's bw_gbs x the run's duration (GB moved), from diagnose --json
gb() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[2]))
n = [n for n in d[\"diagnosis\"][\"nodes\"] if n[\"node\"] == int(sys.argv[1])][0]
print(round(n[\"bw_gbs\"] * d[\"duration_s\"], 9), n[\"quality\"])" "$1" "$2"
}

test_expect_success 'diagnose --xen-imc: CAS counts from PCI config space, per node, measured' '
	mk_intel r && mk_imc r &&
	vmmprof diagnose --root r -m bdx --xen-imc -d 0.3 --json >d.json 2>err &&
	test "$(gb 0 d.json)" = "1.5 measured" &&
	test "$(gb 1 d.json)" = "0.05 measured" &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "IMC counters from PCI config space (BDX, 2 channels)" notes &&
	test "$(json_get d.json "j[\"inputs_not_counted\"].get(\"cas_rd\")")" = None &&
	test "$(json_get d.json "j[\"factor_quality\"][\"imc\"]")" = apportioned
'

test_expect_success 'the event selects it programmed are disabled again at the end' '
	python3 -c "
import struct, sys
c = open(sys.argv[1], \"rb\").read()
print(struct.unpack(\"<4I\", c[0xd8:0xe8]))" r/sys/bus/pci/devices/0000:7f:14.0/config >sel &&
	test "$(cat sel)" = "(0, 0, 0, 0)"
'

test_expect_success 'a channel someone else programmed is left alone, and its node is not measured' '
	mk_intel busy && mk_imc busy &&
	python3 -c "
import struct, sys
p = sys.argv[1]
c = bytearray(open(p, \"rb\").read())
c[0xd8:0xdc] = struct.pack(\"<I\", 0x00400304)
open(p, \"wb\").write(c)" busy/sys/bus/pci/devices/0000:ff:14.0/config &&
	vmmprof diagnose --root busy -m bdx --xen-imc -d 0.3 --json >d.json 2>err &&
	test "$(gb 0 d.json)" = "1.5 measured" &&
	json_get d.json "[n[\"bw_gbs\"] for n in j[\"diagnosis\"][\"nodes\"] if n[\"node\"] == 1][0]" >n1 &&
	test "$(cat n1)" = None &&
	python3 -c "
import struct, sys
print(hex(struct.unpack(\"<I\", open(sys.argv[1], \"rb\").read()[0xd8:0xdc])[0]))" busy/sys/bus/pci/devices/0000:ff:14.0/config >sel &&
	test "$(cat sel)" = 0x400304
'

test_expect_success 'AMD (the captured dom0): n/a, no route from dom0' '
	vmmprof diagnose --root "$X" -m bdx --xen-imc -d 0.2 --json >d.json 2>err &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "IMC counters from PCI config space: n/a: the CPU is AuthenticAMD, not Intel: AMD.s memory-controller counters (DF/UMC) are MSRs" notes
'

test_expect_success 'Intel without such devices (as under TCG): n/a, naming the generations' '
	mk_intel none &&
	vmmprof diagnose --root none -m bdx --xen-imc -d 0.2 --json >d.json 2>err &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "IMC counters from PCI config space: n/a: .*no Intel memory-controller channel (Sandy Bridge-EP to Cascade Lake device ids)" notes
'

test_expect_success 'Ice Lake-SP: MMIO, not built' '
	mk_intel icx && mk_imc icx &&
	sed -i "s/^model\t\t: 79/model\t\t: 106/" icx/proc/cpuinfo &&
	vmmprof diagnose --root icx -m bdx --xen-imc -d 0.2 --json >d.json 2>err &&
	json_get d.json "j[\"notes\"]" >notes &&
	grep_q "IMC counters from PCI config space: n/a: .*Ice Lake-SP or later.*MMIO.*not built" notes
'

test_expect_success 'help: diagnose and record take --xen-imc; a dom0 factor reason names it' '
	vmmprof help diagnose | grep -q -- "--xen-imc" &&
	vmmprof help record | grep -q -- "--xen-imc" &&
	vmmprof diagnose --root "$X" -d 0.2 --json >d.json 2>err &&
	json_get d.json "j[\"unavailable\"][\"imc\"]" >imc &&
	grep_q "xen-imc reads them from PCI config space on Intel Xeon Sandy Bridge-EP to Cascade Lake" imc
'

# Sandy Bridge-EP (family 6 model 45): Ubox 0x3ce0, IMC channel 0x3cb0
# (snbep_uncore_pci_ids), one per socket.  Over the run (read 2 minus read
# 1), from the counters' offsets (CTR0 0xa0 +8, fixed DRAM clock 0xd0):
#   socket 0: RPQ_CYCLES_FULL 40,000,000, WPQ_CYCLES_FULL 10,000,000 of
#             400,000,000 DRAM clocks: max(0.1, 0.025) = 0.1
#   socket 1: RPQ full 0, WPQ full 20,000,000 of 400,000,000: 0.05
# the snb-ep model's queue score (tracker_full_frac) per node, by hand.
mk_snbep() {
	mk_intel "$1" &&
	sed -i "s/^model\t\t: 79/model\t\t: 45/" "$1/proc/cpuinfo" &&
	PYTHONPATH=$TRASH python3 - "$1" <<-\PY
	import sys
	from pci import dev, cfg
	r = sys.argv[1]
	dev(r, "0000:3f:0e.0", 0x3ce0, {0x40: 0, 0x54: 0x8})
	dev(r, "0000:7f:0e.0", 0x3ce0, {0x40: 1, 0x54: 0x8})
	dev(r, "0000:3f:10.0", 0x3cb0, {})
	dev(r, "0000:7f:10.0", 0x3cb0, {})
	F = r + "/.vmmprof-fixture/imc-config/"
	cfg(F + "1/0000:3f:10.0", {0xd0: 5})
	cfg(F + "1/0000:7f:10.0", {0xd0: 5})
	cfg(F + "2/0000:3f:10.0", {0xa0: 1000000, 0xb0: 40000000, 0xb8: 10000000, 0xd0: 400000005})
	cfg(F + "2/0000:7f:10.0", {0xa0: 2000, 0xb8: 20000000, 0xd0: 400000005})
	PY
}

test_expect_success 'SNB-EP: the queue factor from the pending queues, per node, not n/a' '
	mk_snbep q &&
	vmmprof diagnose --root q -m snb-ep --xen-imc -d 0.3 --json >d.json 2>err &&
	json_get d.json "[(n[\"node\"], n[\"queue_full_frac\"], n[\"quality\"]) for n in j[\"diagnosis\"][\"nodes\"]]" >qf &&
	test "$(cat qf)" = "[(0, 0.1, '"'"'measured'"'"'), (1, 0.05, '"'"'measured'"'"')]" &&
	test "$(json_get d.json "j[\"factor_quality\"][\"queue\"]")" = apportioned &&
	test "$(json_get d.json "j[\"unavailable\"].get(\"queue\")")" = None &&
	python3 -c "
import struct, sys
c = open(sys.argv[1], \"rb\").read()
print(struct.unpack(\"<5I\", c[0xd8:0xe8] + c[0xf0:0xf4]))" q/sys/bus/pci/devices/0000:3f:10.0/config >sel &&
	test "$(cat sel)" = "(0, 0, 0, 0, 0)" &&
	vmmprof diagnose --root q -m snb-ep -d 0.2 --json >plain.json 2>err &&
	json_get plain.json "j[\"unavailable\"][\"queue\"]" >why &&
	grep_q "xen-imc" why
'

# sel BDF DIR: counter 0's event select of channel BDF in DIR's config space
sel() {
	python3 -c "
import struct, sys
print(hex(struct.unpack(\"<I\", open(sys.argv[1], \"rb\").read()[0xd8:0xdc])[0]))" "$2/sys/bus/pci/devices/$1/config"
}

test_expect_success 'top --xen-imc: the IMC inputs counted from PCI config space, cleared after' '
	mk_intel t && mk_imc t &&
	vmmprof top --root t -m bdx --xen-imc --json -n 2 -d 0.2 >top.jsonl 2>err &&
	tail -n 1 top.jsonl >last.json &&
	test "$(json_get last.json "j[\"counters\"][\"factors\"][\"imc\"]")" = counted &&
	json_get last.json "j[\"counters\"][\"status\"]" >status &&
	grep_q "counted: imc (apportioned)" status &&
	test "$(sel 0000:7f:14.0 t)" = 0x0 &&
	vmmprof top --root t -m bdx --json -n 1 >plain.json 2>err &&
	test "$(json_get plain.json "j[\"counters\"][\"on\"]")" = False &&
	! vmmprof top --root t --xen-imc --no-counters --json -n 1 2>err &&
	grep_q "needs counters" err
'

. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
daemon_home
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null

# gbs FILE: node 0 and node 1 GB over a session history's frames (mem_bw x duration)
gbs() {
	python3 -c "
import json, sys
t = {0: 0.0, 1: 0.0}
q = set()
for f in json.load(open(sys.argv[1]))[\"frames\"]:
    for n in f[\"nodes\"]:
        t[n[\"node\"]] += n[\"metrics\"][\"mem_bw\"] * f[\"duration\"]
        q.add(n[\"quality\"])
print(round(t[0], 6), round(t[1], 6), \",\".join(sorted(q)))" "$1"
}

# Two sessions of one daemon (xen_imc = on) read one set of channels that the
# daemon programmed once: the second is not refused as someone else.  Reads
# 3 and later of the fixture add 1,000,000 CAS reads (64 MB) each to socket
# 0, none to socket 1; a session sees 64 MB per update it spans, so by hand
#   session 1 (from the start): node 0 1.5 GB + k x 0.064 GB, node 1 0.05 GB
#   session 2 (joins later):    node 0 k x 0.064 GB with k >= 1, node 1 0
test_expect_success 'daemon xen_imc: two sessions share the channels; cleared after the last' '
	mk_intel d && mk_imc d &&
	PYTHONPATH=$TRASH python3 - d <<-\PY &&
	import sys
	from pci import cfg
	F = sys.argv[1] + "/.vmmprof-fixture/imc-config/"
	for n in range(3, 400):
	    cfg(F + "%d/0000:7f:14.0" % n, {0xa0: 1000 + 15625000 + (n - 2) * 1000000, 0xa8: 7812500})
	    cfg(F + "%d/0000:ff:14.0" % n, {0xa0: 781250})
	PY
	printf "users = users\nroot = \"%s\"\nxen_imc = on\n" "$TRASH/d" >conf &&
	start_daemon imc --config conf &&
	grep_q "Xen IMC counters from PCI config space (xen_imc)" imc.err &&
	expect_status 201 imc adm.tok POST /api/v1/sessions -d "{\"model\":\"bdx\",\"interval_ms\":200}" &&
	id1=$(json_get body "j[\"id\"]") &&
	test "$(sel 0000:7f:14.0 d)" = 0x400304 &&
	sleep 0.5 &&
	expect_status 201 imc adm.tok POST /api/v1/sessions -d "{\"model\":\"bdx\",\"interval_ms\":200}" &&
	id2=$(json_get body "j[\"id\"]") &&
	sleep 1 &&
	expect_status 200 imc adm.tok GET "/api/v1/sessions/$id1/history?since=0" && cp body h1 &&
	expect_status 200 imc adm.tok GET "/api/v1/sessions/$id2/history?since=0" && cp body h2 &&
	gbs h1 >g1 && gbs h2 >g2 &&
	python3 -c "
import sys
a0, a1, q1 = open(sys.argv[1]).read().split()
b0, b1, q2 = open(sys.argv[2]).read().split()
k1 = (float(a0) - 1.5) / 0.064
k2 = float(b0) / 0.064
ok = abs(k1 - round(k1)) < 1e-6 and round(k1) >= 0 and float(a1) == 0.05
ok = ok and abs(k2 - round(k2)) < 1e-6 and round(k2) >= 1 and float(b1) == 0
ok = ok and q1 == q2 == \"measured\"
sys.exit(0 if ok else 1)" g1 g2 &&
	expect_status 200 imc adm.tok DELETE /api/v1/sessions/$id1 &&
	test "$(sel 0000:7f:14.0 d)" = 0x400304 &&
	expect_status 200 imc adm.tok DELETE /api/v1/sessions/$id2 &&
	test "$(sel 0000:7f:14.0 d)" = 0x0 &&
	stop_daemon imc && test "$(cat imc.rc)" = 0
'

test_expect_success 'serve --xen-imc is the xen_imc setting' '
	vmmprof help serve | grep -q -- "--xen-imc"
'

stop_all_daemons
test_done
