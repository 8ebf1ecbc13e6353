#!/bin/sh
# t9031-diagnose-cpu-contention-vm.sh - CPU contention of a VM, live: a
# stand-in QEMU (tests/helpers/workload with argv[0] qemu-system-x86_64,
# -name guest=NAME and its two busy threads named "CPU 0/KVM", "CPU 1/KVM")
# started on CPU 0 alone.  diagnose --vm finds both vCPUs waiting, ranks the
# wait as cpu bottlenecks labelled as time (cost_of run_wait_time), and
# advises moving one vCPU thread to CPU 1 with taskset; run, the command
# brings its wait down.
#
# Physics: two always-runnable threads on one CPU each run at most half
# the time: each waits >= 50 % of its run + wait time, more when other work
# holds CPU 0 (this machine is shared: at load 20 it is 90 % and more).
# Whatever the load, while one of them runs the other waits: each one
# waited at least about as long as the other ran (80 % of it here: the two
# schedstat reads are not at the same instant).  After the move the moved
# vCPU waits about what CPU 1 alone allows (a probe thread measures that).
. "$(dirname "$0")/lib.sh"

W=${VP_HELPERS:+$VP_HELPERS/workload}
if [ -z "$W" ] || [ ! -x "$W" ]; then
	test_skip 'stacked vCPUs of a stand-in QEMU found and unstacked' 'tests/helpers/workload is not built (VP_HELPERS)'
	test_done
	exit $?
fi
if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null 2>&1 || ! command -v bash >/dev/null 2>&1; then
	test_skip 'stacked vCPUs of a stand-in QEMU found and unstacked' 'needs two CPUs, taskset (util-linux) and bash (exec -a)'
	test_done
	exit $?
fi
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME
VM=stk-$$

rm -f "$TRASH/w.rep"
taskset -c 0 bash -c 'exec -a qemu-system-x86_64 "$0" "$@"' "$W" -name "guest=$VM,debug-threads=on" \
	--vcpu-names --cpu-ms 120000 --thread-ms 120000 --report "$TRASH/w.rep" >/dev/null 2>&1 &
WP=$!
trap 'kill $WP 2>/dev/null' EXIT
i=0
while ! grep -q "^thread_tid=" "$TRASH/w.rep" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done

# "vcpu wait_pct wait_ms run_ms cost_of" of each cpu bottleneck of the VM
waits() {
	python3 - "$1" "$VM" <<-'PY'
	import json, re, sys
	j = json.load(open(sys.argv[1]))
	for b in j["diagnosis"]["bottlenecks"]:
	    if b["factor"] == "cpu" and b["vm"] == sys.argv[2]:
	        m = re.search(r"waited (\d+) ms for a CPU while it ran (\d+) ms", b["evidence"])
	        print(b["vcpu"], b["cost_pct"], m.group(1), m.group(2), b["cost_of"])
	PY
}

test_expect_success 'both vCPUs on CPU 0 wait at least half the time, as time not cycles' '
	vmmprof diagnose --vm "$VM" -d 2 --json >d1.json 2>err &&
	waits d1.json >w1 &&
	cat w1 &&
	test "$(wc -l <w1)" = 2 &&
	awk "{ if (\$2 < 40) { print \"wait \" \$2 \" < 40\"; exit 1 } if (\$5 != \"run_wait_time\") exit 1 }" w1 &&
	awk "NR == 1 { w1 = \$3; r1 = \$4 } NR == 2 { w2 = \$3; r2 = \$4 }
	     END { if (w1 < 0.8 * r2 || w2 < 0.8 * r1) { print \"waits \" w1 \" \" w2 \" runs \" r1 \" \" r2; exit 1 } }" w1
'

test_expect_success 'the advice moves one vCPU thread to CPU 1 with taskset' '
	python3 - d1.json >adv <<-PY &&
	import json, sys
	j = json.load(open(sys.argv[1]))
	a = [a for a in j["diagnosis"]["advice"] if a["rule"] == "unstack-vcpus"]
	assert len(a) == 1, j["diagnosis"]["advice"]
	print(a[0]["vcpu"])
	print(a[0]["command"].strip())
	assert a[0]["needs"] == "taskset (Debian package util-linux)", a[0]["needs"]
	assert a[0]["survives_restart"].startswith("no: taskset"), a[0]["survives_restart"]
	PY
	cmd=$(sed -n 2p adv) &&
	test "$(echo "$cmd" | awk "{print \$1, \$2, \$3}")" = "taskset -pc 1" &&
	test -d /proc/$WP/task/$(echo "$cmd" | awk "{print \$4}") &&
	sed -n 1p adv >moved && echo "$cmd" >cmd
'

# What CPU 1 allows a busy thread now (the machine is shared).
# cpu1_wait: a probe thread pinned to CPU 1 for 2 s, its wait in % of run + wait
cpu1_wait() {
	"$W" --cpu-ms 60000 >/dev/null 2>&1 &
	PP=$!
	taskset -pc 1 $PP >/dev/null
	sleep 0.3
	s0=$(cat /proc/$PP/schedstat)
	sleep 2
	s1=$(cat /proc/$PP/schedstat)
	kill $PP
	echo "$s0 $s1" | awk '{ r = $4 - $1; w = $5 - $2; print (r + w > 0) ? 100 * w / (r + w) : 100 }'
}
control=$(cpu1_wait)
echo "# CPU 1 alone: a busy thread waits $control%"

test_expect_success 'the command, run, brings the moved vCPU wait down' '
	sh -c "$(cat cmd)" >/dev/null &&
	vmmprof diagnose --vm "$VM" -d 2 --json >d2.json 2>err &&
	# the load of a shared machine moves while the test runs: CPU 1 is probed again
	# after the second diagnose (the workload stopped, so the probe has CPU 1 as the
	# moved vCPU had it) and the larger of the two waits is what CPU 1 allowed
	kill -STOP $WP && control2=$(cpu1_wait) && kill -CONT $WP &&
	echo "# CPU 1 alone, after: $control2%" &&
	python3 - d1.json d2.json "$(cat moved)" "$(echo "$control $control2" | awk "{ print (\$1 > \$2) ? \$1 : \$2 }")" "$VM" <<-PY
	import json, sys
	def wait(f, idx):
	    j = json.load(open(f))
	    for b in j["diagnosis"]["bottlenecks"]:
	        if b["factor"] == "cpu" and b["vm"] == sys.argv[5] and b["vcpu"] == idx:
	            return b["cost_pct"]
	    return 0.0   # below the 10 % threshold: not a bottleneck any more
	m, control = int(sys.argv[3]), float(sys.argv[4])
	before, after = wait(sys.argv[1], m), wait(sys.argv[2], m)
	print("moved vCPU wait: %.1f%% -> %.1f%%; CPU 1 alone allows %.1f%%" % (before, after, control))
	assert after <= control + 15, (before, after, control)
	if control <= before - 25:
	    assert after <= before - 10, (before, after, control)
	PY
'

kill $WP 2>/dev/null
test_done
