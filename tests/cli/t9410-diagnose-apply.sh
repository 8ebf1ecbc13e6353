#!/bin/sh
# t9410-diagnose-apply.sh - `diagnose --apply`: the advice's exact commands run one by one
# (stubs first in PATH), before and after recorded and compared, the undo list; refusals:
# --dry-run, no terminal without --yes, low confidence unless told, a failed command stops
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root

# Stubs of the tools the advice runs: each logs its arguments, prints a line,
# and exits with $STUB_EXIT (0 unless a test says otherwise).
mkdir -p "$TRASH/bin"
for tool in taskset virsh migratepages xl; do
	cat >"$TRASH/bin/$tool" <<EOF
#!/bin/sh
echo "$tool \$*" >>"$TRASH/stub.log"
echo "$tool stub: done"
exit \${STUB_EXIT:-0}
EOF
	chmod +x "$TRASH/bin/$tool"
done
STUBPATH="$TRASH/bin:$PATH"

# host-qemu (tests/data/root/README.md): 'vptest,x' has two virtual nodes
# (vCPU 0 with backend m0, vCPU 1 with m1, both 128M, no policy) whose two
# 128 MiB mappings numa_maps cannot tell apart; vCPU 0 (thread 4002) ran on
# CPU 0 (node 0), vCPU 1 (4003) on CPU 3 (node 1), and the software model's
# whole-VM locality estimate flags both (29 % and 71 % remote, a proxy).  The
# advice, from the recording made before (rows.vm_topo keeps the virtual
# nodes), is vnuma-fidelity for each virtual node, low confidence: pin vCPU 0
# to node 0 ('taskset -pc 0-1 4002') and vCPU 1 to node 1 ('taskset -pc 2-3
# 4003'), each backend bound there at the next start (a comment line, not
# run).  Both threads' status files say Cpus_allowed_list 0-3: the undo.
apply() {
	rm -f "$TRASH/stub.log"
	PATH="$STUBPATH" TMPDIR="$TRASH" vmmprof diagnose --root "$R/host-qemu" -d 0.3 --apply "$@"
}

test_expect_success 'usage: --dry-run, --yes, --allow-low-confidence need --apply; --apply not on a recording nor --json' '
	expect_exit 2 vmmprof diagnose --dry-run 2>err && grep_q "go with --apply" err &&
	expect_exit 2 vmmprof diagnose --yes 2>err && grep_q "go with --apply" err &&
	expect_exit 2 vmmprof diagnose --balancing-baseline 2>err && grep_q "baseline go with --apply" err &&
	expect_exit 2 vmmprof diagnose --apply x.vmmdb 2>err && grep_q "not on a recording" err &&
	expect_exit 2 vmmprof diagnose --apply --json 2>err && grep_q "not with --json" err &&
	vmmprof help diagnose >h && grep -q -- "--allow-low-confidence" h
'

if vmmprof record -o "$TRASH/probe.vmmdb" -d 0.1 --root "$R/host-qemu" 2>&1 |
	grep -q "built without SQLite"; then
	test_skip 'diagnose --apply' 'built without SQLite: --apply records before and after'
	test_done
	exit 0
fi

test_expect_success 'low confidence is not applied unless told: nothing runs' '
	apply --yes </dev/null >out 2>err &&
	grep_q "^  1. vnuma-fidelity (low confidence): not applied" out &&
	grep_q "^  2. vnuma-fidelity (low confidence): not applied" out &&
	grep_q "because its confidence is low .*--allow-low-confidence applies it" out &&
	grep_q "^nothing to apply: no command was run" out &&
	test ! -e stub.log &&
	! grep -q "recording after" out
'

test_expect_success '--dry-run: the exact command and its undo, nothing runs' '
	apply --allow-low-confidence --dry-run </dev/null >out 2>err &&
	grep_q "^  1. vnuma-fidelity (low confidence): apply" out &&
	grep_q "^     run:  taskset -pc 0-1 4002$" out &&
	grep_q "^     undo: taskset -pc 0-3 4002$" out &&
	grep_q "^     run:  taskset -pc 2-3 4003$" out &&
	grep_q "^     undo: taskset -pc 0-3 4003$" out &&
	! grep -q "run:  #" out &&
	grep_q "^dry run (--dry-run): no command was run" out &&
	test ! -e stub.log
'

test_expect_success 'no terminal and no --yes: refuses before running anything' '
	expect_exit 1 apply --allow-low-confidence </dev/null >out 2>err &&
	grep_q "no terminal to confirm on (--yes applies without asking)" err &&
	test ! -e stub.log
'

test_expect_success 'on a terminal it asks; anything but y runs nothing' '
	rm -f stub.log &&
	PATH="$STUBPATH" TMPDIR="$TRASH" python3 -c "
import os, pty, sys, select, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
buf = b\"\"
end = time.time() + 120
while b\"[y/N]\" not in buf and time.time() < end:
    r, _, _ = select.select([fd], [], [], 1)
    if r:
        try:
            buf += os.read(fd, 4096)
        except OSError:
            break
