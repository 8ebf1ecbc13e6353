#!/bin/sh
# demo-vm.sh - boots a small QEMU guest with two virtual NUMA nodes and two
# busy vCPUs, and profiles it live with vmmprof: `list vms`, `top --batch`
# and `diagnose`, then stops the guest.  What a newcomer on a machine with
# no VM (a laptop, a CI runner) runs to see vmmprof on a real VM.
#
#   scripts/run.sh --demo-vm            installs what is missing, builds, runs this
#   scripts/demo-vm.sh [SECONDS]        the same without installing; SECONDS
#                                       of diagnosis (default 5)
#
# The guest is the QEMU testbed's (tests/vm/lib.sh): a Debian kernel fetched
# with apt-get download (once, cached in tests/vm/cache), an initramfs around
# busybox.  Under software emulation (no /dev/kvm) its vCPU threads are named
# "CPU n/TCG"; with /dev/kvm it runs under KVM.  Environment:
#   VP_DEMO_KEEP=1   leave the guest running (its pid is printed) to try
#                    other commands on it; kill it when done
set -eu
cd "$(dirname "$0")/.."
. tests/vm/lib.sh

demo_secs=${1:-5}
case $demo_secs in
'' | *[!0-9]*) echo "demo-vm: error: SECONDS must be a whole number, not '$demo_secs'" >&2; exit 2 ;;
esac
name=vmmprof-demo
for p in qemu-system-x86_64 cpio gzip readelf; do
	if ! command -v "$p" >/dev/null; then
		echo "demo-vm: error: '$p' not found: run scripts/install-deps.sh --demo (or scripts/run.sh --demo-vm)" >&2
		exit 1
	fi
done
if [ ! -x build/vmmprof ]; then
	echo "demo-vm: error: build/vmmprof not built: run make (or scripts/run.sh --demo-vm)" >&2
	exit 1
fi

work=$(mktemp -d)
vm_pid=""
cleanup() {
	if [ -n "$vm_pid" ] && [ "${VP_DEMO_KEEP:-0}" != 1 ]; then
		kill "$vm_pid" 2>/dev/null || true
		wait "$vm_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "demo-vm: fetching the guest kernel (apt-get download, cached) and building its initramfs"
kdir=$(vm_kernel x86_64) || { echo "demo-vm: error: no guest kernel (see above)" >&2; exit 1; }
root=$work/root
vm_root_new "$root" && vm_busybox "$root" x86_64 || { echo "demo-vm: error: no busybox for the guest" >&2; exit 1; }
# the guest: one busy loop per vCPU, then it waits to be stopped
cat >"$root/init" <<'EOF'
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
for c in 0 1; do
	taskset -c "$c" sh -c 'while :; do :; done' &
done
echo "DEMO-READY $(grep -c ^processor /proc/cpuinfo) cpus, $(ls -d /sys/devices/system/node/node* | wc -l) nodes"
while :; do sleep 3600; done
EOF
chmod 755 "$root/init"
vm_initramfs "$root" "$work/demo.cpio.gz"

log=$work/console.log
# boot ACCEL: starts the guest under -accel ACCEL; true once it is up
boot() {
	echo "demo-vm: booting '$name' (2 vCPUs, 2 virtual NUMA nodes of 128 MiB, accel $1)"
	vm_start "$log" 3600 qemu-system-x86_64 -accel "$1" -cpu max -smp 2 -m 256M \
		-object memory-backend-ram,id=m0,size=128M -numa node,nodeid=0,cpus=0,memdev=m0 \
		-object memory-backend-ram,id=m1,size=128M -numa node,nodeid=1,cpus=1,memdev=m1 \
		-name "guest=$name,debug-threads=on" -display none -monitor none -serial stdio -no-reboot \
		-kernel "$(vm_kernel_image "$kdir")" -initrd "$work/demo.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1"
	vm_wait_for "$log" '^DEMO-READY' 300
}
# KVM where /dev/kvm is there; a KVM that QEMU cannot use (a nested
# hypervisor refusing an MSR, seen: "failed to set MSR 0x10a") ends QEMU at
# once: then software emulation, saying why
up=0
if [ -w /dev/kvm ]; then
	if boot kvm; then
		up=1
	elif ! kill -0 "$vm_pid" 2>/dev/null; then
		echo "demo-vm: QEMU ended under KVM: $(tr -d '\r' <"$log" | grep -v '^$' | tail -n 1 | cut -c1-200)"
		echo "demo-vm: booting again under software emulation (TCG)"
	else
		kill "$vm_pid" 2>/dev/null
		wait "$vm_pid" 2>/dev/null
	fi
fi
if [ $up = 0 ] && ! boot tcg; then
	echo "demo-vm: error: the guest did not come up within 300 s; its console:" >&2
	tr -d '\r' <"$log" | tail -n 30 >&2
	exit 1
fi
echo "demo-vm: guest up: $(tr -d '\r' <"$log" | sed -n 's/^DEMO-READY //p' | head -n 1)"
echo

run() {
	echo "\$ vmmprof $*"
	build/vmmprof "$@" || echo "demo-vm: 'vmmprof $*' exited $?"
	echo
}
run list vms "$name"
run top --batch --vm "$name" -d 1 -n 3
run diagnose --vm "$name" -d "$demo_secs"
if [ "${VP_DEMO_KEEP:-0}" = 1 ]; then
	echo "demo-vm: the guest keeps running: QEMU pid $(pgrep -P "$vm_pid" | head -n 1) (kill it when done)"
else
	echo "demo-vm: stopping the guest"
fi
