#!/bin/sh
# t5100-top-counters.sh - `vmmprof top` counts: a model's factor per vCPU from a collector view
# over a live QEMU guest, checked against the vCPU threads' CPU time in /proc; --no-counters,
# fixture trees and denied perf access say why counters are off
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
TCM=$VP_DATA/models/top/taskclock.model

test_expect_success 'fixture tree: counters are off and top says why; LOCAL stays the estimate' '
	vmmprof top --batch -n 1 --root "$R/host-qemu" >out &&
	grep_q "^counters: off (the root directory is a fixture tree" out &&
	grep_q "^LOCAL: expected remote-memory fraction; e = estimate" out &&
	grep_q "^vptest,x  *0  *4002  *0  *0 .* 28.6%e" out &&
	vmmprof top --json -n 1 --root "$R/host-qemu" >j &&
	test "$(json_get j "j[\"counters\"][\"on\"]")" = False &&
	test "$(json_get j "j[\"counters\"][\"model\"]")" = None &&
	test "$(json_get j "j[\"counters\"][\"factors\"][\"locality\"]")" = estimated &&
	test "$(json_get j "j[\"counters\"][\"factors\"][\"sharing\"]")" = unavailable &&
	test "$(json_get j "j[\"vms\"][0][\"factors\"][\"locality\"][\"source\"]")" = placement
'

test_expect_success '--no-counters: software sources only, and the reason is in every n/a' '
	vmmprof top --batch -n 1 --no-counters >out &&
	grep_q "^counters: off (--no-counters was given)" out &&
	vmmprof top --json -n 1 --no-counters >j &&
	test "$(json_get j "j[\"counters\"][\"off_why\"]")" = "--no-counters was given" &&
	json_get j "\"counters are off: --no-counters was given\" in j[\"factor_why\"][\"llc\"] or \"no \" in j[\"factor_why\"][\"llc\"]" | grep -q True
'

# A binary with no models next to it (bin/../share, bin/../models) and none
# in the user's directory: top has no model and runs on software sources;
# the other model commands still fail, naming the directories searched.
test_expect_success 'no model matches (none installed): top runs, counters off, says where it looked' '
	mkdir -p bare/bin bare/home && cp "$VMMPROF" bare/bin/vmmprof &&
	env -u XDG_CONFIG_HOME -u VMMPROF_MODEL_PATH HOME="$PWD/bare/home" \
		bare/bin/vmmprof top --batch -n 1 >out 2>err && unfold out >flat &&
	grep_q "^counters: off (no model matches this machine (searched $PWD/bare/home/.config/vmmprof/models; " flat &&
	grep_q "counters off: no model matches" err &&
	env -u XDG_CONFIG_HOME HOME="$PWD/bare/home" bare/bin/vmmprof top --json -n 1 >j &&
	test "$(json_get j "j[\"counters\"][\"on\"]")" = False &&
	test "$(json_get j "j[\"counters\"][\"model\"]")" = None
'

test_expect_success '--vm NAME: only the VMs named, and their vCPUs' '
	vmmprof top --batch -n 1 --vm web1 --root "$R/host-libvirt-v2" >out &&
	awk "/^VMS/{v=1} /^VCPUS/{v=2} /^\$/{v=0} v && NF>3 && \$1!=\"vm\" {print v, \$1}" out | sort -u >names &&
	printf "1 web1\n2 web1\n" >want && cmp names want
'

test_expect_success 'a model that does not exist is an error, a missing -m value a usage error' '
	expect_exit 1 vmmprof top --batch -n 1 -m no-such-model 2>err &&
	grep_q "no-such-model" err &&
	expect_exit 2 vmmprof top --batch -n 1 --model 2>err
'

if ! command -v qemu-system-x86_64 >/dev/null; then
	test_skip 'live QEMU guest counted by top' 'qemu-system-x86_64 is not installed'
	test_done
	exit
fi

NAME=vptop-$$
QPID=""
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	[ -n "$QPID" ] && wait "$QPID" 2>/dev/null
	QPID=""
}
trap cleanup EXIT

# The t5030 guest: a 64 KiB firmware whose reset vector is "jmp ." (vCPU 0
# spins), vCPU 1 waits for an IPI that never comes; 64 MiB preallocated.
python3 -c 'import sys; d = bytearray(65536); d[0xfff0:0xfff2] = b"\xeb\xfe"; open(sys.argv[1], "wb").write(d)' \
	"$TRASH/spin.rom"
start_guest() {
	qemu-system-x86_64 -accel tcg -name "guest=$NAME,debug-threads=on" -smp 2 -m 64 \
		-bios "$TRASH/spin.rom" -object memory-backend-ram,id=m0,size=64M,prealloc=on \
		-numa node,nodeid=0,cpus=0-1,memdev=m0 \
		-display none -nodefaults >"$TRASH/qemu.log" 2>&1 &
	QPID=$!
}
tid_of() { thread_named "$QPID" "$1"; }
wait_vcpus() {
	i=0
	while [ $i -lt 100 ] && ! tid_of "CPU 1/TCG" >/dev/null; do sleep 0.1; i=$((i + 1)); done
	T0=$(tid_of "CPU 0/TCG")
	T1=$(tid_of "CPU 1/TCG")
}

