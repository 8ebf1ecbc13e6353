#!/bin/sh
# vm-libvirt.sh - the libvirt testbed tier: closes the loop of issue 19 on a
# live libvirt guest.  libvirt's daemons started by hand (virtlogd -d,
# libvirtd -d: no systemd), a transient domain <domain type='qemu'> (QEMU
# software emulation) booted from the testbed's Debian kernel and a
# busybox initramfs whose init keeps both vCPUs busy, its two vCPUs
# stacked on host CPU 1 with `virsh vcpupin --live`; then:
#   found     `vmmprof diagnose` finds both vCPUs waiting for a CPU (factor
#             cpu), costed, named by VM and vCPU;
#   advised   its advice is a `virsh vcpupin NAME V CPU --live` that moves one
#             vCPU to a free CPU (CPU 0 here; transient domain: --live only);
#   applied   `diagnose --apply --yes` runs it: the vCPU thread's
#             Cpus_allowed_list changes from 1 to CPU;
#   compare   `vmmprof compare --json BEFORE AFTER` (the two recordings of
#             --apply): the VM's cpu_cost_pct falls;
#   undo      the undo --apply printed, run, puts the thread back on CPU 1;
#   persistent  the same on a persistent domain (virsh define + start): the
#             advice is --live --config, --apply runs it, the vCPU's pin in
#             the configuration (virsh vcpupin DOM --config) is the advised CPU,
#             and the undo is two commands, the thread back to CPU 1 --live
#             and the configuration back to every host CPU --config (it
#             pinned nothing: the stack was made --live only); run, both hold.
#
# Physics (docs/verification.md "The libvirt loop"): two always-runnable
# vCPU threads on one CPU each run at most half the time, so each waits
# >= 50 % of its run + wait time (more when other work shares the CPU);
# the two schedstat reads are not at the same instant, so >= 40 % is
# required.  Separated onto the two CPUs of an otherwise idle host each
# waits about 0: the VM's wait must fall to at most half of what it was.
# Other work on the host (CI runs at load ~10) adds wait on both sides and
# can make the fall small however good the move: the tier measures that
# other work (busy CPUs from /proc/stat less QEMU's own CPU time over the
# --apply run) and asserts the fall only when it is under 0.5 CPUs (then
# the moved vCPU waits at most 0.5 / 1.5 = 33 % even if all of it was on its
# CPU, the other one about 0: the VM's mean <= 17 %, under half of >= 40 %);
# above that the fall is reported, and the check skipped with the reason.
#
# What the environment lacks (libvirt not installable, libvirtd does not
# start, the domain does not boot in time, a host too loaded for a CPU to
# be free) makes a check SKIP with the reason; what vmmprof gets wrong
# fails.  The domain and the daemons this tier started are stopped on exit.
# Last line: "vm-libvirt: N passed, N failed, N skipped".  Environment:
#   VP_LV_BOOT_TIMEOUT  seconds the guest may take to boot (default 150)
#   VP_LV_SECS          diagnose's and --apply's recording seconds (default 5)
#   VP_VM_KEEP=1        keep the console log and vmmprof's output in
#                       tests/vm/cache/logs/libvirt-*
#   VP_LV_NO_INSTALL=1  do not install missing libvirt packages (skip instead)
set -u
cd "$(dirname "$0")/../.."
. tests/vm/lib.sh

boot_limit=${VP_LV_BOOT_TIMEOUT:-150}
secs=${VP_LV_SECS:-5}
logs=$VP_VM_CACHE/logs
NAME=vmtest-lv-$$
URI=qemu:///system
t0=$(date +%s)
pass=0
fail=0
skip=0

