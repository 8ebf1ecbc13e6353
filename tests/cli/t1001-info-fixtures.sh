#!/bin/sh
# t1001-info-fixtures.sh - `vmmprof info --root` over the fixture trees, text and JSON
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root

test_expect_success 'skx-2s: text names the CPU, host role, nodes, uncore families, coverage' '
	vmmprof info --root "$R/skx-2s" >out &&
	grep_q "libpfm4 *skx \"Intel Skylake X\", from model table" out &&
	grep_q "role *host: 1 QEMU process (pid 4242): 1 KVM, 0 TCG" out &&
	grep_q "CPUs *16 online (0-15), 2 packages, 8 cores, SMT on" out &&
	grep_q "^ *0  0-3,8-11 *94 GiB" out &&
	grep_q "^ *0  10  21$" out &&
	grep_q "^ *uncore_imc  uncore *6  30..35  0,4" out &&
	grep_q "^ *uncore_cha  uncore *20  10..29  0,4" out &&
	grep_q "resctrl *mounted, L3 monitoring: llc_occupancy, mbm_total_bytes, mbm_local_bytes" out &&
	grep_q "^  model skx chosen by: CPU GenuineIntel family 0x6 model 0x55 " out &&
	grep_q "^  imc *apportioned *model skx (uncore)" out &&
	grep_q "reads  cas_rd = uncore_imc/event=0x04,umask=0x03/ \"CAS_COUNT.RD\" (optional): uncore_imc, per node" out &&
	grep_q "^  locality *measured *model skx (core)" out
'

test_expect_success 'skx-2s: JSON has the same content' '
	vmmprof info --root "$R/skx-2s" --json >j &&
	test "$(json_get j "j[\"cpu\"][\"pfm_pmu\"]")" = skx &&
	test "$(json_get j "j[\"cpu\"][\"model\"]")" = 85 &&
	test "$(json_get j "j[\"virtualization\"][\"role\"]")" = host &&
	test "$(json_get j "j[\"virtualization\"][\"qemu_processes\"][\"kvm\"]")" = 1 &&
	test "$(json_get j "j[\"topology\"][\"distance\"]")" = "[[10, 21], [21, 10]]" &&
	test "$(json_get j "j[\"topology\"][\"nodes\"][1][\"mem_total_bytes\"]")" = $((98304000 * 1024)) &&
	test "$(json_get j "[f[\"instances\"] for f in j[\"pmus\"][\"families\"] if f[\"family\"] == \"uncore_imc\"][0]")" = 6 &&
	test "$(json_get j "len(j[\"pmus\"][\"devices\"])")" = 37 &&
	test "$(json_get j "\",\".join(j[\"resctrl\"][\"mon_features\"])")" = llc_occupancy,mbm_total_bytes,mbm_local_bytes &&
	test "$(json_get j "j[\"coverage\"][\"factors\"][3][\"quality\"]")" = apportioned &&
	test "$(json_get j "j[\"coverage\"][\"model\"]")" = skx &&
	# models/skx.model: queue = max(rpq_full, wpq_full) / imc_clk, the IMC pending queues full
	test "$(json_get j "\",\".join(sorted(i[\"name\"] for i in j[\"coverage\"][\"factors\"][4][\"reads\"]))")" = \
		imc_clk,rpq_full,wpq_full &&
	test "$(json_get j "[i[\"spec\"] for i in j[\"coverage\"][\"factors\"][4][\"reads\"] if i[\"name\"] == \"rpq_full\"][0]")" = \
		uncore_imc/event=0x12/
'

test_expect_success 'zen3-2s: four LLC domains, amd_df/amd_l3, non-root' '
	vmmprof info --root "$R/zen3-2s" >out &&
	grep_q "LLC domains *4" out &&
	grep_q "L3 32 MiB, CPUs 2-3,10-11" out &&
	grep_q "^ *amd_l3 *uncore *1 *13  0,2,4,6" out &&
	grep_q "privileges *not root, CAP_PERFMON no" out &&
	grep_q "resctrl *unavailable (resctrl not mounted" out &&
	grep_q "^  sharing *proxy *model zen3 (core)" out &&
	grep_q "^  imc *apportioned *model zen3 (uncore)" out &&
	grep_q "reads  df_ch0 = amd_df/event=0x07,umask=0x38/ \"DRAM channel data controller 0\" (optional): amd_df, per node" out
'

test_expect_success 'nhm-ep: the single "uncore" PMU serves imc and queue; no cgroup v2' '
	vmmprof info --root "$R/nhm-ep" >out &&
	grep_q "libpfm4 *nhm " out &&
	grep_q "^ *uncore  *uncore *1 *6  0,4" out &&
	grep_q "^  queue *apportioned *model nhm-ep (uncore)" out &&
	grep_q "reads  gq_full_rd = uncore/event=0x00,umask=0x01/ \"UNC_GQ_CYCLES_FULL:READ_TRACKER\" (optional): uncore, per node" out &&
	grep_q "cgroup v2 *unavailable (no cgroup2 mount" out
'

test_expect_success 'kvm-guest-vpmu: guest with core PMU, imc unavailable and queue a proxy, and why' '
	vmmprof info --root "$R/kvm-guest-vpmu" --json >j &&
	test "$(json_get j "j[\"virtualization\"][\"hypervisor\"]")" = KVM &&
	test "$(json_get j "j[\"virtualization\"][\"role\"]")" = guest &&
	test "$(json_get j "j[\"pmus\"][\"core_pmu_name\"]")" = cpu &&
	# a Cascade Lake vPMU: the skx model, whose imc and queue need uncore_imc, which a guest lacks
	test "$(json_get j "j[\"coverage\"][\"model\"]")" = skx &&
	test "$(json_get j "\",\".join(f[\"quality\"] for f in j[\"coverage\"][\"factors\"])")" = \
		measured,measured,measured,unavailable,unavailable &&
	test "$(json_get j "j[\"coverage\"][\"factors\"][3][\"model_quality\"]")" = apportioned &&
	json_get j "j[\"coverage\"][\"factors\"][3][\"note\"]" | grep -q "no PMU .uncore_imc. here"
