#!/bin/sh
# capture-root.sh DIR - copies the files of this dom0's /proc and /sys that
# vmmprof reads (hypervisor, Xen, CPU and NUMA topology, PMU inventory) into
# DIR, file by file with cat (sysfs sizes lie, so tar cannot read them).
# Unreadable files are listed in DIR/.unreadable with their error.
d=$1
mkdir -p "$d"
: >"$d/.unreadable"
cp_one() {
	[ -f "$1" ] || return 0
	mkdir -p "$d$(dirname "$1")"
	if ! cat "$1" >"$d$1" 2>"$d/.err"; then
		rm -f "$d$1"
		echo "$1: $(sed 's/^cat: [^:]*: //' "$d/.err")" >>"$d/.unreadable"
	fi
}
for f in /proc/cpuinfo /proc/meminfo /proc/vmstat /proc/xen/capabilities \
	/proc/sys/kernel/perf_event_paranoid /proc/sys/kernel/hostname /proc/filesystems; do
	cp_one "$f"
done
find /sys/hypervisor -type f 2>/dev/null | while read -r f; do cp_one "$f"; done
for f in /sys/devices/system/cpu/online /sys/devices/system/cpu/possible \
	/sys/devices/system/cpu/present /sys/devices/system/cpu/cpu[0-9]*/topology/* \
	/sys/devices/system/cpu/cpu[0-9]*/cache/index*/* \
	/sys/devices/system/node/online /sys/devices/system/node/possible \
	/sys/devices/system/node/has_cpu /sys/devices/system/node/has_memory \
	/sys/devices/system/node/node*/cpulist /sys/devices/system/node/node*/distance \
	/sys/devices/system/node/node*/meminfo /sys/devices/system/node/node*/numastat \
	/sys/devices/virtual/dmi/id/sys_vendor /sys/devices/virtual/dmi/id/product_name; do
	cp_one "$f"
done
for p in /sys/bus/event_source/devices/*; do
	n=$(basename "$p")
	for f in "$p"/type "$p"/cpumask "$p"/nr_addr_filters "$p"/format/* "$p"/events/*; do
		[ -f "$f" ] || continue
		mkdir -p "$d/sys/bus/event_source/devices/$n/$(basename "$(dirname "$f")")"
		case $f in
		*/format/* | */events/*) o=$d/sys/bus/event_source/devices/$n/$(basename "$(dirname "$f")")/$(basename "$f") ;;
		*) o=$d/sys/bus/event_source/devices/$n/$(basename "$f") ;;
		esac
		cat "$f" >"$o" 2>/dev/null || rm -f "$o"
	done
done
rm -f "$d/.err"
find "$d" -type d -empty -delete
