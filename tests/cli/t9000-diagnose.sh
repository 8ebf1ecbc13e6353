#!/bin/sh
# t9000-diagnose.sh - `vmmprof diagnose` on a real QEMU VM and a native process, live
. "$(dirname "$0")/lib.sh"

# A QEMU guest needs no kernel for the host's view: its vCPU threads exist
# (and run the firmware) as soon as it starts.
start_vm() {
	qemu-system-x86_64 -accel tcg -name "guest=$1,debug-threads=on" -smp 2 -m 128 \
		-display none -nodefaults -no-reboot >/dev/null 2>&1 &
	echo $! >"$TRASH/$1.pid"
	i=0
	while [ $i -lt 50 ]; do
		pid=$(cat "$TRASH/$1.pid")
		if ls /proc/$pid/task 2>/dev/null | while read -r t; do
			cat /proc/$pid/task/$t/comm; done | grep -q "CPU 1/TCG"; then
			sleep 0.5 # let both vCPUs run once, so they have a CPU and a node
			return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
stop_vm() {
	[ -f "$TRASH/$1.pid" ] || return 0
	kill "$(cat "$TRASH/$1.pid")" 2>/dev/null
	wait "$(cat "$TRASH/$1.pid")" 2>/dev/null
	rm -f "$TRASH/$1.pid"
}

# names unique to this run, so a VM of another test never answers
vm=vpdiag-$$
gone=vpgone-$$
trap 'stop_vm $vm; stop_vm $gone' EXIT
if command -v qemu-system-x86_64 >/dev/null; then
	start_vm $vm && have_vm=1 || have_vm=0
else
	have_vm=0
fi

if [ $have_vm = 1 ]; then
# factor_quality: the software model says proxy for locality; each factor
# unavailable here (llc, sharing, queue always; imc without resctrl MBM) is
# "unavailable" there too, never the quality the model would give it
test_expect_success 'diagnose finds the VM and both vCPUs, and says what it cannot see' '
	vmmprof diagnose --vm $vm -d 1 --json >d.json 2>err &&
	test "$(json_get d.json "j[\"targets\"]")" = 2 &&
	test "$(json_get d.json "\",\".join(v[\"vm\"] for v in j[\"diagnosis\"][\"vms\"])")" = $vm &&
	test "$(json_get d.json "j[\"model\"]")" = software &&
	json_get d.json "j[\"unavailable\"][\"sharing\"]" | grep -q "core PMU" &&
	json_get d.json "j[\"unavailable\"][\"queue\"]" | grep -q "uncore" &&
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"factors\"][\"llc\"][\"cost_pct\"]")" = None &&
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"factors\"][\"locality\"][\"quality\"]")" = proxy &&
	test "$(json_get d.json "j[\"factor_quality\"][\"locality\"]")" = proxy &&
	test "$(json_get d.json "sorted(f for f, q in j[\"factor_quality\"].items() if q == \"unavailable\") == sorted(j[\"unavailable\"])")" = True ||
	{ cat d.json err; false; }
'

n_nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
test_expect_success 'one node: the placement estimate says every access is local' '
	# with one NUMA node no access can be remote (skip the check elsewhere)
	if [ "$n_nodes" -gt 1 ]; then return 0; fi
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"factors\"][\"locality\"][\"score\"] == 0")" = True &&
	test "$(json_get d.json "len(j[\"diagnosis\"][\"advice\"])")" = 0
'

test_expect_success 'VM cycles come from task-clock of its vCPU threads and are flagged estimated' '
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"cycles_estimated\"]")" = True &&
	json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"cycles\"] > 0" | grep -q True
'

test_expect_success 'text output names the model, the missing PMU and the unmeasurable factors' '
	vmmprof diagnose --vm $vm -d 1 >d.txt 2>err &&
	grep_q "model .software." d.txt &&
	grep_q "no core PMU here" d.txt &&
	grep_q "^Not measurable here" d.txt &&
	grep_q "^  sharing " d.txt &&
	grep_q "$vm" d.txt &&
	! grep -q " 0.0%" d.txt
'

