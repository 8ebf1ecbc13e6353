#!/bin/sh
# vm-testbed.sh - the QEMU testbed tier: boots an x86_64 guest with three
# virtual NUMA nodes and an aarch64 guest with an emulated PMU (exact
# instruction counts under -icount), runs vmmprof and the checks of
# tests/vm/guest/ inside them, and checks from the host what vmmprof sees of
# a running guest.  Every expectation comes from the guest definitions below
# (the same variables make the QEMU command line and the expectation the
# guest is given on its kernel command line).
#
# Last line: "vm-testbed: N passed, N failed, N skipped".  Environment:
#   VP_VM_CACHE     download and image cache (default tests/vm/cache)
#   VP_VM_TIMEOUT   seconds a guest may run before it is killed (default 480:
#                   the x86_64 guest's checks take ~150 s on a quiet machine
#                   and passed 300 s at load 10 with another suite beside)
#   VP_VM_KEEP=1    keep the console logs in tests/vm/cache/logs
#   VP_VM_ONLY=x86_64|truth|aarch64|demo|lifecycle   run one guest (or check) only
#                   (while developing)
#   VP_VM_CHECKS=G1,G2   only these groups of the guests' checks (topology
#                   always runs): locality, diagnose, verify, apply (x86_64);
#                   stat, diagnose, verify (aarch64)
set -u
cd "$(dirname "$0")/../.."
top=$(pwd)
. tests/vm/lib.sh

timeout_s=${VP_VM_TIMEOUT:-480}
logs=$VP_VM_CACHE/logs
mkdir -p "$logs"
t0=$(date +%s)

# --- guest definitions -----------------------------------------------------
# Per node, '/'-separated: CPU lists, memory in MiB, distance rows.
X86_CPUS="0-1/2/3"
X86_MEM="256/192/128"
# asymmetric on purpose (2->0 is 31, 0->2 is 30): a transposed matrix fails
X86_DIST="10,20,30/20,10,25/31,25,10"
X86_NAME=vmtest-x86-$$
A64_CPUS="0/1"
A64_MEM="256/256"
A64_DIST="10,20/20,10"
A64_NAME=vmtest-arm64-$$
# the locality workload's page count and the counting workload's iterations
LOC_PAGES=2000
LOOP_N=10000000

say() { echo "vm-testbed: $*"; }
result() { # result ok|FAIL|skip NAME DETAIL: a host-side check
	case $1 in
	ok) vm_pass=$((vm_pass + 1)); echo "ok   $2${3:+ ($3)}" ;;
	FAIL) vm_fail=$((vm_fail + 1)); echo "FAIL $2: $3" ;;
	skip) vm_skip=$((vm_skip + 1)); echo "skip $2: $3" ;;
	esac
}
finish() {
	say "took $(($(date +%s) - t0))s"
	echo "vm-testbed: $vm_pass passed, $vm_fail failed, $vm_skip skipped"
	[ "$vm_fail" -eq 0 ]
	exit
}