# A VM that starts while top runs: the collector reopens over it, and its
# vCPUs are counted from the sample after.  (The guest is started here, not
# in a test's subshell, so that cleanup knows its pid.)
rm -f "$TRASH/late.out"
vmmprof top --json -n 7 -d 0.5 --wait --vm "$NAME" -m "$TCM" >"$TRASH/late.out" 2>"$TRASH/late.err" &
TOPPID=$!
# after top's first sample (a fixed sleep was too short at load 20: the VM was in it)
i=0
while [ $i -lt 200 ] && ! [ -s "$TRASH/late.out" ]; do sleep 0.1; i=$((i + 1)); done
start_guest
wait $TOPPID
echo $? >"$TRASH/late.rc"
test_expect_success 'a VM started after top: its vCPUs are counted from a later sample' '
	cat late.err && test "$(cat late.rc)" = 0 &&
	python3 -c "
import json
for l in open(\"late.out\"):
    j = json.loads(l)
    print(j[\"sample\"], [(c[\"vm\"], c[\"vcpu\"], c[\"factors\"][\"locality\"][\"source\"]) for c in j[\"vcpus\"]])" &&
	head -1 late.out >first && ! grep -q "\"name\":\"$NAME\"" first &&
	tail -1 late.out >last &&
	test "$(json_get last "[c for c in j[\"vcpus\"] if c[\"vm\"]==\"$NAME\" and c[\"vcpu\"]==0][0][\"factors\"][\"locality\"][\"source\"]")" = model &&
	# the first sample that shows the VM: its threads joined the counters (the
	# collector adds them, counting from the next sample): no model value yet
	# (--vm: other guests on this machine do not join)
	test "$(json_get last "j[\"counters\"][\"reopened\"]")" = 1 &&
	python3 -c "
import json
rows = [[c for c in json.loads(l)[\"vcpus\"] if c[\"vm\"] == \"$NAME\"] for l in open(\"late.out\")]
first = [r for r in rows if r][0]
assert all(c[\"factors\"][\"locality\"][\"source\"] != \"model\" for c in first), first
"
'
wait_vcpus

test_expect_success 'QEMU runs with two vCPU threads "CPU n/TCG"' '
	test -n "$T0" && test -n "$T1" || { cat "$TRASH/qemu.log"; false; }
'

# run_ms TID: the thread's time on a CPU so far (schedstat), in ms
run_ms() { awk '{printf "%d\n", $1 / 1000000}' /proc/$QPID/task/$1/schedstat; }

# The test model's locality score is each interval's task-clock in seconds
# per vCPU: the sum over the samples is the counted CPU time from the
# collector's start to the last sample, inside the window [a, b] of the
# schedstat reads around the run, so it is at most b - a (+ 20 ms for the
# rounding of the reads).  What the window holds beyond the counted
# intervals is top's start-up and exit: the wall time w of the whole run less
# the intervals' sum c, in which one thread runs at most w - c ms (it runs on
# one CPU at a time).  So b - a - counted <= w - c, + 5 % + 100 ms for the
# clocks' granularity.  At load 20 start-up took over a second, which a
# fixed allowance did not hold.
test_expect_success 'task-clock per vCPU (test model) agrees with the thread CPU time in /proc' '
	a0=$(run_ms $T0) && a1=$(run_ms $T1) && w0=$(date +%s%N) &&
	vmmprof top --json -n 4 -d 0.7 --vm "$NAME" -m "$TCM" >out &&
	w1=$(date +%s%N) && b0=$(run_ms $T0) && b1=$(run_ms $T1) &&
	c=$(python3 -c "
import json
print(int(sum(json.loads(l)[\"interval_s\"] or 0 for l in open(\"out\")) * 1000))") &&
	w=$(( (w1 - w0) / 1000000 )) && echo "wall $w ms, intervals $c ms" &&
	for idx in 0 1; do
		sum=$(python3 -c "
import json, sys
s = 0.0
for line in open(\"out\"):
    j = json.loads(line)
    c = [c for c in j[\"vcpus\"] if c[\"vm\"] == \"$NAME\" and c[\"vcpu\"] == $idx][0]
    f = c[\"factors\"][\"locality\"]
    assert f[\"source\"] == \"model\" and f[\"quality\"] == \"measured\", f
    s += f[\"value\"]
print(int(s * 1000))") || return 1
		if [ $idx = 0 ]; then d=$((b0 - a0)); else d=$((b1 - a1)); fi
		echo "vCPU $idx: counted $sum ms, schedstat $d ms"
		awk -v a="$sum" -v b="$d" -v u="$((w - c))" "BEGIN { exit !(a <= b + 20 && b - a <= u + 0.05 * b + 100) }" || return 1
	done &&
	# vCPU 0 spins: it ran for a good part of the 2.1 s
	test "$((b0 - a0))" -gt 300
'

test_expect_success 'counted cells: severity from the model thresholds, cost share = 50 % (taskclock.model: remote loads at 200 ns against 100 ns local)' '
	"$VP_HELPERS/cal_synth" cal.json lat_local_ns=100 lat_remote_ns=200 &&
	vmmprof top --json -n 2 -d 0.5 --vm "$NAME" -m "$TCM" --calibration cal.json >out && tail -1 out >s2 &&
	python3 -c "
import json
j = json.load(open(\"s2\"))
c = [c for c in j[\"vcpus\"] if c[\"vm\"] == \"$NAME\" and c[\"vcpu\"] == 0][0][\"factors\"][\"locality\"]
v = c[\"value\"]
want = \"critical\" if v >= 0.5 else \"warning\" if v >= 0.2 else \"ok\"
assert c[\"severity\"] == want, (v, c)
assert v > 0 and abs(c[\"cost_pct\"] - 50) < 1e-6, c
for f in (\"llc\", \"sharing\", \"imc\", \"queue\"):
    assert j[\"vcpus\"][0][\"factors\"][f][\"value\"] is None
    assert \"test model: not bound\" in j[\"vcpus\"][0][\"factors\"][f][\"why\"]
k = j[\"counters\"]
assert k[\"on\"] and k[\"model\"] == \"top-taskclock\" and k[\"model_why\"] == \"chosen with -m\", k
assert k[\"factors\"] == {\"locality\": \"counted\", \"llc\": \"unavailable\", \"sharing\": \"unavailable\", \"imc\": \"unavailable\", \"queue\": \"unavailable\"}, k
" &&
	vmmprof top --batch -n 2 -d 0.3 --vm "$NAME" -m "$TCM" --calibration cal.json >out &&
	unfold out >flat &&
	grep_q "^counters: model .top-taskclock. (chosen with -m); counted: locality (measured)" flat &&
	grep_q "^LOCAL counted: model .top-taskclock. (measured): task-clock seconds" flat &&
	grep_q "^LLC n/a: \[1\]$" flat && grep_q "^\[1\] model .top-taskclock.: test model: not bound" flat &&
	grep -E "^$NAME  *0  *$T0 .* s[0-9.e+-]+/50.0%(!|!!)? " out
'

test_expect_success 'the model chosen for this machine: locality counted, the rest with reasons' '
	vmmprof top --json -n 2 -d 0.3 --vm "$NAME" >out && tail -1 out >s2 &&
	m=$(json_get s2 "j[\"counters\"][\"model\"]") &&
	vmmprof info --json >info &&
	if [ "$(json_get info "j[\"pmus\"][\"core_pmu\"]")" != True ] &&
	   [ "$m" = software ]; then
		# software.model: locality is the placement proxy; one host
		# node holds all 64 MiB, so the remote share is 0
		test "$(json_get s2 "j[\"counters\"][\"factors\"][\"locality\"]")" = counted &&
		c="[c for c in j[\"vcpus\"] if c[\"vm\"]==\"$NAME\"][0][\"factors\"][\"locality\"]" &&
		test "$(json_get s2 "$c[\"quality\"]")" = proxy &&
		if [ "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" = 1 ]; then
			test "$(json_get s2 "$c[\"value\"]")" = 0.0 || test "$(json_get s2 "$c[\"value\"]")" = 0
		fi
	else
		echo "model $m on a machine with a PMU: only the status is checked"
	fi &&
	json_get s2 "j[\"counters\"][\"status\"].startswith(\"counters: model \")" | grep -q True
'

if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	test_expect_success 'perf access denied (not the VM owner): top runs on software sources and says why' '
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
			"$VMMPROF" top --json -n 1 --vm "$NAME" -m "$TCM" >out 2>err &&
		test "$(json_get out "j[\"counters\"][\"on\"]")" = False &&
		json_get out "\"no counter could be opened\" in j[\"counters\"][\"off_why\"]" | grep -q True &&
		json_get out "any(w in j[\"counters\"][\"off_why\"] for w in (\"permission\", \"paranoid\", \"not permitted\", \"denied\"))" | grep -q True &&
		grep_q "counters off:" err &&
		test "$(json_get out "[v for v in j[\"vms\"] if v[\"name\"]==\"$NAME\"][0][\"factors\"][\"locality\"][\"source\"]")" != model
	'
else
	test_skip 'perf access denied: top runs on software sources' 'needs root and setpriv to drop to nobody'
fi

test_expect_success 'the VM ending under counting top ends its series once, top goes on' '
	rm -f out
	( vmmprof top --json -n 5 -d 0.4 --vm "$NAME" -m "$TCM" >out; echo $? >rc ) &
	bg=$!
	# the VM goes once top has printed a sample with it (a fixed sleep
	# can come before the first sample on a loaded machine)
	wait_lines out && cleanup && wait $bg &&
	test "$(cat rc)" = 0 && test $(wc -l <out) = 5 &&
	tail -1 out >last && ! grep -q "\"vm\":\"$NAME\"" last &&
	test "$(json_get last "j[\"counters\"][\"on\"]")" = True &&
	test "$(grep -c "\"kind\":\"vm\",\"name\":\"$NAME\"" out)" = 1
'

cleanup
test_done