test_expect_success 'SIGINT ends the collection early and still diagnoses' '
	"$VMMPROF" diagnose --vm $vm -d 60 --json >i.json 2>err &
	p=$!
	sleep 1.5
	kill -INT $p
	wait $p &&
	grep_q "interrupted after" err &&
	json_get i.json "j[\"duration_s\"] < 30" | grep -q True
'

test_expect_success 'a VM that exits mid-run does not crash the diagnosis' '
	start_vm $gone &&
	( sleep 1; stop_vm $gone ) &
	vmmprof diagnose --vm $gone -d 2 --json >g.json 2>err; rc=$?
	wait
	test $rc = 0 && json_get g.json "j[\"model\"]" >/dev/null
'
stop_vm $vm
else
	test_skip 'diagnose of a live QEMU VM' 'qemu-system-x86_64 is not installed'
fi

test_expect_success 'a native process: its threads are the targets' '
	sh -c "while :; do :; done" & p=$!
	vmmprof diagnose -p $p -d 1 --json >n.json 2>err; rc=$?
	kill $p
	test $rc = 0 &&
	test "$(json_get n.json "j[\"targets\"]")" = 1 &&
	test "$(json_get n.json "len(j[\"diagnosis\"][\"vms\"])")" = 1
'

test_expect_success 'no VM of that name: an error at once, naming it (t11080 has more)' '
	expect_exit 1 vmmprof diagnose --vm no-such-vm -d 0.2 >o.txt 2>err &&
	grep_q "no VM named .no-such-vm. here" err
'

# a host with no VM (the fixture tree of this machine has no QEMU): the note
# says there is nothing to count, not that vCPUs run in a hypervisor
test_expect_success 'no VM at all: the notes say nothing is counted, not that vCPUs are Xen'"'"'s' '
	vmmprof diagnose --root "$VP_DATA/root/local" -d 0.2 >o.txt 2>err &&
	grep_q "No VM found" o.txt &&
	grep_q "no VM or process to count" o.txt &&
	! grep -q "Xen vCPUs" o.txt
'

test_expect_success 'bad duration and unknown flags: usage, exit 2' '
	expect_exit 2 vmmprof diagnose -d -1 2>err && grep_q "invalid duration" err &&
	expect_exit 2 vmmprof diagnose --frob 2>err && grep_q "unknown option" err &&
	expect_exit 2 vmmprof diagnose -p abc 2>err && grep_q "invalid process list" err
'

test_expect_success 'a live run is sampled every second: the costs second by second, n/a said as such' '
	sh -c "while :; do :; done" &
	spin=$! &&
	vmmprof diagnose -p $spin -d 4.5 >out 2>err;
	rc=$?; kill $spin; wait $spin 2>/dev/null
	test $rc = 0 &&
	grep -E "^Costs second by second \(mean of [2-4] one-second samples" out &&
	grep_q "^  sh: no cost known in any sample" out
'

# No PMU here: the spinning shell has no cost in any sample, so every
# factor's interval is null; what the intervals account for is said anyway.
test_expect_success 'diagnose --json: cost_intervals per VM and factor, with what they account for' '
	sh -c "while :; do :; done" &
	spin=$! &&
	vmmprof diagnose -p $spin -d 3.5 --json >j 2>err;
	rc=$?; kill $spin; wait $spin 2>/dev/null
	test $rc = 0 &&
	# one sample a second; a loaded machine may take fewer than three in 3.5 s
	test "$(json_get j "j[\"cost_intervals\"][\"samples\"] >= 1")" = True &&
	test "$(json_get j "j[\"cost_intervals\"][\"confidence\"]")" = 0.95 &&
	test "$(json_get j "\" \".join(sorted(j[\"cost_intervals\"][\"accounts_for\"]))")" = \
		"calibrated multiplexing_running_ratio multiplexing_running_ratio_by_factor residency spread" &&
	test "$(json_get j "\" \".join(v[\"vm\"] for v in j[\"cost_intervals\"][\"vms\"])")" = sh &&
	test "$(json_get j "set(j[\"cost_intervals\"][\"vms\"][0][\"costs\"].values()) == {None}")" = True
'

test_expect_success 'an unknown model is an error that names it' '
	expect_exit 1 vmmprof diagnose -m no-such-model -d 0.2 2>err && grep_q "no-such-model" err
'

test_done
