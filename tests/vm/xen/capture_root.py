#!/usr/bin/env python3
"""capture_root.py DIR - copies the files of this dom0's /proc and /sys that
vmmprof reads (hypervisor, Xen, CPU and NUMA topology, PMU inventory) into
DIR, reading each file in this one process (a fork per file is slow in a PV
dom0 under TCG; tar cannot read sysfs, whose sizes lie).  Files that cannot
be read are listed in DIR/.unreadable with their error."""
import glob
import os
import sys

PATTERNS = [
    "/proc/cpuinfo", "/proc/meminfo", "/proc/vmstat", "/proc/xen/capabilities",
    "/proc/sys/kernel/perf_event_paranoid", "/proc/sys/kernel/hostname",
    "/proc/filesystems",
    "/sys/hypervisor/**",
    "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
    "/sys/devices/system/cpu/present",
    "/sys/devices/system/cpu/cpu[0-9]*/topology/*",
    "/sys/devices/system/cpu/cpu[0-9]*/cache/index*/*",
    "/sys/devices/system/node/online", "/sys/devices/system/node/possible",
    "/sys/devices/system/node/has_cpu", "/sys/devices/system/node/has_memory",
    "/sys/devices/system/node/node*/cpulist", "/sys/devices/system/node/node*/distance",
    "/sys/devices/system/node/node*/meminfo", "/sys/devices/system/node/node*/numastat",
    "/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name",
    "/sys/class/dmi/id/product_version", "/sys/class/dmi/id/bios_vendor",
    "/sys/bus/event_source/devices/*/type", "/sys/bus/event_source/devices/*/cpumask",
    "/sys/bus/event_source/devices/*/nr_addr_filters",
    "/sys/bus/event_source/devices/*/format/*", "/sys/bus/event_source/devices/*/events/*",
]


def main(dst):
    bad = []
    for pat in PATTERNS:
        for path in sorted(glob.glob(pat, recursive=True)):
            if not os.path.isfile(path):
                continue
            out = dst + path
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                bad.append("%s: %s\n" % (path, e.strerror))
                continue
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(data)
    with open(os.path.join(dst, ".unreadable"), "w") as f:
        f.writelines(bad)


if __name__ == "__main__":
    main(sys.argv[1])