# numa_args CPUS MEM DIST: QEMU -object/-numa options for the layout.
numa_args() {
	echo "$1" | tr '/' '\n' >"$work/cpus"
	echo "$2" | tr '/' '\n' >"$work/mem"
	echo "$3" | tr '/' '\n' >"$work/dist"
	i=0
	paste -d' ' "$work/cpus" "$work/mem" | while read -r c m; do
		printf ' -object memory-backend-ram,id=m%d,size=%dM -numa node,nodeid=%d' "$i" "$m" "$i"
		# one cpus= per range: QEMU takes a list as repeated options
		for r in $(echo "$c" | tr ',' ' '); do
			printf ',cpus=%s' "$r"
		done
		printf ',memdev=m%d' "$i"
		i=$((i + 1))
	done
	s=0
	while read -r row; do
		d=0
		for v in $(echo "$row" | tr ',' ' '); do
			[ "$s" -ne "$d" ] && printf ' -numa dist,src=%d,dst=%d,val=%d' "$s" "$d" "$v"
			d=$((d + 1))
		done
		s=$((s + 1))
	done <"$work/dist"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v qemu-system-x86_64 >/dev/null || ! command -v qemu-system-aarch64 >/dev/null; then
	result skip guests "qemu-system-x86_64/aarch64 not installed (scripts/install-deps.sh --test)"
	finish
fi

# --- builds ----------------------------------------------------------------
say "building vmmprof (host and aarch64) and the guest helpers"
if ! make -s -j"$(nproc)" all >"$work/build.log" 2>&1; then
	cat "$work/build.log"
	result FAIL build "host build failed"
	finish
fi
# the aarch64 build only for the aarch64 guest
if { [ "${VP_VM_ONLY:-all}" = all ] || [ "${VP_VM_ONLY:-all}" = aarch64 ]; } &&
	! make -s cross-arm64 >"$work/build-arm64.log" 2>&1; then
	tail -n 30 "$work/build-arm64.log"
	result FAIL build-arm64 "aarch64 cross build failed (make cross-arm64; scripts/install-deps.sh --test installs the :arm64 packages)"
	finish
fi
hb=$VP_VM_CACHE/helpers
rm -rf "$hb"
mkdir -p "$hb/x86_64" "$hb/aarch64"
g=tests/vm/guest
if ! { gcc -O2 -Wall -Wextra -Werror -o "$hb/x86_64/numa_touch" $g/numa_touch.c -lnuma &&
	aarch64-linux-gnu-gcc -nostdlib -static -o "$hb/aarch64/loop" $g/loop-aarch64.S &&
	aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$hb/aarch64/pmucount" $g/pmucount.c &&
	aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$hb/aarch64/gate" $g/gate.c; } \
	>"$work/helpers.log" 2>&1; then
	cat "$work/helpers.log"
	result FAIL helpers "building the guest helpers failed"
	finish
fi

# image ARCH ROOT EXPECT...: an initramfs for ARCH in ROOT.cpio.gz.
image() {
	arch=$1
	root=$2
	vm_root_new "$root" && vm_busybox "$root" "$arch" || return 1
	cp $g/init "$root/init" && chmod 755 "$root/init" || return 1
	mkdir -p "$root/vmtest" && cp $g/vmtest.sh "$root/vmtest/" &&
		cp "$g/checks-$arch.sh" "$root/vmtest/checks.sh" || return 1
	case $arch in
	x86_64) vm_copy_elf "$root" "$arch" build/vmmprof /usr/bin/vmmprof ;;
	aarch64) vm_copy_elf "$root" "$arch" build-arm64/vmmprof /usr/bin/vmmprof ;;
	esac || return 1
	# the built-in models where an installed binary looks for them
	if [ -d models ]; then
		mkdir -p "$root/usr/share/vmmprof/models" && cp models/* "$root/usr/share/vmmprof/models/" ||
			return 1
	fi
	for h in "$hb/$arch"/*; do
		vm_copy_elf "$root" "$arch" "$h" "/vmtest/$(basename "$h")" || return 1
	done
	# numactl's migratepages, the command diagnose --apply runs (Debian's)
	if [ "$arch" = x86_64 ]; then
		ndir=$VP_VM_CACHE/numactl-$arch
		if [ ! -x "$ndir/usr/bin/migratepages" ]; then
			deb=$(vm_deb_fetch "numactl:$(vm_debarch "$arch")") || return 1
			rm -rf "$ndir"
			dpkg -x "$deb" "$ndir" || return 1
		fi
		vm_copy_elf "$root" "$arch" "$ndir/usr/bin/migratepages" /vmtest/migratepages ||
			return 1
	fi
	vm_initramfs "$root" "$root.cpio.gz"
}

# --- x86_64 NUMA guest -------------------------------------------------------
x86_guest() {
	kdir=$(vm_kernel x86_64) || { result FAIL x86_64/kernel "no kernel"; return; }
	image x86_64 "$work/x86" || { result FAIL x86_64/image "building the initramfs failed"; return; }
	nodes=$(echo "$X86_CPUS" | tr '/' '\n' | wc -l)
	ncpu=$(($(echo "$X86_CPUS" | tr '/,' '\n\n' | sed 's/.*-//' | sort -n | tail -n 1) + 1))
	mem=$(echo "$X86_MEM" | tr '/' '\n' | awk '{ s += $1 } END { print s }')
	mkfifo "$work/hold.in" "$work/hold.out"
	log=$logs/x86_64.log
	# shellcheck disable=SC2046
	vm_start "$log" "$timeout_s" qemu-system-x86_64 -accel tcg -cpu max -smp "$ncpu" -m "${mem}M" \
		$(numa_args "$X86_CPUS" "$X86_MEM" "$X86_DIST") \
		-name "guest=$X86_NAME,debug-threads=on" \
		-display none -monitor none -serial stdio -chardev "pipe,id=hold,path=$work/hold" \
		-serial chardev:hold -no-reboot \
		-kernel "$(vm_kernel_image "$kdir")" -initrd "$work/x86.cpio.gz" \
		-append "console=ttyS0 quiet nokaslr panic=-1 vmtest.nodes=$nodes vmtest.cpus=$X86_CPUS vmtest.mem=$X86_MEM vmtest.dist=$X86_DIST vmtest.pages=$LOC_PAGES vmtest.hold=60${VP_VM_CHECKS:+ vmtest.checks=$VP_VM_CHECKS}"
	if vm_wait_for "$log" '^VMTEST-HOLD' "$timeout_s"; then
		host_view "$nodes" "$ncpu" "$mem"
		echo go >"$work/hold.in"
	fi
	vm_wait
	vm_results "$log" x86_64
	host_eval "$log" x86_64 "$nodes" "$X86_CPUS" "$X86_MEM" "$X86_DIST"
}

# host_view NODES NCPU MEM_MIB: while the x86_64 guest holds, what the host sees.
host_view() {
	# QEMU is the child of the timeout(1) that vm_start started
	qpid=$(pgrep -P "$vm_pid" | head -n 1)
	if [ -z "$qpid" ]; then
		result FAIL host/qemu-found "no process with guest=$X86_NAME"
		return
	fi
	# the ground truth the vmmprof check is held to: QEMU names one thread
	# per vCPU "CPU n/TCG" (debug-threads=on)
	truth=""
	for t in /proc/"$qpid"/task/*; do
		c=$(cat "$t/comm" 2>/dev/null)
		case $c in
		"CPU "*/TCG) i=${c#CPU }; truth="$truth${truth:+,}${i%/TCG}:${t##*/}" ;;
		esac
	done
	n=$(echo "$truth" | tr ',' '\n' | grep -c .)
	if [ "$n" -eq "$2" ]; then
		result ok host/vcpu-threads "$n vCPU threads named CPU n/TCG"
	else
		result FAIL host/vcpu-threads "$n threads named CPU n/TCG, want $2"
	fi
	if build/vmmprof list vms --json >"$work/vms.json" 2>"$work/vms.err"; then
		python3 tests/vm/eval.py vms "$work/vms.json" "$X86_NAME" "$qpid" "$truth" "$3" \
			>"$work/vms.res" 2>&1 || echo "FAIL host/eval tests/vm/eval.py failed" >>"$work/vms.res"
		while read -r v name detail; do result "$v" "$name" "$detail"; done <"$work/vms.res"
	else
		result FAIL host/list-vms "vmmprof list vms --json failed: $(head -c 300 "$work/vms.err")"
	fi
}