say() { echo "vm-libvirt: $*"; }
result() { # result ok|FAIL|skip NAME DETAIL
	case $1 in
	ok) pass=$((pass + 1)); echo "ok   $2${3:+ ($3)}" ;;
	FAIL) fail=$((fail + 1)); echo "FAIL $2: $3" ;;
	skip) skip=$((skip + 1)); echo "skip $2: $3" ;;
	esac
}
finish() {
	say "took $(($(date +%s) - t0))s"
	echo "vm-libvirt: $pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}
# skip_rest REASON: the checks not reached are skipped with REASON.
skip_rest() {
	for c in $todo; do
		result skip "libvirt/$c" "$1"
	done
	finish
}
# done_check NAME: NAME no longer counts as not reached.
done_check() { todo=$(echo "$todo" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' '); }
todo="found advised applied compare undo persistent"

work=""
started_logd=""
started_libvirtd=""
domain_up=0
pdefined=0
cleanup() {
	if [ "$domain_up" = 1 ]; then
		virsh -c "$URI" destroy "$NAME" >/dev/null 2>&1
	fi
	if [ "$pdefined" = 1 ]; then
		virsh -c "$URI" destroy "$NAME-p" >/dev/null 2>&1
		virsh -c "$URI" undefine "$NAME-p" >/dev/null 2>&1
	fi
	if [ "${VP_VM_KEEP:-0}" = 1 ] && [ -n "$work" ]; then
		mkdir -p "$logs"
		for f in console.log diag.json apply.out compare.json console-p.log apply-p.out; do
			[ -f "$work/$f" ] && cp "$work/$f" "$logs/libvirt-$f"
		done
	fi
	# only what this tier started, by its pid
	[ -n "$started_libvirtd" ] && kill "$started_libvirtd" 2>/dev/null
	[ -n "$started_logd" ] && kill "$started_logd" 2>/dev/null
	[ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- what the tier needs -----------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	skip_rest "needs root (libvirtd's system instance, vcpupin of its domains)"
fi
if [ "$(nproc)" -lt 2 ]; then
	skip_rest "needs 2 CPUs (two vCPUs stacked on one, then one on each)"
fi
need_install=0
for p in virsh libvirtd virtlogd qemu-system-x86_64 cpio; do
	command -v "$p" >/dev/null 2>&1 || need_install=1
done
if [ "$need_install" = 1 ]; then
	if [ "${VP_LV_NO_INSTALL:-0}" = 1 ]; then
		skip_rest "libvirt or QEMU not installed (scripts/install-deps.sh --libvirt)"
	fi
	say "installing libvirt (scripts/install-deps.sh --libvirt)"
	if ! scripts/install-deps.sh --libvirt >/tmp/vm-libvirt-install.$$ 2>&1; then
		why=$(tail -n 2 /tmp/vm-libvirt-install.$$ | tr '\n' ' ')
		rm -f /tmp/vm-libvirt-install.$$
		skip_rest "libvirt not installable: $why"
	fi
	rm -f /tmp/vm-libvirt-install.$$
	# libvirtd and virtlogd are in /usr/sbin
	PATH=$PATH:/usr/sbin:/sbin
	for p in virsh libvirtd virtlogd qemu-system-x86_64 cpio; do
		command -v "$p" >/dev/null 2>&1 || skip_rest "'$p' still missing after scripts/install-deps.sh --libvirt"
	done
fi

say "building vmmprof"
if ! make -s -j"$(nproc)" build/vmmprof >/tmp/vm-libvirt-build.$$ 2>&1; then
	cat /tmp/vm-libvirt-build.$$
	rm -f /tmp/vm-libvirt-build.$$
	result FAIL build "make build/vmmprof failed"
	skip_rest "vmmprof did not build"
fi
rm -f /tmp/vm-libvirt-build.$$
V=$(pwd)/build/vmmprof

# --- libvirt's daemons, by hand ------------------------------------------------
virsh_ok() { virsh -c "$URI" version >/dev/null 2>&1; }
if ! pgrep -x virtlogd >/dev/null 2>&1; then
	virtlogd -d 2>/dev/null || skip_rest "virtlogd -d failed to start"
	sleep 0.5
	started_logd=$(pgrep -x -n virtlogd)
fi
if ! pgrep -x libvirtd >/dev/null 2>&1; then
	libvirtd -d 2>/dev/null || skip_rest "libvirtd -d failed to start"
	sleep 0.5
	started_libvirtd=$(pgrep -x -n libvirtd)
fi
i=0
while ! virsh_ok && [ $i -lt 60 ]; do
	sleep 0.5
	i=$((i + 1))
done
virsh_ok || skip_rest "libvirtd does not answer on $URI within 30 s"
say "libvirt: $(virsh -c "$URI" version 2>/dev/null | sed -n 's/^Running hypervisor: //p')${started_libvirtd:+ (started here)}"

# --- the guest ---------------------------------------------------------------
work=$(mktemp -d /tmp/vm-libvirt.XXXXXX)
# libvirt's QEMU runs as libvirt-qemu: it must reach the kernel and initrd
chmod 755 "$work"
kdir=$(vm_kernel x86_64) || skip_rest "no guest kernel (apt-get download of Debian's linux-image failed)"
cp "$(vm_kernel_image "$kdir")" "$work/vmlinuz" || skip_rest "no kernel image in $kdir"
root=$work/root
vm_root_new "$root" && vm_busybox "$root" x86_64 || skip_rest "no busybox-static for the guest"
# the guest: one busy loop per vCPU (as scripts/demo-vm.sh), then it waits
cat >"$root/init" <<'EOF'
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for c in 0 1; do
	taskset -c "$c" sh -c 'while :; do :; done' &
done
echo "LV-READY $(grep -c ^processor /proc/cpuinfo) cpus"
while :; do sleep 3600; done
EOF
chmod 755 "$root/init"
vm_initramfs "$root" "$work/initrd.gz" || skip_rest "building the initramfs failed"
rm -rf "$root"
cat >"$work/dom.xml" <<EOF
<domain type='qemu'>
  <name>$NAME</name>
  <memory unit='MiB'>256</memory>
  <vcpu placement='static'>2</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$work/vmlinuz</kernel>
    <initrd>$work/initrd.gz</initrd>
    <cmdline>console=ttyS0 quiet panic=-1</cmdline>
  </os>
  <cpu mode='custom' match='exact'><model fallback='allow'>qemu64</model></cpu>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>$(command -v qemu-system-x86_64)</emulator>
    <serial type='file'><source path='$work/console.log'/><target port='0'/></serial>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
say "creating transient domain $NAME (2 vCPUs, 256 MiB, TCG)"
if ! virsh -c "$URI" create "$work/dom.xml" >"$work/create.out" 2>&1; then
	skip_rest "virsh create failed: $(tr '\n' ' ' <"$work/create.out" | head -c 300)"
fi
domain_up=1
end=$(($(date +%s) + boot_limit))
while ! grep -q '^LV-READY' "$work/console.log" 2>/dev/null; do
	if [ "$(date +%s)" -ge "$end" ]; then
		skip_rest "the guest did not boot within $boot_limit s (VP_LV_BOOT_TIMEOUT): $(tail -c 300 "$work/console.log" 2>/dev/null | tr '\n' '|')"
	fi
	virsh -c "$URI" domstate "$NAME" 2>/dev/null | grep -q running ||
		skip_rest "the domain stopped while booting: $(tail -c 300 "$work/console.log" 2>/dev/null | tr '\n' '|')"
	sleep 1
done
say "guest up after $(($(date +%s) - t0))s: $(tr -d '\r' <"$work/console.log" | sed -n 's/^LV-READY //p' | head -n 1)"

# the ground truth: QEMU's vCPU threads, named "CPU n/TCG" (libvirt starts
# QEMU with debug-threads=on)
qpid=$(pgrep -f "guest=$NAME," | head -n 1)
[ -n "$qpid" ] || skip_rest "no QEMU process with guest=$NAME"
tid_of() { # tid_of N: the thread of vCPU N
	for t in /proc/"$qpid"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "CPU $1/TCG" ] && { echo "${t##*/}"; return 0; }
	done
	return 1
}
aff() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$qpid/task/$1/status" 2>/dev/null; }
tid0=$(tid_of 0) && tid1=$(tid_of 1) || skip_rest "no threads named 'CPU 0/TCG' and 'CPU 1/TCG' in QEMU $qpid"

# --- stacked: both vCPUs on CPU 1 ----------------------------------------------
for v in 0 1; do
	virsh -c "$URI" vcpupin "$NAME" "$v" 1 --live >"$work/pin.out" 2>&1 ||
		skip_rest "virsh vcpupin $NAME $v 1 --live failed: $(tr '\n' ' ' <"$work/pin.out")"
done
if [ "$(aff "$tid0")" != 1 ] || [ "$(aff "$tid1")" != 1 ]; then
	skip_rest "virsh vcpupin did not move the threads (Cpus_allowed_list $(aff "$tid0"), $(aff "$tid1"))"
fi
sleep 1

# --- found and costed --------------------------------------------------------
if ! "$V" diagnose --vm "$NAME" -d "$secs" --json >"$work/diag.json" 2>"$work/diag.err"; then
	result FAIL libvirt/found "vmmprof diagnose --vm $NAME failed: $(head -c 400 "$work/diag.err")"
	done_check found
	skip_rest "vmmprof diagnose failed"
fi
python3 - "$work/diag.json" "$NAME" "$tid0" "$tid1" >"$work/found.res" 2>&1 <<'PY'
import json, math, re, sys
j = json.load(open(sys.argv[1]))
name, tids = sys.argv[2], {0: int(sys.argv[3]), 1: int(sys.argv[4])}
d = j["diagnosis"]
cpu = [b for b in d["bottlenecks"] if b["factor"] == "cpu" and b.get("vm") == name]
by = {b.get("vcpu"): b for b in cpu}
bad = []
for v in (0, 1):
    b = by.get(v)
    if b is None:
        bad.append("no cpu finding for %s vCPU %d (findings: %s)" % (name, v, [(x["factor"], x.get("vm"), x.get("vcpu")) for x in d["bottlenecks"]]))
        continue
    c = b.get("cost_pct")
    # two always-runnable threads on one CPU: each waits >= 50 % (40 %: skew of the reads)
    if not (isinstance(c, (int, float)) and math.isfinite(c) and c >= 40):
        bad.append("vCPU %d cost %r, want >= 40 %% (two busy vCPUs on one CPU)" % (v, c))
    if b.get("cost_of") != "run_wait_time":
        bad.append("vCPU %d cost_of %r, want run_wait_time" % (v, b.get("cost_of")))
if bad:
    print("FAIL libvirt/found " + "; ".join(bad))
else:
    print("ok libvirt/found %s vCPU 0 %.1f %%, vCPU 1 %.1f %% of run + wait time waiting (>= 40)"
          % (name, by[0]["cost_pct"], by[1]["cost_pct"]))
adv = [a for a in d["advice"] if a.get("vm") == name and a["rule"] in ("unstack-vcpus", "cpu-overcommit")]
un = [a for a in adv if a["rule"] == "unstack-vcpus"]
if un:
    a = un[0]
    # to a CPU no vCPU of it runs on (CPU 0 on this 2-CPU machine)
    got = a["command"].strip()
    w = got.split()
    to = int(w[4]) if len(w) == 6 and w[4].isdigit() else 1
    want = "virsh vcpupin %s %d %d --live" % (name, a["vcpu"], to)
    if len(un) == 1 and got == want and a["vcpu"] in (0, 1) and to != 1:
        print("ok libvirt/advised '%s' (transient domain: --live only)" % got)
    else:
        print("FAIL libvirt/advised want one unstack-vcpus 'virsh vcpupin %s V CPU --live' (CPU not 1), got %s" % (name, [x["command"] for x in un]))
elif adv:
    print("skip libvirt/advised the host is too loaded for a CPU to be free: %s" % adv[0]["evidence"])
else:
    print("FAIL libvirt/advised no unstack-vcpus or cpu-overcommit advice for %s: %s" % (name, [x["rule"] for x in d["advice"]]))
PY
[ -s "$work/found.res" ] || echo "FAIL libvirt/found the check of diagnose --json failed" >"$work/found.res"
grep -q '^FAIL\|^ok\|^skip' "$work/found.res" || { cat "$work/found.res"; echo "FAIL libvirt/found the check of diagnose --json failed" >"$work/found.res"; }
while read -r verdict check detail; do
	result "$verdict" "$check" "$detail"
	done_check "${check#libvirt/}"
done <"$work/found.res"
grep -q '^skip libvirt/advised' "$work/found.res" &&
	skip_rest "the host is too loaded for a CPU to be free (cpu-overcommit): nothing to apply"

# --- applied -----------------------------------------------------------------
# other work on the host over the --apply run: busy CPUs less QEMU's own time
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
qemu_ticks() { awk '{ print $14 + $15 }' "/proc/$qpid/stat"; }
set -- $(cpu_ticks)
b0=$1 tot0=$2
q0=$(qemu_ticks)
"$V" diagnose --vm "$NAME" -d "$secs" --apply --yes >"$work/apply.out" 2>&1
arc=$?
set -- $(cpu_ticks)
b1=$1 tot1=$2
q1=$(qemu_ticks)
other=$(awk -v b="$((b1 - b0))" -v t="$((tot1 - tot0))" -v q="$((q1 - q0))" -v n="$(nproc)" \
	'BEGIN { if (t <= 0) print "nan"; else printf "%.2f", (b - q) / (t / n) }')
cmd=$(sed -n 's/^\$ //p' "$work/apply.out" | head -n 1)
if grep -q '^nothing to apply' "$work/apply.out" &&
	grep -q 'cpu-overcommit' "$work/apply.out"; then
	result skip libvirt/applied "the host got too loaded for a CPU to be free (cpu-overcommit in --apply's diagnosis; other work $other CPUs)"
	done_check applied
	skip_rest "nothing was applied: the host is too loaded"
fi
case $cmd in
"virsh vcpupin $NAME "[01]" "*[0-9]" --live") ;;
*)
	result FAIL libvirt/applied "diagnose --apply (exit $arc) ran '$cmd', want 'virsh vcpupin $NAME V CPU --live': $(tail -n 20 "$work/apply.out" | tr '\n' '|')"
	done_check applied
	skip_rest "--apply did not run the advice"
	;;
