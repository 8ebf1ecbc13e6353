#!/bin/sh
# t5030-live-qemu.sh - a real QEMU (TCG, two vCPUs, two guest NUMA nodes) found by `list vms` and
# followed by `top --json` until it ends; checked against /proc and the cgroup it was put in
. "$(dirname "$0")/lib.sh"

NAME=vptest-$$
CG=""
QPID=""

cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	[ -n "$QPID" ] && wait "$QPID" 2>/dev/null
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	QPID=""
}

if ! command -v qemu-system-x86_64 >/dev/null; then
	test_skip 'live QEMU VM' 'qemu-system-x86_64 is not installed'
	test_done
	exit
fi

# a cgroup v2 group of its own, when this host lets us make one
for base in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if [ -e "$base/cgroup.controllers" ] && mkdir "$base/vp-t5030-$$" 2>/dev/null; then
		CG=$base/vp-t5030-$$
		break
	fi
done
trap cleanup EXIT

# The firmware is 64 KiB whose reset vector (0xfff0) is "jmp ." (eb fe):
# vCPU 0 spins from the first instruction, vCPU 1 waits for a start IPI
# that never comes.  2 x 128 MiB preallocated: all guest RAM is resident.
python3 -c 'import sys; d = bytearray(65536); d[0xfff0:0xfff2] = b"\xeb\xfe"; open(sys.argv[1], "wb").write(d)' \
	"$TRASH/spin.rom"
sh -c '[ -n "$1" ] && echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG" \
	qemu-system-x86_64 -accel tcg -name "guest=$NAME,debug-threads=on" -smp 2 -m 256 \
	-bios "$TRASH/spin.rom" \
	-object memory-backend-ram,id=m0,size=128M,prealloc=on \
	-object memory-backend-ram,id=m1,size=128M,prealloc=on \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
	-display none -nodefaults >"$TRASH/qemu.log" 2>&1 &
QPID=$!

# the vCPU threads, from /proc
tid_of() { thread_named "$QPID" "$1"; }
i=0
while [ $i -lt 100 ] && ! tid_of "CPU 1/TCG" >/dev/null; do sleep 0.1; i=$((i + 1)); done
T0=$(tid_of "CPU 0/TCG")
T1=$(tid_of "CPU 1/TCG")

test_expect_success 'QEMU started with two vCPU threads "CPU n/TCG"' '
	test -n "$T0" && test -n "$T1" || { cat "$TRASH/qemu.log"; false; }
'

test_expect_success 'list vms finds the VM by name with its pid and accelerator' '
	vmmprof list vms --json "$NAME" >out &&
	test "$(json_get out "len(j[\"vms\"])")" = 1 &&
	test "$(json_get out "j[\"vms\"][0][\"name\"]")" = "$NAME" &&
	test "$(json_get out "j[\"vms\"][0][\"pid\"]")" = "$QPID" &&
	test "$(json_get out "j[\"vms\"][0][\"accel\"]")" = tcg
'

test_expect_success 'both vCPU threads, by index, with the comm /proc gives them' '
	vmmprof list vms --json "$NAME" >out &&
	test "$(json_get out "\" \".join(str(c[\"tid\"]) for c in j[\"vms\"][0][\"vcpus\"])")" = "$T0 $T1" &&
	test "$(json_get out "j[\"vms\"][0][\"vcpus\"][1][\"comm\"]")" = "CPU 1/TCG"
'

test_expect_success 'placement: CPU and node as the kernel reports them, affinity as set' '
	taskset -p -c 1 "$T1" >/dev/null &&
	vmmprof list vms --json "$NAME" >out &&
	test "$(json_get out "j[\"vms\"][0][\"vcpus\"][1][\"affinity\"]")" = 1 &&
	test "$(json_get out "j[\"vms\"][0][\"vcpus\"][0][\"affinity\"]")" = \
		"$(awk "/^Cpus_allowed_list/ {print \$2}" /proc/$QPID/task/$T0/status)" &&
	for idx in 0 1; do
		cpu=$(json_get out "j[\"vms\"][0][\"vcpus\"][$idx][\"cpu\"]") &&
		node=$(json_get out "j[\"vms\"][0][\"vcpus\"][$idx][\"node\"]") &&
		test -d /sys/devices/system/cpu/cpu$cpu &&
		{ test -d /sys/devices/system/cpu/cpu$cpu/node$node ||
		  grep -qw "$cpu" /sys/devices/system/node/node$node/cpulist ||
		  { echo "cpu $cpu is not on node $node"; false; }; } || return 1
	done
'