'

test_expect_success 'kvm-guest-novpmu: one assumed node, no core PMU and the kernel says why' '
	vmmprof info --root "$R/kvm-guest-novpmu" >out &&
	grep_q "NUMA nodes *1, no /sys/devices/system/node (kernel without NUMA)" out &&
	grep_q "distances *unknown (" out &&
	grep_q "core PMU *none: kernel: \"Performance Events: PMU not available due to virtualization" out
'

test_expect_success 'broken: unknown with reasons, nothing invented, exit 0' '
	vmmprof info --root "$R/broken" >out &&
	grep_q "identity *incomplete (/proc/cpuinfo lacks a valid vendor_id, cpu family or model)" out &&
	grep_q "id *unknown (family or model unreadable)" out &&
	grep_q "SMT unknown" out &&
	grep_q "distances *unknown (node1/distance: not a list of distances 1..255)" out &&
	grep_q "1  2-3 *n/a *n/a" out &&
	grep_q "perf paranoid *unknown (./proc/sys/kernel/perf_event_paranoid.: expected an integer, found .high.)" out &&
	vmmprof info --root "$R/broken" --json >j &&
	test "$(json_get j "j[\"topology\"][\"smt\"]")" = None &&
	test "$(json_get j "j[\"cpu\"][\"family\"]")" = None
'

test_expect_success 'xen-pv-dom0: dom0 is a host; pmu_mode unreadable with the reason' '
	vmmprof info --root "$R/xen-pv-dom0" >out &&
	grep_q "role *host: Xen dom0 (/proc/xen/capabilities: control_d)" out &&
	grep_q "Xen PMU mode *unknown (cannot open ./sys/hypervisor/pmu/pmu_mode.: No such file" out &&
	vmmprof info --root "$R/xen-pv-dom0" --json >j &&
	test "$(json_get j "j[\"virtualization\"][\"xen_dom0\"]")" = True &&
	test "$(json_get j "j[\"virtualization\"][\"xen_pmu_mode\"]")" = None
'

test_expect_success 'every fixture tree: text and JSON succeed, five factors each' '
	for t in local skx-2s zen3-2s nhm-ep kvm-guest-vpmu kvm-guest-novpmu arm-n1 xen-pv-dom0 qemu-in-kvm pmu-count broken; do
		vmmprof info --root "$R/$t" >out || { echo "$t text failed"; return 1; }
		vmmprof info --root "$R/$t" --json >j || { echo "$t json failed"; return 1; }
		test "$(json_get j "len(j[\"coverage\"][\"factors\"])")" = 5 || return 1
	done
'

test_done