esac
mv=$(echo "$cmd" | awk '{ print $4 }')
to=$(echo "$cmd" | awk '{ print $5 }')
if [ "$mv" = 0 ]; then mtid=$tid0 stid=$tid1; else mtid=$tid1 stid=$tid0; fi
if [ "$arc" -ne 0 ] || ! grep -q '^  exit status 0$' "$work/apply.out"; then
	result FAIL libvirt/applied "diagnose --apply exit $arc: $(tail -n 20 "$work/apply.out" | tr '\n' '|')"
elif [ "$to" != 1 ] && [ "$(aff "$mtid")" = "$to" ] && [ "$(aff "$stid")" = 1 ]; then
	result ok libvirt/applied "'$cmd': vCPU $mv's thread $mtid Cpus_allowed_list 1 -> $to, the other stays on 1"
else
	result FAIL libvirt/applied "after '$cmd' Cpus_allowed_list of vCPU $mv's thread is '$(aff "$mtid")' (want $to, not 1), the other's '$(aff "$stid")' (want 1)"
fi
done_check applied

# --- compare -----------------------------------------------------------------
before=$(sed -n 's/^before: \([^ ]*\) .*/\1/p' "$work/apply.out" | head -n 1)
after=$(sed -n 's/^after:  \([^ ]*\) .*/\1/p' "$work/apply.out" | head -n 1)
if [ -z "$before" ] || [ -z "$after" ] || ! "$V" compare --json "$before" "$after" >"$work/compare.json" 2>"$work/compare.err"; then
	result FAIL libvirt/compare "no compare of --apply's recordings ('$before', '$after'): $(head -c 300 "$work/compare.err" 2>/dev/null)"