assert b\"apply these 2 commands now? [y/N]\" in buf, buf[-400:]
os.write(fd, b\"n\\n\")
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    buf += d
_, st = os.waitpid(pid, 0)
assert b\"not confirmed: no command was run\" in buf, buf[-400:]
assert os.WEXITSTATUS(st) == 0, st
" "$VMMPROF" diagnose --root "$R/host-qemu" -d 0.3 --apply --allow-low-confidence &&
	test ! -e stub.log
'

test_expect_success 'applied: each command runs once, exactly; after is recorded, compared; the undo is printed' '
	apply --allow-low-confidence --yes </dev/null >out 2>err &&
	printf "%s\n" "taskset -pc 0-1 4002" "taskset -pc 2-3 4003" >want &&
	diff -u want stub.log &&
	grep_q "^\\\$ taskset -pc 0-1 4002$" out &&
	grep_q "^\\\$ taskset -pc 2-3 4003$" out &&
	grep_q "^    taskset stub: done$" out &&
	grep_q "^  exit status 0$" out &&
	grep_q "^diagnose --apply: recording after for 0.3 s into $TRASH/vmmprof-apply\\..*/after.vmmdb" out &&
	grep_q "^VM vptest,x (matched by name)" out &&
	grep_q "^  predicted (BEFORE.s diagnosis): back vptest,x.s virtual node 0 with host node 0 alone (CPUs 0-1).*gain n/a: the diagnosis had no cost" out &&
	grep_q "^  realised: the gain in time cannot be measured" out &&
	tail -3 out >undo &&
	printf "%s\n" "to undo what was applied, run (in this order):" "  taskset -pc 0-3 4003" \
		"  taskset -pc 0-3 4002" >want &&
	cmp want undo
'

test_expect_success 'a command that fails stops the run: nothing after it, nothing recorded after' '
	STUB_EXIT=3 && export STUB_EXIT &&
	expect_exit 1 apply --allow-low-confidence --yes </dev/null >out 2>err &&
	unset STUB_EXIT &&
	test "$(cat stub.log)" = "taskset -pc 0-1 4002" &&
	grep_q "^  exit status 3: failed$" out &&
	grep_q "^stopped at a failed command" out &&
	! grep -q "recording after" out &&
	tail -1 out | grep -q "(nothing was applied)"
'

# --balancing-baseline: between the plan and the commands, as long again recorded with
# the kernel's NUMA balancing on, put back as it was; the compare sets AFTER
# against it.  host-qemu has no /proc/sys/kernel/numa_balancing: an error
# naming it, before any command runs.  A copy with the knob at 0: turned to
# 1 for the baseline, 0 again after (the file says so), and the compare
# names the baseline recording.
test_expect_success '--apply --balancing-baseline: the kernel balancing first, put back; a kernel without it is refused' '
	expect_exit 1 apply --allow-low-confidence --yes --balancing-baseline </dev/null >out 2>err &&
	grep_q "no automatic NUMA balancing to compare with (/proc/sys/kernel/numa_balancing" err &&
	test ! -e stub.log &&
	cp -r "$R/host-qemu" hq &&
	mkdir -p hq/proc/sys/kernel && echo 0 >hq/proc/sys/kernel/numa_balancing &&
	rm -f stub.log &&
	PATH="$STUBPATH" TMPDIR="$TRASH" vmmprof diagnose --root "$TRASH/hq" -d 0.3 --apply \
		--allow-low-confidence --yes --balancing-baseline </dev/null >out 2>err &&
	grep_q "^diagnose --apply: baseline with the kernel.s NUMA balancing on (/proc/sys/kernel/numa_balancing: 0 -> 1) for 0.3 s into $TRASH/vmmprof-apply\..*/baseline.vmmdb" out &&
	grep_q "^diagnose --apply: the kernel.s NUMA balancing back off" out &&
	test "$(cat hq/proc/sys/kernel/numa_balancing)" = 0 &&
	printf "%s\n" "taskset -pc 0-1 4002" "taskset -pc 2-3 4003" >want &&
	diff -u want stub.log &&
	grep_q "^baseline: $TRASH/vmmprof-apply\..*/baseline.vmmdb (model " out &&
	grep_q "^  against the baseline (the same VM without the advice):" out
'

# host-libvirt-v2: web1 is libvirt-managed; its vCPU 1 is thread 1003, whose status
# file says Cpus_allowed_list 2-3: the undo pins it back there, with the same flags.
# web1 is persistent (the fixture has /etc/libvirt/qemu/web1.xml): the recording
# made before keeps that (rows.persist), so the advice changes the running
# domain and its configuration, --live --config, as the live diagnosis says.
# That configuration pins vCPU 1 nowhere (no <vcpupin>, no <vcpu cpuset>):
# it ran on every host CPU, 0-3 (the fixture's cpu/online), not on the
# thread's 2-3, so the undo is two commands: the thread back to 2-3 --live,
# the configuration back to 0-3 --config (one --live --config with 2-3
# would write a pin the configuration never had).
test_expect_success 'virsh vcpupin: the undo restores the vCPU thread'"'"'s affinity and the configuration'"'"'s pin before' '
	rm -f stub.log &&
	PATH="$STUBPATH" TMPDIR="$TRASH" vmmprof diagnose --root "$R/host-libvirt-v2" -d 0.3 \
		--apply --allow-low-confidence --yes </dev/null >out 2>err &&
	test "$(cat stub.log)" = "virsh vcpupin web1 1 0-1 --live --config" &&
	tail -2 out >undo &&
	printf "  virsh vcpupin web1 1 2-3 --live\n  virsh vcpupin web1 1 0-3 --config\n" >want &&
	diff -u want undo
'

test_done
