#!/bin/sh
# t4100-model-core-pmu.sh - an event that encodes is not an event the machine
# counts: on a root without a core PMU (tests/data/root/local, this project's
# test machine captured: a KVM guest without a vPMU), model show, model check,
# stat -m and diagnose all say that generic, raw and libpfm4 core events are
# absent, with the kernel's reason, and agree with each other.
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME
# the kernel's line in the fixture's var/log/kern.log (arch/x86/events/core.c)
KLINE='kernel: "Performance Events: PMU not available due to virtualization, using software events only."'

# has NAME FILE PATTERN: the `model show` row of input NAME contains the fixed string PATTERN
has() {
	show_row "$1" "$2" >row.txt || { echo "no row $1 in $2"; return 1; }
	grep -qF -- "$3" row.txt || { echo "row $1: expected '$3'"; cat row.txt; return 1; }
}

test_expect_success 'model show zen3 on a root without a core PMU: core events are n/a with the kernel reason' '
	vmmprof model show zen3 --root "$R/local" >out &&
	for n in cyc instr loc_dram rem_dram loc_cache rem_cache mab_occ mab_alloc; do
		has $n out "n/a: no core PMU here: $KLINE" || return 1
	done &&
	has tclk out " yes" &&
	has l3_acc out "n/a: no PMU '"'"'amd_l3'"'"' here"
'

test_expect_success 'model show vpmu there: cycles and instructions n/a, software events yes' '
	vmmprof model show vpmu --root "$R/local" >out &&
	has cyc out "n/a: no core PMU here: $KLINE" &&
	has instr out "n/a: no core PMU here: $KLINE" &&
	has cswitch out " yes" &&
	! grep "^  [a-z_]*  *event .* yes$" out | grep -v -e "^  tclk " -e "^  cswitch " -e "^  migr "
'

test_expect_success 'model show --json: the same verdicts' '
	vmmprof model show zen3 --json --root "$R/local" >j &&
	test "$(json_get j "[i[\"available\"] for i in j[\"inputs\"] if i[\"name\"] == \"cyc\"][0]")" = False &&
	json_get j "[i[\"reason\"] for i in j[\"inputs\"] if i[\"name\"] == \"loc_dram\"][0]" >r &&
	grep_q "^no core PMU here: kernel:" r &&
	test "$(json_get j "[i[\"available\"] for i in j[\"inputs\"] if i[\"name\"] == \"tclk\"][0]")" = True
'

test_expect_success 'a user model: raw, hw-cache and sysfs core specs absent, software and non-core sysfs present' '
	cat >u.model <<-EOF &&
	model u
	event a = r003c optional
	event b = LLC-load-misses optional
	event c = cpu/event=0x3c/ optional
	event d = task-clock
	event e = RETIRED_INSTRUCTIONS optional
	metric ra = a / d
	factor locality unavailable "not this test"
	factor llc unavailable "not this test"
	factor sharing unavailable "not this test"
	factor imc unavailable "not this test"
	factor queue unavailable "not this test"
	EOF
	vmmprof model show ./u.model --root "$R/local" >out &&
	has a out "n/a: no core PMU here: $KLINE" &&
	has b out "n/a: no core PMU here: $KLINE" &&
	has c out "n/a: no PMU '"'"'cpu'"'"' here" &&
	has e out "n/a: no core PMU here: $KLINE" &&
	has d out " yes"
'

test_expect_success 'model check agrees: required core events are errors there, not on a vPMU guest' '
	expect_exit 1 vmmprof model check --root "$R/local" "$VP_DATA/../../models/vpmu.model" >out 2>&1 &&
	grep_q "vpmu.model:18:15: error: required event .cyc.: no core PMU here: kernel:" out &&
	grep_q "vpmu.model:19:15: error: required event .instr.: no core PMU here" out &&
	vmmprof model check --root "$R/kvm-guest-vpmu" "$VP_DATA/../../models/vpmu.model" >out 2>&1
'

if vmmprof info 2>/dev/null | grep -q "core PMU  *none"; then
	test_expect_success 'stat -m on this machine (no core PMU) agrees with model show' '
		vmmprof model show vpmu >show &&
		has cyc show "n/a: no core PMU here" &&
		expect_exit 1 vmmprof stat -m vpmu -- true 2>err &&
		grep_q "model .vpmu. cannot run here: event .cyc. (cycles): no core PMU here" err &&
		vmmprof stat -m ./u.model -- true 2>err &&
		grep "^   ra " err >ra && grep_q "n/a  *event .a. unavailable: no core PMU here: kernel:" ra
	'
	test_expect_success 'diagnose -m zen3 on this machine: the same reasons' '
		vmmprof diagnose -p $$ -d 1 -m zen3 >out 2>&1 &&
		grep "^  locality " out >loc && grep_q "event .rem_dram. unavailable: no core PMU here: kernel:" loc &&
		grep "^  sharing " out >sh && grep_q "unavailable: no core PMU here" sh
	'
else
	test_skip 'stat -m on this machine agrees with model show' 'this machine has a core PMU'
	test_skip 'diagnose -m zen3 on this machine' 'this machine has a core PMU'
fi

test_done
