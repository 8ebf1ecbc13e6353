#!/bin/sh
# capture-fixture.sh - copies the /proc and /sys files the platform probe
# reads from this machine into a fixture tree, trimmed to what it reads.
#
#   scripts/capture-fixture.sh DEST [--pmu-desc] [--qemu] [--cpuid SIGNATURE]
#
#   --pmu-desc   also copy each PMU's format/ and events/ files (by default
#                only type and cpumask, the platform probe's share)
#   --qemu       also copy comm and cmdline of running QEMU processes
#                (they make the tree a "host"; left out by default because
#                test VMs come and go)
#   --cpuid SIG  the CPUID leaf 0x40000000 signature to record in
#                .vmmprof-fixture/cpuid-hypervisor (default: from the
#                kernel's "Hypervisor detected:" line, empty when none)
#
# Reading /proc/self/* records the capturing shell's status and mounts.
set -eu

usage() { echo "usage: $0 DEST [--pmu-desc] [--qemu] [--cpuid SIGNATURE]" >&2; exit 2; }
[ $# -ge 1 ] || usage
dest=$1
shift
pmu_desc=0
qemu=0
sig=unset
while [ $# -gt 0 ]; do
	case $1 in
	--pmu-desc) pmu_desc=1 ;;
	--qemu) qemu=1 ;;
	--cpuid) [ $# -ge 2 ] || usage; sig=$2; shift ;;
	*) usage ;;
	esac
	shift
done
mkdir -p "$dest"

# cp_file PATH [DESTPATH]: copy one file if readable (sysfs files are read
# with cat: their stat size is meaningless).
cp_file() {
	[ -r "$1" ] || return 0
	mkdir -p "$dest$(dirname "${2:-$1}")"
	cat "$1" >"$dest${2:-$1}" 2>/dev/null || rm -f "$dest${2:-$1}"
}

for f in /proc/cpuinfo /proc/meminfo /proc/filesystems /proc/sys/kernel/perf_event_paranoid; do
	cp_file "$f"
done
cp_file /proc/$$/status /proc/self/status
cp_file /proc/$$/mountinfo /proc/self/mountinfo

cp_file /sys/devices/system/cpu/online
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -d "$c" ] || continue
	cp_file "$c/topology/physical_package_id"
	cp_file "$c/topology/core_id"
	for i in "$c"/cache/index[0-9]*; do
		[ -d "$i" ] || continue
		for a in level size shared_cpu_list type; do cp_file "$i/$a"; done
	done
done
if [ -d /sys/devices/system/node ]; then
	mkdir -p "$dest/sys/devices/system/node"
	for n in /sys/devices/system/node/node[0-9]*; do
		[ -d "$n" ] || continue
		for a in cpulist distance meminfo; do cp_file "$n/$a"; done
	done
fi

for p in /sys/bus/event_source/devices/*; do
	[ -e "$p" ] || continue
	name=$(basename "$p")
	d=/sys/bus/event_source/devices/$name
	mkdir -p "$dest$d"
	cp_file "$p/type" "$d/type"
	cp_file "$p/cpumask" "$d/cpumask"
	if [ $pmu_desc = 1 ]; then
		for sub in format events; do
			[ -d "$p/$sub" ] || continue
			mkdir -p "$dest$d/$sub"
			for f in "$p/$sub"/*; do
				[ -f "$f" ] && cp_file "$f" "$d/$sub/$(basename "$f")"
			done
		done
	fi
done

for f in type properties/capabilities pmu/pmu_mode; do cp_file "/sys/hypervisor/$f"; done
cp_file /proc/xen/capabilities
cp_file /sys/class/dmi/id/sys_vendor
cp_file /sys/class/dmi/id/product_name
cp_file /sys/fs/resctrl/info/L3_MON/mon_features
cp_file /sys/fs/cgroup/cgroup.controllers
cp_file /sys/fs/cgroup/unified/cgroup.controllers

# The kernel's word on its PMU and hypervisor, as a one-file kernel log.
if dmesg >/dev/null 2>&1; then
	mkdir -p "$dest/var/log"
	dmesg | grep -E 'Performance Events:|Hypervisor detected:' | sed 's/^\[[ 0-9.]*\] //' \
		>"$dest/var/log/kern.log" || true
	if [ "$sig" = unset ]; then
		case $(dmesg | sed -n 's/.*Hypervisor detected: //p' | head -n 1) in
		KVM) sig=KVMKVMKVM ;;
		Xen*) sig=XenVMMXenVMM ;;
		"Microsoft Hyper-V") sig="Microsoft Hv" ;;
		VMware) sig=VMwareVMware ;;
		*) sig="" ;;
		esac
	fi
fi
[ "$sig" = unset ] && sig=""
mkdir -p "$dest/.vmmprof-fixture"
printf '%s\n' "$sig" >"$dest/.vmmprof-fixture/cpuid-hypervisor"
[ -n "$sig" ] || : >"$dest/.vmmprof-fixture/cpuid-hypervisor"

if [ $qemu = 1 ]; then
	for pd in /proc/[0-9]*; do
		comm=$(cat "$pd/comm" 2>/dev/null) || continue
		case $comm in
		qemu-system-*|qemu-kvm*)
			cp_file "$pd/comm"
			cp_file "$pd/cmdline" ;;
		esac
	done
fi
echo "capture-fixture: wrote $dest" >&2