# host_eval LOG ARCH NODES CPUS MEM DIST: checks of VMDATA JSON the guest sent.
host_eval() {
	python3 tests/vm/eval.py guest "$1" "$2" "$3" "$4" "$5" "$6" >"$work/eval.res" 2>&1 ||
		echo "FAIL $2/eval tests/vm/eval.py failed" >>"$work/eval.res"
	while read -r v name detail; do result "$v" "$name" "$detail"; done <"$work/eval.res"
}

# --- aarch64 guest with an emulated PMU ------------------------------------
a64_guest() {
	kdir=$(vm_kernel aarch64) || { result FAIL aarch64/kernel "no kernel"; return; }
	image aarch64 "$work/a64" || { result FAIL aarch64/image "building the initramfs failed"; return; }
	nodes=$(echo "$A64_CPUS" | tr '/' '\n' | wc -l)
	ncpu=$(($(echo "$A64_CPUS" | tr '/,' '\n\n' | sed 's/.*-//' | sort -n | tail -n 1) + 1))
	mem=$(echo "$A64_MEM" | tr '/' '\n' | awk '{ s += $1 } END { print s }')
	log=$logs/aarch64.log
	# shellcheck disable=SC2046
	vm_start "$log" "$timeout_s" qemu-system-aarch64 -M virt -cpu neoverse-n1,pmu=on -accel tcg \
		-icount shift=0 -smp "$ncpu" -m "${mem}M" \
		$(numa_args "$A64_CPUS" "$A64_MEM" "$A64_DIST") \
		-name "guest=$A64_NAME,debug-threads=on" \
		-display none -monitor none -serial stdio -no-reboot \
		-kernel "$(vm_kernel_image "$kdir")" -initrd "$work/a64.cpio.gz" \
		-append "console=ttyAMA0 quiet nokaslr panic=-1 vmtest.nodes=$nodes vmtest.cpus=$A64_CPUS vmtest.mem=$A64_MEM vmtest.dist=$A64_DIST vmtest.loop=$LOOP_N vmtest.pages=$LOC_PAGES${VP_VM_CHECKS:+ vmtest.checks=$VP_VM_CHECKS}"
	vm_wait
	vm_results "$log" aarch64
	host_eval "$log" aarch64 "$nodes" "$A64_CPUS" "$A64_MEM" "$A64_DIST"
}

