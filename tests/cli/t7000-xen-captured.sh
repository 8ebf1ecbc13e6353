#!/bin/sh
# t7000-xen-captured.sh - `vmmprof info` over tests/data/xen-captured, the
# files of a live Xen 4.17 PV dom0 from the Xen testbed (tests/vm/xen/):
# the expectations are what that dom0 was (its README), not vmmprof's output.
. "$(dirname "$0")/lib.sh"

X=$VP_DATA/xen-captured

test_expect_success 'xen dom0: hypervisor Xen although CPUID shows the TCG layer beneath' '
	vmmprof info --root "$X" --json >j &&
	test "$(json_get j "j[\"virtualization\"][\"hypervisor\"]")" = Xen &&
	test "$(json_get j "j[\"virtualization\"][\"signature\"]")" = TCGTCGTCGTCG &&
	test "$(json_get j "j[\"virtualization\"][\"role\"]")" = host &&
	test "$(json_get j "j[\"virtualization\"][\"xen_dom0\"]")" = True &&
	test "$(json_get j "j[\"virtualization\"][\"xen_capabilities\"]")" = control_d
'

test_expect_success 'xen dom0: no PMU mode without the file, and the reason says which' '
	vmmprof info --root "$X" --json >j &&
	test "$(json_get j "j[\"virtualization\"][\"xen_pmu_mode\"]")" = None &&
	json_get j "j[\"virtualization\"][\"xen_pmu_reason\"]" >r &&
	grep_q "pmu/pmu_mode" r
'

test_expect_success 'xen dom0: text says Xen, host, dom0, what pmu_mode all gives, no core PMU' '
	vmmprof info --root "$X" >out &&
	grep_q "^  hypervisor *Xen " out &&
	grep_q "^  role *host: Xen dom0" out &&
	grep_q "^  Xen *dom0" out &&
	grep_q "pmu_mode .all., dom0 counts for every domain" out &&
	grep_q "^  core PMU *none" out
'

test_done