else
	python3 - "$work/compare.json" "$NAME" "$other" >"$work/compare.res" 2>&1 <<'PY'
import json, math, sys
j = json.load(open(sys.argv[1]))
name, other = sys.argv[2], float(sys.argv[3])
vm = [v for v in j["vms"] if v["vm"] == name]
if not vm:
    print("FAIL libvirt/compare %s not in the comparison" % name); sys.exit()
m = vm[0]["measures"].get("cpu_cost_pct")
p = vm[0].get("predicted") or {}
if not m or not all(isinstance(m.get(k), (int, float)) for k in ("before", "after")):
    print("FAIL libvirt/compare no cpu_cost_pct before and after: %r" % m); sys.exit()
b, a = m["before"], m["after"]
fig = "cpu_cost_pct %.1f -> %.1f (interval %s .. %s), other work %.2f CPUs, predicted %s%% of %s [%s]" % (
    b, a, m.get("lo"), m.get("hi"), other, p.get("gain_pct"), p.get("gain_of"), p.get("rule"))
if p.get("rule") != "unstack-vcpus" or p.get("gain_of") != "run_wait_time":
    print("FAIL libvirt/compare the predicted advice is not the unstack-vcpus applied: " + fig)
elif b < 40:
    print("FAIL libvirt/compare before %.1f %% < 40 %% (two busy vCPUs on one CPU): %s" % (b, fig))