only=${VP_VM_ONLY:-all}
if [ "$only" = all ] || [ "$only" = x86_64 ]; then
	say "x86_64 guest: nodes $X86_CPUS (CPUs), $X86_MEM (MiB), distances $X86_DIST"
	x86_guest
fi
if [ "$only" != all ] && [ "$only" != aarch64 ]; then
	:
elif say "aarch64 guest: nodes $A64_CPUS (CPUs), $A64_MEM (MiB), PMU neoverse-n1 under -icount" &&
	vm_foreign_ready aarch64; then
	a64_guest
else
	result FAIL aarch64/kernel "apt does not know arm64 packages: dpkg --add-architecture arm64 && apt-get update (scripts/install-deps.sh --test does it)"
fi
# The locality estimate against its ground truth (issue 17 item 4): the
# x86_64 image booted again with the TCG plugin tests/vm/plugin/numa_truth.c,
# which counts every user-mode data access of each vCPU per virtual node;
# only the guest's truth group runs.  Each node's RAM, in the addresses the
# plugin API reports, comes from the same QEMU command line started paused
# (info ramblock, info mtree -f; eval.py truth-ranges).
truth_check() {
	kdir=$(vm_kernel x86_64) || { result FAIL truth/kernel "no kernel"; return; }
	if [ ! -s "$work/x86.cpio.gz" ] && ! image x86_64 "$work/x86"; then
		result FAIL truth/image "building the initramfs failed"
		return
	fi
	if ! qsrc=$(vm_qemu_src); then
		result skip truth "no qemu-plugin.h: Debian's qemu source package could not be fetched (see above)"
		return
	fi
	if ! gcc -O2 -Wall -Wextra -Werror -shared -fPIC -I"$qsrc/include/qemu" -o "$work/numa_truth.so" \
		tests/vm/plugin/numa_truth.c >"$work/plugin.log" 2>&1; then
		result FAIL truth/plugin "building tests/vm/plugin/numa_truth.c failed: $(head -c 300 "$work/plugin.log")"
		return
	fi
	nodes=$(echo "$X86_CPUS" | tr '/' '\n' | wc -l)
	ncpu=$(($(echo "$X86_CPUS" | tr '/,' '\n\n' | sed 's/.*-//' | sort -n | tail -n 1) + 1))
	mem=$(echo "$X86_MEM" | tr '/' '\n' | awk '{ s += $1 } END { print s }')
	# shellcheck disable=SC2046
	{ echo "info ramblock"; echo "info mtree -f"; sleep 2; echo quit; } |
		timeout 60 qemu-system-x86_64 -accel tcg -cpu max -smp "$ncpu" -m "${mem}M" \
		$(numa_args "$X86_CPUS" "$X86_MEM" "$X86_DIST") -S -display none -monitor stdio \
		-serial none >"$work/ram.mon" 2>&1
	if ! ranges=$(python3 tests/vm/eval.py truth-ranges "$work/ram.mon" "$qsrc/plugins/api.c" 2>"$work/ranges.err"); then
		result FAIL truth/ranges "no node RAM ranges: $(head -c 300 "$work/ranges.err")"
		return
	fi
	log=$logs/x86_64-truth.log
	rm -f "$work/truth.counts"
	# shellcheck disable=SC2046
	vm_start "$log" "$timeout_s" qemu-system-x86_64 -accel tcg -cpu max -smp "$ncpu" -m "${mem}M" \
		$(numa_args "$X86_CPUS" "$X86_MEM" "$X86_DIST") \
		-name "guest=$X86_NAME-truth,debug-threads=on" \
		-plugin "$work/numa_truth.so,out=$work/truth.counts,ranges=$ranges" \
		-display none -monitor none -serial stdio -no-reboot \
		-kernel "$(vm_kernel_image "$kdir")" -initrd "$work/x86.cpio.gz" \
		-append "console=ttyS0 quiet nokaslr panic=-1 vmtest.nodes=$nodes vmtest.cpus=$X86_CPUS vmtest.mem=$X86_MEM vmtest.dist=$X86_DIST vmtest.pages=$LOC_PAGES vmtest.checks=truth vmtest.truth=1"
	vm_wait
	vm_results "$log" x86_64-truth
	python3 tests/vm/eval.py truth "$log" "$work/truth.counts" "$(echo "$X86_CPUS" | cut -d/ -f1)" \
		>"$work/truth.res" 2>&1 || echo "FAIL truth/eval tests/vm/eval.py truth failed: $(tail -n 3 "$work/truth.res" | tr '\n' '|')" >>"$work/truth.res"
	[ "${VP_VM_KEEP:-0}" = 1 ] && cp "$work/truth.counts" "$logs/" 2>/dev/null
	grep -E '^(ok|FAIL|skip) ' "$work/truth.res" >"$work/truth.lines"
	while read -r v name detail; do result "$v" "$name" "$detail"; done <"$work/truth.lines"
}
if [ "$only" = all ] || [ "$only" = truth ]; then
	say "x86_64 guest under the numa_truth plugin: the locality estimate against exact access counts"
	truth_check
