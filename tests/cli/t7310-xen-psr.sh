#!/bin/sh
# t7310-xen-psr.sh - `list vms --xen-psr`: Xen's per-domain LLC occupancy and
# memory bandwidth.  The xl outputs are written here in tools/xl/xl_psr.c's
# formats (Xen 4.17) on a copy of the captured dom0 whose Xen command line
# gains psr=cmt; the expected numbers are the ones written, KB x 1024.  The
# testbed has no RDT (QEMU TCG), so only the refusal is seen live.
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

# vm_psr KEY: vptest's psr[KEY] in j
vm_psr() { json_get j "[v for v in j[\"vms\"] if v[\"name\"] == \"vptest\"][0][\"psr\"][\"$1\"]"; }

test_expect_success 'list vms --xen-psr: occupancy, bandwidth and remote share per domain' '
	psr_root &&
	vmmprof list vms --xen-psr --root p --json >j &&
	test "$(vm_psr llc_occupancy_bytes)" = $((6144 * 1024)) &&
	test "$(vm_psr mem_bandwidth_bytes_per_s)" = $((400000 * 1024)) &&
	test "$(vm_psr local_bandwidth_bytes_per_s)" = $((300000 * 1024)) &&
	test "$(vm_psr remote_share)" = 0.25 &&
	vm_psr reason >r && grep -q "attached for this read and detached after it" r &&
	grep -q "10 ms sample" r &&
	vmmprof list vms --xen-psr --root p >out &&
	grep -q "^  PSR         LLC 6.0 MiB, bandwidth 409.6 MB/s, remote 25% (Xen PSR" out
'

test_expect_success 'an attach that fails (already attached): read, and left attached' '
	rm p/.vmmprof-fixture/xl/psr-cmt-attach-1.txt &&
	vmmprof list vms --xen-psr --root p --json >j &&
	vm_psr reason >r && grep -q "not attached by vmmprof" r &&
	test "$(vm_psr llc_occupancy_bytes)" = $((6144 * 1024))
'

test_expect_success 'without psr=cmt (the testbed Xen): n/a, the reason names the boot option' '
	vmmprof list vms --xen-psr --root "$X" --json >j &&
	test "$(vm_psr llc_occupancy_bytes)" = None &&
	vm_psr reason >r && grep -q "n/a: needs psr=cmt on Xen.s command line" r
'

test_expect_success 'CMT not enabled in xl psr-hwinfo: n/a with the reason' '
	printf "Cache Monitoring Technology (CMT):\nEnabled         : 0\n" >p/.vmmprof-fixture/xl/psr-hwinfo.txt &&
	vmmprof list vms --xen-psr --root p --json >j &&
	vm_psr reason >r && grep -q "CMT is not enabled" r
'

test_done