test_expect_success 'guest RAM per host node: the 256 MiB preallocated, all on this host node(s)' '
	vmmprof list vms --json "$NAME" >out &&
	total=$(json_get out "sum(j[\"vms\"][0][\"mem_node_bytes\"].values())") &&
	test "$total" -ge $((250 * 1048576)) && test "$total" -le $((256 * 1048576)) &&
	test "$(json_get out "j[\"vms\"][0][\"mem_size_bytes\"]")" = $((256 * 1048576))
'

if [ -n "$CG" ]; then
	test_expect_success 'the VM cgroup is the one QEMU was put in (cgroup v2)' '
		vmmprof list vms --json "$NAME" >out &&
		test "$(json_get out "j[\"vms\"][0][\"cgroup\"]")" = "/vp-t5030-$$" &&
		test "$(json_get out "j[\"vms\"][0][\"cgroup_version\"]")" = 2 &&
		test "$(json_get out "j[\"vms\"][0][\"cgroup_dir\"]")" = "$CG"
	'
else
	test_skip 'the VM cgroup is the one QEMU was put in' 'cannot create a cgroup v2 group here'
fi

test_expect_success 'top: vCPU 0 spins in its firmware: its CPU share is above 0' '
	vmmprof top --json -n 2 -d 1 >out &&
	tail -1 out >s2 &&
	json_get s2 "[c for c in j[\"vcpus\"] if c[\"vm\"]==\"$NAME\" and c[\"vcpu\"]==0][0][\"cpu_pct\"] > 0" | grep -q True
'

# run_ns TID: the thread's time on a CPU so far (schedstat), in ns
run_ns() { awk '{print $1}' /proc/$QPID/task/$1/schedstat; }
# near A B: |A - B| <= 25% of B + 50 ms (a shared two-core machine: the
# counting window sits inside the schedstat window, a few ms shorter)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 0.25 * b + 50) }' ||
	{ echo "task-clock $1 ms vs CPU time $2 ms"; return 1; }; }

test_expect_success 'stat per vCPU thread (tid from list vms): task-clock = the thread CPU time' '
	vmmprof list vms --json "$NAME" >out &&
	tid=$(json_get out "j[\"vms\"][0][\"vcpus\"][0][\"tid\"]") && test "$tid" = "$T0" &&
	a=$(run_ns $tid) &&
	vmmprof stat -e task-clock -t $tid -x, sleep 2 2>st &&
	b=$(run_ns $tid) &&
	tc=$(awk -F, "\$3 == \"task-clock\" {print \$1}" st) &&
	near "$tc" "$(( (b - a) / 1000000 ))"
'

if [ -n "$CG" ] && [ -r "$CG/cpu.stat" ]; then
	test_expect_success 'stat per VM cgroup (from list vms): task-clock = the cgroup CPU usage' '
		vmmprof list vms --json "$NAME" >out &&
		cg=$(json_get out "j[\"vms\"][0][\"cgroup\"]") &&
		a=$(awk "/^usage_usec/ {print \$2}" "$CG/cpu.stat") &&
		vmmprof stat -a -e task-clock -G "${cg#/}" -x, sleep 2 2>st &&
		b=$(awk "/^usage_usec/ {print \$2}" "$CG/cpu.stat") &&
		tc=$(awk -F, "\$3 == \"task-clock\" {print \$1}" st) &&
		near "$tc" "$(( (b - a) / 1000 ))"
	'
else
	test_skip 'stat per VM cgroup: task-clock = the cgroup CPU usage' 'no cgroup v2 group with cpu.stat here'
fi

test_expect_success 'the VM ending mid-run ends its series once, top goes on' '
	rm -f out
	( vmmprof top --json -n 6 -d 0.4 >out; echo $? >rc ) &
	bg=$!
	# the VM goes once top has printed a sample with it (a fixed sleep lost
	# that race under the sanitizers on a loaded machine)
	wait_lines out && cleanup && wait $bg &&
	{ test "$(cat rc)" = 0 && test $(wc -l <out) = 6 ||
		{ echo "top exited $(cat rc) after $(wc -l <out) of 6 samples"; false; }; } &&
	{ head -1 out | grep -q "\"name\":\"$NAME\"" || { echo "not in the first sample:"; head -1 out | cut -c1-400; false; }; } &&
	tail -1 out >last && { ! grep -q "\"vm\":\"$NAME\"" last || { echo "still in the last"; false; }; } &&
	n=$(grep -c "\"kind\":\"vm\",\"name\":\"$NAME\"" out) &&
	{ test "$n" = 1 || { echo "its vm series ended $n times, want once"; false; }; } &&
	n=$(grep -o "\"kind\":\"vcpu\",\"name\":\"$NAME vCPU [01]\"" out | wc -l) &&
	{ test "$n" = 2 || { echo "vCPU series ended $n times, want 2"; false; }; }
'

cleanup
test_done