elif not math.isfinite(other) or other >= 0.5:
    print("skip libvirt/compare the host ran %.2f CPUs of other work (>= 0.5): the fall physics allows is not assured: %s" % (other, fig))
elif a <= b / 2 and (m.get("hi") is None or m["hi"] < 0):
    print("ok libvirt/compare " + fig)
else:
    print("FAIL libvirt/compare want after <= before / 2 and the interval below 0 (other work %.2f CPUs < 0.5): %s" % (other, fig))
PY
	grep -q '^FAIL\|^ok\|^skip' "$work/compare.res" ||
		echo "FAIL libvirt/compare the check of compare --json failed: $(head -c 300 "$work/compare.res")" >"$work/compare.res"
	while read -r verdict check detail; do result "$verdict" "$check" "$detail"; done <"$work/compare.res"
fi
done_check compare

# --- undo --------------------------------------------------------------------
undo=$(sed -n '/^to undo what was applied/,$p' "$work/apply.out" | sed -n 's/^  \(virsh .*\)/\1/p')
want="virsh vcpupin $NAME $mv 1 --live"
if [ "$undo" != "$want" ]; then
	result FAIL libvirt/undo "--apply printed undo '$undo', want '$want'"
elif ! $undo >"$work/undo.out" 2>&1; then
	result skip libvirt/undo "'$undo' failed: $(tr '\n' ' ' <"$work/undo.out")"