fi
# scripts/run.sh --demo-vm as a newcomer runs it (without its package
# install): the demo guest is found by name with its two vCPU threads, top
# and diagnose show it, and it is stopped at the end.
demo_check() {
	if ! timeout 900 sh scripts/demo-vm.sh 2 >"$work/demo.out" 2>&1; then
		result FAIL demo-vm/run "scripts/demo-vm.sh failed: $(tail -n 15 "$work/demo.out" | tr '\n' '|')"
		return
	fi
	tr -d '\r' <"$work/demo.out" >"$work/demo.txt"
	for want in '^vmmprof-demo$' '^  vcpus       2 ' '^vmmprof-demo  *kvm ' \
		'^Factor cost per VM' '^  vmmprof-demo  *2 ' '^demo-vm: stopping the guest'; do
		if grep -q -- "$want" "$work/demo.txt"; then
			result ok "demo-vm/output" "'$want'"
		else
			result FAIL "demo-vm/output" "no line '$want' in: $(head -c 1500 "$work/demo.txt" | tr '\n' '|')"
		fi
	done
	sleep 1
	if pgrep -f 'guest=vmmprof-demo' >/dev/null; then
		result FAIL demo-vm/stopped "a QEMU with guest=vmmprof-demo still runs"
	else
		result ok demo-vm/stopped "no QEMU left"
	fi
}
if [ "$only" = all ] || [ "$only" = demo ]; then
	say "demo guest: scripts/demo-vm.sh"
	demo_check
fi
# vmmprof record on the host while testbed guests start, stop, restart and
# pause (issue 20): each incarnation counted for exactly the time it existed
# in report's text, CSV, JSON and HTML, against the timestamps
# tests/vm/lifecycle.py takes itself (its header states the bounds).  Two
# small guests of one vCPU, a recording of 20 s.
lifecycle_check() {
	kdir=$(vm_kernel x86_64) || { result skip lifecycle "no guest kernel (apt-get download failed, see above)"; return; }
	root=$work/lc
	if ! { vm_root_new "$root" && vm_busybox "$root" x86_64; }; then
		result skip lifecycle "no busybox for the guest (busybox-static, see above)"
		return
	fi
	# the guest: ready once booted, then a light load (a wake-up every 20 ms)
	# so that a running vCPU runs in every interval and a paused one does not
	cat >"$root/init" <<-'EOF'
	#!/bin/sh
	/bin/busybox --install -s /bin
	export PATH=/bin:/sbin
	echo LIFE-READY
	while :; do usleep 20000; done
	EOF
	chmod 755 "$root/init"
	vm_initramfs "$root" "$root.cpio.gz" || { result FAIL lifecycle/image "building the initramfs failed"; return; }
	python3 tests/vm/lifecycle.py "$top/build/vmmprof" "$(vm_kernel_image "$kdir")" "$root.cpio.gz" \
		"$work" "$$" >"$work/lc.res" 2>&1 ||
		echo "FAIL lifecycle/eval tests/vm/lifecycle.py failed: $(tail -n 3 "$work/lc.res" | tr '\n' '|')" >>"$work/lc.res"
	if [ "${VP_VM_KEEP:-0}" = 1 ]; then
		cp "$work/lc.vmmdb" "$work/sched" "$logs/" 2>/dev/null
		for f in a b1 b2; do cp "$work/$f.log" "$logs/lifecycle-$f.log" 2>/dev/null; done
	fi
	grep -E '^(ok|FAIL|skip) ' "$work/lc.res" >"$work/lc.lines"
	while read -r v name detail; do result "$v" "$name" "$detail"; done <"$work/lc.lines"
}
if [ "$only" = all ] || [ "$only" = lifecycle ]; then
	say "lifecycle: vmmprof record while guests start, stop, restart and pause"
	lifecycle_check
fi
[ "${VP_VM_KEEP:-0}" = 1 ] || rm -f "$logs"/*.results
finish
