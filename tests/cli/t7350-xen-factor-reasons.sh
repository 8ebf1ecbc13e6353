#!/bin/sh
# t7350-xen-factor-reasons.sh - on a Xen dom0, every factor that diagnose,
# top and a daemon session cannot evaluate says what would measure it per
# domain there, naming the boot option or the hardware (issue 18): the LLC
# Xen PSR CMT (psr=cmt, an Intel CPU with RDT) or the vPMU (vpmu=1);
# sharing the vPMU; the IMC PSR MBM, and dom0 has no uncore PMU; the queue
# trackers uncore MSRs Xen does not let dom0 read.  The captured dom0
# (tests/data/xen-captured: Xen 4.17 under QEMU TCG, an AMD-signature CPU,
# no vpmu= and no psr= on Xen's command line, pmu_mode unreadable) is
# what the words are checked against; a KVM host gets none of them.
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured
R=$VP_DATA/root

# una FACTOR FILE: diagnose --json's reason why FACTOR is unavailable
una() {
	python3 -c "import json, sys; print(json.load(open(sys.argv[2]))[\"unavailable\"].get(sys.argv[1], \"\"))" "$1" "$2"
}

test_expect_success 'diagnose --json on a dom0: each unavailable factor names what would enable it on Xen' '
	vmmprof diagnose --root "$X" -d 0.2 --json >d.json 2>err &&
	una llc d.json >llc && grep_q "on this Xen dom0: per-domain LLC occupancy: Xen PSR CMT" llc &&
	grep_q "needs psr=cmt on Xen.s command line (it has none) and an Intel CPU with RDT (this one is not Intel)" llc &&
	grep_q "LLC misses: Xen has no vPMU .*add vpmu=1 to Xen.s command line" llc &&
	una sharing d.json >sh && grep_q "HITM and snoop-forward counts: Xen has no vPMU .*vpmu=1" sh &&
	una imc d.json >imc && grep_q "per-domain bandwidth: Xen PSR MBM .*needs psr=cmt" imc &&
	grep_q "dom0 has no uncore PMU" imc &&
	una queue d.json >q && grep_q "uncore MSRs, which Xen does not let dom0 read" q
'

test_expect_success 'diagnose text: the same reasons under Not measurable here' '
	vmmprof diagnose --root "$X" -d 0.2 >d.txt 2>err &&
	sed -n "/^Not measurable here/,/^\$/p" d.txt >na &&
	test "$(grep -c "on this Xen dom0: " na)" = 4 &&
	grep_q "^  queue .*uncore MSRs" na
'

test_expect_success 'top --json on a dom0: factor_why names vpmu=1 and psr=cmt' '
	vmmprof top --root "$X" --json -n 1 >t.json 2>err &&
	json_get t.json "j[\"factor_why\"][\"llc\"]" >llc &&
	grep_q "on this Xen dom0: .*psr=cmt.*vpmu=1" llc &&
	json_get t.json "j[\"factor_why\"][\"imc\"]" >imc &&
	grep_q "on this Xen dom0: .*psr=cmt.*dom0 has no uncore PMU" imc
'

test_expect_success 'psr=cmt on Xen.s command line but not asked for: the reason says --xen-psr' '
	mkdir -p p && cp -r "$X/proc" "$X/sys" "$X/.vmmprof-fixture" p/ &&
	sed "s/^xen_commandline .*/& psr=cmt/" "$X/.vmmprof-fixture/xl/info-n.txt" >p/.vmmprof-fixture/xl/info-n.txt &&
	vmmprof diagnose --root p -d 0.2 --json >p.json 2>err &&
	una imc p.json >imc &&
	grep_q "Xen PSR MBM (xl psr-cmt-show total-mem-bandwidth): psr=cmt on Xen.s command line: ask with --xen-psr" imc
'

test_expect_success 'a KVM host: no Xen words in the reasons' '
	vmmprof diagnose --root "$R/host-libvirt-v2" -d 0.2 --json >k.json 2>err &&
	! grep -q "Xen dom0" k.json
'

# the daemon: a session on the dom0 gives its diagnosis the same reasons
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
daemon_home
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null

test_expect_success 'a daemon session on a dom0: its diagnosis names vpmu=1 and psr=cmt' '
	start_daemon d --users users --root "$X" &&
	expect_status 201 d adm.tok POST /api/v1/sessions -d "{\"model\":\"software\",\"interval_ms\":200}" &&
	id=$(json_get body "j[\"id\"]") &&
	sleep 0.8 &&
	expect_status 200 d adm.tok GET /api/v1/sessions/$id/diagnosis &&
	una llc body >llc &&
	grep_q "on this Xen dom0: .*psr=cmt.*vpmu=1" llc &&
	expect_status 200 d adm.tok DELETE /api/v1/sessions/$id &&
	stop_daemon d && test "$(cat d.rc)" = 0
'

stop_all_daemons
test_done
