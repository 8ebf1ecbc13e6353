#!/bin/sh
# t5000-top-batch.sh - `vmmprof top --batch` and `--json` on fixture trees: rows, estimates, n/a reasons
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root

test_expect_success 'top --batch: plain QEMU VM, its vCPUs and the placement estimate' '
	vmmprof top --batch -n 1 --root "$R/host-qemu" >out &&
	grep_q "^vptest,x  *kvm  *4000  *2 " out &&
	# memory 160 MiB on node 0, 64 MiB on node 1 (224 MiB); vCPU0 on node 0, vCPU1 on node 1
	grep_q "^vptest,x .* 224.0 .* 0  *50.0%e" out &&
	grep_q "^vptest,x  *0  *4002  *0  *0 .* 28.6%e" out &&
	grep_q "^vptest,x  *1  *4003  *3  *1 .* 71.4%e" out
'

test_expect_success 'top --batch: unmeasurable factors say n/a with a reason, never 0' '
	vmmprof top --batch -n 1 --root "$R/host-qemu" >out &&
	grep_q "^LLC n/a: ." out && grep_q "^SHARE n/a: ." out &&
	grep_q "^IMC n/a: ." out && grep_q "^QUEUE n/a: ." out &&
	! grep -E "^vptest.*(LLC|SHARE|IMC|QUEUE).* 0(\.0)? " out
'

test_expect_success 'top --batch: first sample has no rates (n/a), libvirt VMs sorted by name' '
	vmmprof top --batch -n 1 --root "$R/host-libvirt-v2" >out &&
	grep_q "^   0  *4096M  *8192M  *n/a  *n/a  *n/a  *n/a" out &&
	awk "/^VMS/{v=1} /^VCPUS/{v=0} v && /^(db-2|web1) /{print \$1}" out >names &&
	printf "db-2\nweb1\n" >want && cmp names want
'

test_expect_success 'top --batch: resctrl group of a VM gives its LLC occupancy (1 MiB + 512 KiB)' '
	vmmprof top --batch -n 1 --root "$R/host-libvirt-v2" >out &&
	grep_q "^web1 .* 50.0%e  *1.5M " out
'

test_expect_success 'top --json: JSON lines, rates after the second sample, labels on factors' '
	vmmprof top --json -n 2 -d 0.1 --root "$R/host-libvirt-v2" >out &&
	test $(wc -l <out) = 2 &&
	head -1 out >s1 && tail -1 out >s2 &&
	test "$(json_get s1 "j[\"interval_s\"]")" = None &&
	json_get s2 "j[\"interval_s\"] > 0.05" | grep -q True &&
	# the fixture does not change: zero pages per second, measured
	test "$(json_get s2 "j[\"nodes\"][1][\"remote_pages_per_s\"]")" = 0 &&
	test "$(json_get s1 "[v for v in j[\"vms\"] if v[\"name\"]==\"web1\"][0][\"factors\"][\"locality\"][\"quality\"]")" = estimate &&
	test "$(json_get s1 "[v for v in j[\"vms\"] if v[\"name\"]==\"web1\"][0][\"factors\"][\"locality\"][\"value\"]")" = 0.5 &&
	test "$(json_get s1 "[v for v in j[\"vms\"] if v[\"name\"]==\"web1\"][0][\"factors\"][\"llc\"][\"quality\"]")" = measured &&
	test "$(json_get s1 "j[\"vms\"][0][\"factors\"][\"sharing\"][\"value\"]")" = None &&
	json_get s1 "len(j[\"vms\"][0][\"factors\"][\"sharing\"][\"why\"]) > 0" | grep -q True
'

test_expect_success 'top --batch --sort remote: highest expected remote fraction first' '
	vmmprof top --batch -n 1 --sort remote --root "$R/host-libvirt-v2" >out &&
	awk "/^VCPUS/{v=1;next} v && NF>5 && \$1!=\"vm\" {print \$1, \$2; n++} n==3{exit}" out >order &&
	printf "web1 1\nweb1 0\ndb-2 0\n" >want && cmp order want
'

test_expect_success 'top --batch on a Xen dom0 fixture: domains, pCPUs from xl, paused vCPU without CPU' '
	vmmprof top --batch -n 1 --root "$R/xen-dom0" >out &&
	grep_q "^guest1  *xen  *1  *2 " out &&
	grep_q "^numa vm  *2  *-  *-  *-  *all " out &&
	grep_q "^numa vm  *0  *-  *2  *1  *2-3 .* 50.0%e" out
'

test_expect_success 'a fixture tree is not the live machine: residency is sampled, and top says why' '
	vmmprof top --batch -n 1 --root "$R/host-qemu" >out && unfold out >flat &&
	grep_q "residency per node: sampled at each update (exact residency needs the live machine" flat
'

# on a dom0, dom0's context switches are not the domains' scheduling: the
# note is about Xen's residency (t7320 covers --xentrace)
test_expect_success 'a Xen dom0: residency sampled from xl vcpu-list, and how to get it exact' '
	vmmprof top --batch -n 1 --root "$R/xen-dom0" >out && unfold out >flat &&
	grep_q "Xen residency per node: sampled from xl vcpu-list at each update" flat &&
	! grep_q "residency per node: sampled at each update (exact residency needs" flat
'

# live: the recorder opens when this host lets root record every CPU's
# switches (perf_event_paranoid <= 0 or root); the unit test
# schedtrace_live_two_cpus checks its figures against the CPU time a thread
# measured on each CPU
if [ "$(id -u)" = 0 ]; then
	test_expect_success 'live: residency is exact, from context-switch records' '
		vmmprof top --batch -n 2 -d 0.2 >out &&
		grep_q "residency per node: exact, from context-switch records" out
	'
else
	test_skip 'live: residency is exact, from context-switch records' 'not root'
fi

test_expect_success 'usage errors exit 2, no terminal exits 1' '
	expect_exit 2 vmmprof top -n 0 2>err && grep_q "positive count" err &&
	expect_exit 2 vmmprof top --sort bogus 2>err && grep_q "unknown sort key" err &&
	expect_exit 2 vmmprof top --frob 2>err &&
	expect_exit 1 vmmprof top </dev/null >out 2>err && grep_q "not a terminal" err
'

test_done
