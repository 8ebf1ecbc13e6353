#!/bin/sh
# t7340-xen-psr-periodic.sh - --xen-psr in the periodic views: top shows each
# domain's LLC occupancy and memory bandwidth from Xen's PSR; diagnose, record
# and the daemon feed them to the model's resctrl.* inputs, per domain (a
# vCPU row has its domain's values), labelled as Xen's and per domain; where
# Xen has no PSR the notes say why, naming psr=cmt.  The xl outputs are
# written in tools/xl/xl_psr.c's formats (Xen 4.17) on a copy of the
# captured dom0 whose Xen command line gains psr=cmt.  Expected values by
# hand: vptest has 6144 KB of LLC (6291456 bytes), 400000 KB/s in total and
# 300000 KB/s local (xl's KB are 1024 bytes): 409.6 MB/s, of it 307.2 MB/s
# local, so the remote share is 1 - 300000/400000 = 0.25, and against a
# calibrated peak of 1.6384 GB/s the bandwidth use is 0.4096/1.6384 = 0.25.
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured

psr_root() {
	mkdir -p p && cp -r "$X/proc" "$X/sys" "$X/.vmmprof-fixture" p/ &&
	sed "s/^xen_commandline .*/& psr=cmt/" "$X/.vmmprof-fixture/xl/info-n.txt" >p/.vmmprof-fixture/xl/info-n.txt &&
	F=p/.vmmprof-fixture/xl &&
	printf "Cache Monitoring Technology (CMT):\nEnabled         : 1\nTotal RMID      : 63\nSupported monitor types:\ncache-occupancy\ntotal-mem-bandwidth\nlocal-mem-bandwidth\n" >$F/psr-hwinfo.txt &&
	: >$F/psr-cmt-attach-0.txt && : >$F/psr-cmt-attach-1.txt &&
	: >$F/psr-cmt-detach-0.txt && : >$F/psr-cmt-detach-1.txt &&
	{ printf "Total RMID: 63\n%-40s %5s%14s %d\n" Name ID Socket 0
	  printf "%-46s%13u KB\n" "Total L3 Cache Size" 16384
	  printf "%-40s %5d%13u KB\n" Domain-0 0 2048 vptest 1 6144; } >$F/psr-cmt-show-cache-occupancy.txt &&
	{ printf "Total RMID: 63\n%-40s %5s%14s %d\n" Name ID Socket 0
	  printf "%-40s %5d%11u KB/s\n" Domain-0 0 1000 vptest 1 400000; } >$F/psr-cmt-show-total-mem-bandwidth.txt &&
	{ printf "Total RMID: 63\n%-40s %5s%14s %d\n" Name ID Socket 0
	  printf "%-40s %5d%11u KB/s\n" Domain-0 0 1000 vptest 1 300000; } >$F/psr-cmt-show-local-mem-bandwidth.txt
}

