#!/bin/sh
# t1002-info-local.sh - `vmmprof info` on this machine: what a VM without a PMU keeps
. "$(dirname "$0")/lib.sh"

if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ] ||
   ls -d /sys/bus/event_source/devices/armv8_pmuv3* >/dev/null 2>&1; then
	test_skip 'no core PMU: coverage says so and names a substitute per factor' \
		'this machine has a core PMU'
	test_done
	exit $?
fi

test_expect_success 'no core PMU: the PMU section says so, with the reason' '
	vmmprof info >out &&
	grep_q "core PMU *none: " out &&
	vmmprof info --json >j &&
	test "$(json_get j "j[\"pmus\"][\"core_pmu\"]")" = False &&
	test -n "$(json_get j "j[\"pmus\"][\"core_pmu_reason\"]")"
'

test_expect_success 'as root in a VM the reason is the kernel line about virtualization' '
	if [ "$(id -u)" = 0 ] && grep -q hypervisor /proc/cpuinfo &&
	   dmesg 2>/dev/null | grep -q "PMU not available due to virtualization"; then
		vmmprof info >out &&
		grep_q "core PMU *none: kernel: \"Performance Events: PMU not available due to virtualization" out
	fi
'

test_expect_success 'coverage: the software model, every factor has its inputs or a reason and a substitute' '
	vmmprof info --json >j &&
	test "$(json_get j "j[\"coverage\"][\"model\"]")" = software &&
	json_get j "j[\"coverage\"][\"chosen_by\"]" | grep -q "no core PMU: " &&
	test "$(json_get j "sum(f[\"quality\"] in (\"measured\", \"apportioned\") for f in j[\"coverage\"][\"factors\"] if f[\"factor\"] != \"imc\")")" = 0 &&
	test "$(json_get j "all(f[\"quality\"] != \"unavailable\" or (f[\"note\"] and f[\"instead\"]) for f in j[\"coverage\"][\"factors\"])")" = True &&
	test "$(json_get j "all(f[\"quality\"] == \"unavailable\" or any(i[\"present\"] for i in f[\"reads\"]) for f in j[\"coverage\"][\"factors\"])")" = True &&
	vmmprof info >out &&
	grep_q "^Factor coverage: model .software.: " out &&
	grep_q "^  model software chosen by: software (.*); no core PMU: " out &&
	grep_q "instead: " out
'

test_expect_success 'the real topology: as many CPUs and nodes as the kernel says' '
	vmmprof info --json >j &&
	test "$(json_get j "j[\"topology\"][\"n_cpus\"]")" = "$(getconf _NPROCESSORS_ONLN)" &&
	n=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l) &&
	test "$(json_get j "len(j[\"topology\"][\"nodes\"])")" = "${n:-1}" &&
	json_get j "j[\"topology\"][\"hwloc\"]" | grep -q "hwloc agrees"
'

test_done