elif [ "$(aff "$mtid")" = 1 ]; then
	result ok libvirt/undo "'$undo': vCPU $mv's thread back on CPU 1"
else
	result FAIL libvirt/undo "after '$undo' Cpus_allowed_list is '$(aff "$mtid")', want 1"
fi
done_check undo
[ -n "$before" ] && rm -rf "$(dirname "$before")"

# --- persistent: the same on a defined domain ----------------------------------
virsh -c "$URI" destroy "$NAME" >/dev/null 2>&1
domain_up=0
PNAME=$NAME-p
sed -e "s|<name>$NAME</name>|<name>$PNAME</name>|" -e "s|$work/console.log|$work/console-p.log|" \
	"$work/dom.xml" >"$work/pdom.xml"
say "defining and starting persistent domain $PNAME"
virsh -c "$URI" define "$work/pdom.xml" >"$work/define.out" 2>&1 ||
	skip_rest "virsh define failed: $(tr '\n' ' ' <"$work/define.out" | head -c 300)"
pdefined=1
virsh -c "$URI" start "$PNAME" >"$work/start.out" 2>&1 ||
	skip_rest "virsh start $PNAME failed: $(tr '\n' ' ' <"$work/start.out" | head -c 300)"
end=$(($(date +%s) + boot_limit))
while ! grep -q '^LV-READY' "$work/console-p.log" 2>/dev/null; do
	[ "$(date +%s)" -lt "$end" ] ||
		skip_rest "$PNAME did not boot within $boot_limit s: $(tail -c 300 "$work/console-p.log" 2>/dev/null | tr '\n' '|')"
	sleep 1