# top_vm EXPR FILE: EXPR of vptest's row (as v) in the last sample of top --json
top_vm() {
	python3 -c "
import json, sys
s = [json.loads(l) for l in open(sys.argv[2])][-1]
v = [v for v in s[\"vms\"] if v[\"name\"] == \"vptest\"][0]
print(eval(sys.argv[1]))" "$1" "$2"
}

# diag_vm EXPR FILE: EXPR of vptest's factors (as f) in a diagnosis (JSON)
diag_vm() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[2]))
d = d.get(\"diagnosis\", d)
f = [v for v in d[\"vms\"] if v[\"vm\"] == \"vptest\"][0][\"factors\"]
print(eval(sys.argv[1]))" "$1" "$2"
}

test_expect_success 'top --xen-psr: occupancy and bandwidth per domain, the LLC column from Xen, labelled' '
	psr_root &&
	vmmprof top --root p --xen-psr --json -n 2 -d 0.1 >j &&
	test "$(top_vm "v[\"resctrl\"][\"llc_occupancy_bytes\"]" j)" = 6291456 &&
	test "$(top_vm "v[\"resctrl\"][\"mbm_total_bytes_per_s\"]" j)" = 409600000 &&
	test "$(top_vm "v[\"resctrl\"][\"mbm_local_bytes_per_s\"]" j)" = 307200000 &&
	test "$(top_vm "v[\"factors\"][\"llc\"][\"value\"]" j)" = 6291456 &&
	test "$(top_vm "v[\"factors\"][\"llc\"][\"source\"]" j)" = "xen psr" &&
	test "$(top_vm "v[\"factors\"][\"llc\"][\"quality\"]" j)" = measured &&
	tail -1 j >last && json_get last "j[\"notes\"]" >notes &&
	grep_q "Xen PSR (--xen-psr): LLC occupancy and memory bandwidth measured by Xen (Intel CMT/MBM, xl psr-cmt-show) per domain, not per vCPU; the bandwidth is xl.s 10 ms sample" notes &&
	vmmprof top --root p --xen-psr --batch -n 1 >out &&
	grep -E "^vptest +xen +1 .* 6\.0 +409\.6 +307\.2$" out
'

test_expect_success 'top --xen-psr without psr=cmt: n/a, and the reason names the boot option' '
	vmmprof top --root "$X" --xen-psr --json -n 1 >j &&
	test "$(top_vm "v[\"resctrl\"][\"llc_occupancy_bytes\"]" j)" = None &&
	top_vm "v[\"resctrl\"][\"why\"]" j >why &&
	grep_q "n/a: needs psr=cmt on Xen.s command line" why
'

test_expect_success 'diagnose --xen-psr: locality from the remote share of Xen MBM, IMC from its bandwidth against the peak' '
	"$VP_HELPERS/cal_synth" --root p cal.json peak_bw_gbs=1.6384 &&
	vmmprof diagnose --root p --xen-psr -d 0.3 --json --calibration cal.json >d 2>err &&
	python3 -c "
import json
d = json.load(open(\"d\"))[\"diagnosis\"]
f = [v for v in d[\"vms\"] if v[\"vm\"] == \"vptest\"][0][\"factors\"]
assert abs(f[\"locality\"][\"score\"] - 0.25) < 1e-9, f
assert abs(f[\"imc\"][\"score\"] - 0.25) < 1e-9, f
assert f[\"imc\"][\"quality\"] == \"measured\", f
" &&
	json_get d "j[\"notes\"]" >notes &&
	grep_q "Xen PSR: LLC occupancy and memory bandwidth measured by Xen (Intel CMT/MBM, xl psr-cmt-show) per domain, not per vCPU (a vCPU row has its domain.s values); the bandwidth is xl.s 10 ms sample at each update x the interval" notes
'

test_expect_success 'diagnose without --xen-psr: no PSR value (locality is the placement estimate, IMC n/a)' '
	vmmprof diagnose --root p -d 0.3 --json --calibration cal.json >d 2>err &&
	test "$(diag_vm "f[\"imc\"][\"score\"]" d)" = None &&
	json_get d "j[\"notes\"]" >notes &&
	! grep -q "Xen PSR" notes
'

test_expect_success 'diagnose --xen-psr on the testbed Xen (no psr=cmt): n/a with the reason' '
	vmmprof diagnose --root "$X" --xen-psr -d 0.3 --json >d 2>err &&
	test "$(diag_vm "f[\"imc\"][\"score\"]" d)" = None &&
	json_get d "j[\"notes\"]" >notes &&
	grep_q "Xen PSR of domain .vptest.: n/a: needs psr=cmt on Xen.s command line" notes
'

test_expect_success 'record --xen-psr: the recording holds the domain.s measured IMC' '
	vmmprof record --root p --xen-psr -d 0.6 -I 200 --calibration cal.json -o r.vmmdb 2>err &&
	vmmprof diagnose r.vmmdb --json >d 2>err2 &&
	test "$(diag_vm "round(f[\"imc\"][\"score\"], 9)" d)" = 0.25
'

test_expect_success 'help: top, diagnose, record and serve take --xen-psr' '
	vmmprof help top | grep -q -- "--xen-psr" &&
	vmmprof help diagnose | grep -q -- "--xen-psr" &&
	vmmprof help record | grep -q -- "--xen-psr" &&
	vmmprof help serve | grep -q -- "--xen-psr"
'

. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
daemon_home
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null

test_expect_success 'daemon with xen_psr = on: a session diagnosis has the domain.s locality from Xen MBM' '
	printf "users = users\nroot = \"%s\"\nxen_psr = on\n" "$TRASH/p" >conf &&
	start_daemon on --config conf &&
	grep_q "^vmmprofd: Xen PSR per domain" on.err &&
	expect_status 201 on adm.tok POST /api/v1/sessions -d "{\"model\":\"software\",\"interval_ms\":200}" &&
	id=$(json_get body "j[\"id\"]") &&
	sleep 0.8 &&
	expect_status 200 on adm.tok GET /api/v1/sessions/$id/diagnosis &&
	test "$(diag_vm "round(f[\"locality\"][\"score\"], 9)" body)" = 0.25 &&
	grep_q "Xen PSR: LLC occupancy and memory bandwidth measured by Xen" body &&
	expect_status 200 on adm.tok DELETE /api/v1/sessions/$id &&
	stop_daemon on && test "$(cat on.rc)" = 0
'

stop_all_daemons
test_done