done
qpid=$(pgrep -f "guest=$PNAME," | head -n 1)
[ -n "$qpid" ] || skip_rest "no QEMU process with guest=$PNAME"
tid0=$(tid_of 0) && tid1=$(tid_of 1) || skip_rest "no vCPU threads in QEMU $qpid of $PNAME"
for v in 0 1; do
	virsh -c "$URI" vcpupin "$PNAME" "$v" 1 --live >"$work/pin.out" 2>&1 ||
		skip_rest "virsh vcpupin $PNAME $v 1 --live failed: $(tr '\n' ' ' <"$work/pin.out")"
done
sleep 1
# pin_cfg V: vCPU V's CPUs in the persistent configuration ("virsh vcpupin
# DOM --config" lists " VCPU   CPU Affinity", then one " V      CPUS" row each)
pin_cfg() { virsh -c "$URI" vcpupin "$PNAME" --config 2>/dev/null | awk -v v="$1" '$1 == v && NF == 2 { print $2 }'; }
online=$(cat /sys/devices/system/cpu/online)
cfg0=$(pin_cfg 0)
"$V" diagnose --vm "$PNAME" -d "$secs" --apply --yes >"$work/apply-p.out" 2>&1
arc=$?
pb=$(sed -n 's/^before: \([^ ]*\) .*/\1/p' "$work/apply-p.out" | head -n 1)
[ -n "$pb" ] && rm -rf "$(dirname "$pb")"
cmd=$(sed -n 's/^\$ //p' "$work/apply-p.out" | head -n 1)
mv=$(echo "$cmd" | awk '{ print $4 }')
to=$(echo "$cmd" | awk '{ print $5 }')
if grep -q '^nothing to apply' "$work/apply-p.out" && grep -q 'cpu-overcommit' "$work/apply-p.out"; then
	result skip libvirt/persistent "the host got too loaded for a CPU to be free (cpu-overcommit)"
	finish
fi
case $cmd in
"virsh vcpupin $PNAME "[01]" "*[0-9]" --live --config") ;;
*)
	result FAIL libvirt/persistent "--apply (exit $arc) ran '$cmd', want 'virsh vcpupin $PNAME V CPU --live --config': $(tail -n 20 "$work/apply-p.out" | tr '\n' '|')"
	finish
	;;
esac
if [ "$mv" = 0 ]; then mtid=$tid0; else mtid=$tid1; fi
sed -n '/^to undo what was applied/,$p' "$work/apply-p.out" | sed -n 's/^  \(virsh .*\)/\1/p' >"$work/undo-p"
printf 'virsh vcpupin %s %s 1 --live\nvirsh vcpupin %s %s %s --config\n' "$PNAME" "$mv" "$PNAME" "$mv" "$online" >"$work/undo-p.want"
if [ "$arc" -ne 0 ] || [ "$to" = 1 ] || [ "$(aff "$mtid")" != "$to" ] || [ "$(pin_cfg "$mv")" != "$to" ]; then
	result FAIL libvirt/persistent "after '$cmd' (exit $arc): thread '$(aff "$mtid")', configuration '$(pin_cfg "$mv")' (want $to, not 1; configuration before: $cfg0)"
elif ! diff "$work/undo-p.want" "$work/undo-p" >/dev/null; then
	result FAIL libvirt/persistent "--apply printed undo '$(tr '\n' '|' <"$work/undo-p")', want '$(tr '\n' '|' <"$work/undo-p.want")'"
else
	ubad=""
	while read -r u; do
		$u >"$work/undo.out" 2>&1 || ubad="$ubad '$u': $(tr '\n' ' ' <"$work/undo.out")"
	done <"$work/undo-p"
	if [ -n "$ubad" ]; then
		result skip libvirt/persistent "the undo failed:$ubad"
	elif [ "$(aff "$mtid")" = 1 ] && [ "$(pin_cfg "$mv")" = "$online" ]; then
		result ok libvirt/persistent "'$cmd': thread 1 -> $to and configuration $cfg0 -> $to; undo '$(tr '\n' '|' <"$work/undo-p")': thread back on 1, configuration back to $online"
	else
		result FAIL libvirt/persistent "after the undo: thread '$(aff "$mtid")' (want 1), configuration '$(pin_cfg "$mv")' (want $online)"
	fi
fi
done_check persistent
finish
