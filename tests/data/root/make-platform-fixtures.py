#!/usr/bin/env python3
"""make-platform-fixtures.py - writes the platform-probe fixture trees under tests/data/root.

Trees: skx-2s, zen3-2s, nhm-ep, wsm-ep, kvm-guest-vpmu, kvm-guest-novpmu, arm-n1,
xen-pv-dom0, qemu-in-kvm, pmu-count, broken.  (`local` is captured with scripts/capture-fixture.sh.)
Every value is chosen by hand from the kernel's sysfs ABI documents and
REFERENCES.md; tests/unit/test_platform.c states the expected probe output
from these same numbers.  Each tree's README.md says where its layout
comes from.

This script only writes files; it never deletes, because the PMU engineer
adds format/ and events/ files under sys/bus/event_source/devices/<pmu>/ of
the same trees (this script writes only `type` and `cpumask` there).
Run it from anywhere after changing a value, and commit the result.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def w(root, path, text):
    p = os.path.join(HERE, root, path.lstrip('/'))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(text)


def cpulist(ids):
    ids = sorted(ids)
    out, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else '%d-%d' % (ids[i], ids[j]))
        i = j + 1
    return ','.join(out)


X86_FLAGS = ('fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush '
             'mmx fxsr sse sse2 ht syscall nx lm constant_tsc nopl xtopology cpuid pni '
             'ssse3 cx16 sse4_1 sse4_2 x2apic popcnt aes xsave avx')


def cpuinfo_x86(n, vendor, family, model, stepping, name, extra_flags=''):
    flags = X86_FLAGS + (' ' + extra_flags if extra_flags else '')
    s = ''
    for c in range(n):
        s += ('processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n'
              'model name\t: %s\nstepping\t: %d\nmicrocode\t: 0x1\ncpu MHz\t\t: 2400.000\n'
              'flags\t\t: %s\n\n' % (c, vendor, family, model, name, stepping, flags))
    return s


def topology(root, cpus):
    """cpus: {cpu: (package, core_id)}"""
    w(root, '/sys/devices/system/cpu/online', cpulist(cpus) + '\n')
    w(root, '/sys/devices/system/cpu/possible', cpulist(cpus) + '\n')
    for c, (pkg, core) in cpus.items():
        d = '/sys/devices/system/cpu/cpu%d/topology/' % c
        w(root, d + 'physical_package_id', '%d\n' % pkg)
        w(root, d + 'core_id', '%d\n' % core)


def caches(root, cpu, levels):
    """levels: list of (level, type, size, shared_cpus)"""
    for i, (lvl, typ, size, shared) in enumerate(levels):
        d = '/sys/devices/system/cpu/cpu%d/cache/index%d/' % (cpu, i)
        w(root, d + 'level', '%d\n' % lvl)
        w(root, d + 'type', typ + '\n')
        w(root, d + 'size', size + '\n')
        w(root, d + 'shared_cpu_list', cpulist(shared) + '\n')


def nodes(root, spec, dist):
    """spec: list of (node, cpus, memtotal_kB, memfree_kB); dist: matrix"""
    for i, (node, cpus, total, free) in enumerate(spec):
        d = '/sys/devices/system/node/node%d/' % node
        w(root, d + 'cpulist', cpulist(cpus) + '\n')
        w(root, d + 'distance', ' '.join(str(x) for x in dist[i]) + '\n')
        w(root, d + 'meminfo',
          'Node %d MemTotal:       %8d kB\nNode %d MemFree:        %8d kB\n'
          'Node %d MemUsed:        %8d kB\n' % (node, total, node, free, node, total - free))
    w(root, '/sys/devices/system/node/online', cpulist([s[0] for s in spec]) + '\n')


def pmu(root, name, typ, cpumask=None):
    d = '/sys/bus/event_source/devices/%s/' % name
    w(root, d + 'type', '%d\n' % typ)
    if cpumask is not None:
        w(root, d + 'cpumask', cpulist(cpumask) + '\n')


def common(root, paranoid, uid, capeff, mountinfo, filesystems_extra='', meminfo_kb=None,
           cpuid_sig=None, kern_log=None, dmi=None):
    w(root, '/proc/sys/kernel/perf_event_paranoid', '%d\n' % paranoid)
    w(root, '/proc/self/status',
      'Name:\tvmmprof\nUmask:\t0022\nState:\tR (running)\nTgid:\t4000\nPid:\t4000\n'
      'Uid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\n'
      'CapInh:\t0000000000000000\nCapPrm:\t%s\nCapEff:\t%s\nCapBnd:\t000001ffffffffff\n'
      % (uid, uid, uid, uid, uid, uid, uid, uid, capeff, capeff))
    w(root, '/proc/self/mountinfo', mountinfo)
    w(root, '/proc/filesystems',
      'nodev\tsysfs\nnodev\ttmpfs\nnodev\tproc\nnodev\tcgroup\nnodev\tcgroup2\n'
      'nodev\tdevtmpfs\nnodev\tdebugfs\nnodev\ttracefs\n' + filesystems_extra + '\text4\n')
    if meminfo_kb:
        w(root, '/proc/meminfo', 'MemTotal:       %d kB\nMemFree:        %d kB\n'
          % (meminfo_kb, meminfo_kb // 2))
    if cpuid_sig is not None:
        w(root, '/.vmmprof-fixture/cpuid-hypervisor', cpuid_sig + ('\n' if cpuid_sig else ''))
    if kern_log is not None:
        w(root, '/var/log/kern.log', kern_log)
    if dmi:
        w(root, '/sys/class/dmi/id/sys_vendor', dmi[0] + '\n')
        w(root, '/sys/class/dmi/id/product_name', dmi[1] + '\n')


MI_V2 = ('22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'
         '30 22 0:26 / /sys rw,nosuid,nodev,noexec,relatime - sysfs sysfs rw\n'
         '31 30 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n')
MI_HYBRID = ('22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'
             '31 22 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n'
             '32 31 0:29 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n'
             '33 31 0:30 / /sys/fs/cgroup/perf_event rw,relatime - cgroup cgroup rw,perf_event\n'
             '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n')
MI_V1 = ('22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'
         '31 22 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n'
         '32 31 0:29 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n'
         '33 31 0:30 / /sys/fs/cgroup/perf_event rw,relatime - cgroup cgroup rw,perf_event\n')

ALL_CAPS = '000001ffffffffff'
NO_CAPS = '0000000000000000'


def two_socket_smt(root, cores_per_socket, llc_groups, l1='32K', l2='1024K', l3='28160K'):
    """Linux numbering: socket s core k -> cpu s*C+k, its SMT sibling +2C.
    llc_groups: core indices per LLC within a socket, e.g. [[0,1,2,3]]."""
    C = cores_per_socket
    cpus = {}
    for s in range(2):
        for k in range(C):
            cpus[s * C + k] = (s, k)
            cpus[2 * C + s * C + k] = (s, k)
    topology(root, cpus)
    for c, (s, k) in cpus.items():
        sib = [s * C + k, 2 * C + s * C + k]
        grp = next(g for g in llc_groups if k in g)
        llc = [s * C + j for j in grp] + [2 * C + s * C + j for j in grp]
        caches(root, c, [(1, 'Data', l1, sib), (1, 'Instruction', l1, sib),
                         (2, 'Unified', l2, sib), (3, 'Unified', l3, llc)])
    return cpus


# --- skx-2s: two-socket Xeon Gold 6148 (Skylake-SP), a KVM host ------------
R = 'skx-2s'
two_socket_smt(R, 4, [[0, 1, 2, 3]], l2='1024K', l3='28160K')
w(R, '/proc/cpuinfo', cpuinfo_x86(16, 'GenuineIntel', 6, 85, 4,
                                  'Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz',
                                  'cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local rdt_a'))
nodes(R, [(0, [0, 1, 2, 3, 8, 9, 10, 11], 98304000, 90000000),
          (1, [4, 5, 6, 7, 12, 13, 14, 15], 98304000, 91000000)], [[10, 21], [21, 10]])
for name, t in (('software', 1), ('tracepoint', 2), ('cpu', 4), ('breakpoint', 5),
                ('kprobe', 6), ('uprobe', 7), ('msr', 8), ('power', 9)):
    pmu(R, name, t)
for i in range(20):
    pmu(R, 'uncore_cha_%d' % i, 10 + i, [0, 4])
for i in range(6):
    pmu(R, 'uncore_imc_%d' % i, 30 + i, [0, 4])
for i in range(3):
    pmu(R, 'uncore_upi_%d' % i, 36 + i, [0, 4])
common(R, 0, 0, ALL_CAPS, MI_V2, filesystems_extra='nodev\tresctrl\n', meminfo_kb=196608000,
       cpuid_sig='', dmi=('Supermicro', 'SYS-6029P-TRT'),
       kern_log='Nov 30 00:00:01 skx kernel: [    0.210000] Performance Events: PEBS fmt3+, '
                'Skylake events, 32-deep LBR, full-width counters, Intel PMU driver.\n')
w(R, '/sys/fs/resctrl/info/L3_MON/mon_features', 'llc_occupancy\nmbm_total_bytes\nmbm_local_bytes\n')
w(R, '/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids perf_event\n')
w(R, '/proc/4242/comm', 'qemu-system-x86\n')
w(R, '/proc/4242/cmdline', '\0'.join(['/usr/bin/qemu-system-x86_64', '-name',
                                      'guest=vm1,debug-threads=on', '-machine',
                                      'pc-q35-7.2,accel=kvm', '-smp', '4', '-m', '8192']) + '\0')
# vm1's threads and memory (the diagnosis's placement advice on a two-socket
# host): plain QEMU, 8 GiB guest RAM in one mapping, 6 GiB on node 0 and 2 GiB
# on node 1 (numa_maps pages of 4 KiB: 1572864 + 524288 = 2097152); vCPUs 0
# and 1 last ran on CPUs 1 and 2 (node 0), vCPUs 2 and 3 on CPUs 5 and 6
# (node 1), none pinned (Cpus_allowed_list 0-15)
def vm1_stat(tid, comm, cpu):
    return ('%d (%s) S 1 4242 4242 0 -1 4194560 0 0 0 0 900 100 0 0 20 0 6 0 5000 '
            '9642369024 2100000 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0 '
            '0 0 0 0 0 0 0 0\n' % (tid, comm, cpu))
def vm1_status(comm, tid):
    return ('Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\n'
            'Pid:\t%d\nPPid:\t1\nThreads:\t6\nCpus_allowed:\tffff\nCpus_allowed_list:\t0-15\n'
            'Mems_allowed:\t00000000,00000003\nMems_allowed_list:\t0-1\n'
            'voluntary_ctxt_switches:\t10\n' % (comm, tid))
VM1 = [(4242, 'qemu-system-x86', 0), (4243, 'call_rcu', 0), (4244, 'CPU 0/KVM', 1),
       (4245, 'CPU 1/KVM', 2), (4246, 'CPU 2/KVM', 5), (4247, 'CPU 3/KVM', 6)]
w(R, '/proc/4242/stat', vm1_stat(4242, 'qemu-system-x86', 0))
w(R, '/proc/4242/status', vm1_status('qemu-system-x86', 4242))
w(R, '/proc/4242/cgroup', '0::/user.slice\n')
for tid, comm, cpu in VM1:
    w(R, '/proc/4242/task/%d/stat' % tid, vm1_stat(tid, comm, cpu))
    w(R, '/proc/4242/task/%d/status' % tid, vm1_status(comm, tid))
    w(R, '/proc/4242/task/%d/schedstat' % tid, '9000000000 30000000 5000\n')
    w(R, '/proc/4242/task/%d/cgroup' % tid, '0::/user.slice\n')
w(R, '/proc/4242/numa_maps',
  '55f0e7651000 default file=/usr/bin/qemu-system-x86_64 mapped=1031 active=0 N0=1031 kernelpagesize_kB=4\n'
  '7f4000000000 default anon=2097152 dirty=2097152 N0=1572864 N1=524288 kernelpagesize_kB=4\n')
w(R, '/proc/4242/maps',
  '55f0e7651000-55f0e7a58000 r--p 00000000 08:01 123 /usr/bin/qemu-system-x86_64\n'
  '7f4000000000-7f4200000000 rw-p 00000000 00:00 0 \n')
w(R, '/proc/1/comm', 'systemd\n')
w(R, '/proc/1/cmdline', '/sbin/init\0')

# --- zen3-2s: two-socket EPYC 7313 (Zen 3 Milan), native ---------------------
R = 'zen3-2s'
two_socket_smt(R, 4, [[0, 1], [2, 3]], l2='512K', l3='32768K')
w(R, '/proc/cpuinfo', cpuinfo_x86(16, 'AuthenticAMD', 25, 1, 1, 'AMD EPYC 7313 16-Core Processor',
                                  'cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local'))
nodes(R, [(0, [0, 1, 2, 3, 8, 9, 10, 11], 65536000, 60000000),
          (1, [4, 5, 6, 7, 12, 13, 14, 15], 65536000, 61000000)], [[10, 32], [32, 10]])
for name, t in (('software', 1), ('tracepoint', 2), ('cpu', 4), ('breakpoint', 5),
                ('kprobe', 6), ('uprobe', 7), ('msr', 8), ('power', 9), ('ibs_fetch', 10),
                ('ibs_op', 11)):
    pmu(R, name, t)
pmu(R, 'amd_df', 12, [0, 4])
pmu(R, 'amd_l3', 13, [0, 2, 4, 6])
pmu(R, 'amd_iommu_0', 14, [0])
common(R, 2, 1000, NO_CAPS, MI_HYBRID, filesystems_extra='nodev\tresctrl\n', meminfo_kb=131072000,
       cpuid_sig='', dmi=('Dell Inc.', 'PowerEdge R7525'),
       kern_log='Nov 30 00:00:01 milan kernel: [    0.300000] Performance Events: Fam17h+ core '
                'perfctr, AMD PMU driver.\n')
w(R, '/sys/fs/cgroup/unified/cgroup.controllers', '\n')

# --- nhm-ep: two-socket Xeon X5570 (Nehalem-EP), native, cgroup v1 only ------
R = 'nhm-ep'
two_socket_smt(R, 4, [[0, 1, 2, 3]], l2='256K', l3='8192K')
w(R, '/proc/cpuinfo', cpuinfo_x86(16, 'GenuineIntel', 6, 26, 5,
                                  'Intel(R) Xeon(R) CPU           X5570  @ 2.93GHz'))
nodes(R, [(0, [0, 1, 2, 3, 8, 9, 10, 11], 12582912, 11000000),
          (1, [4, 5, 6, 7, 12, 13, 14, 15], 12582912, 11500000)], [[10, 21], [21, 10]])
for name, t in (('software', 1), ('tracepoint', 2), ('cpu', 4), ('breakpoint', 5),
                ('kprobe', 7), ('uprobe', 8), ('msr', 9)):
    pmu(R, name, t)
pmu(R, 'uncore', 6, [0, 4])
common(R, 1, 0, ALL_CAPS, MI_V1, meminfo_kb=25165824, cpuid_sig='',
       dmi=('HP', 'ProLiant DL380 G6'),
       kern_log='Nov 30 00:00:01 nhm kernel: [    0.100000] Performance Events: PEBS fmt1+, '
                'Nehalem events, 16-deep LBR, Intel PMU driver.\n')

# --- kvm-guest-vpmu: 4-vCPU KVM guest on Cascade Lake, vPMU on, 2 vNUMA nodes
R = 'kvm-guest-vpmu'
topology(R, {c: (0, c) for c in range(4)})
for c in range(4):
    caches(R, c, [(1, 'Data', '32K', [c]), (1, 'Instruction', '32K', [c]),
                  (2, 'Unified', '4096K', [c]), (3, 'Unified', '16384K', [0, 1, 2, 3])])
w(R, '/proc/cpuinfo', cpuinfo_x86(4, 'GenuineIntel', 6, 85, 7,
                                  'Intel Xeon Processor (Cascadelake)', 'hypervisor arch_perfmon'))
nodes(R, [(0, [0, 1], 4194304, 3000000), (1, [2, 3], 4194304, 3500000)], [[10, 20], [20, 10]])
for name, t in (('software', 1), ('tracepoint', 2), ('cpu', 4), ('breakpoint', 5),
                ('kprobe', 6), ('uprobe', 7), ('msr', 8)):
    pmu(R, name, t)
common(R, 2, 0, ALL_CAPS, MI_V2, meminfo_kb=8388608, cpuid_sig='KVMKVMKVM',
       dmi=('QEMU', 'Standard PC (Q35 + ICH9, 2009)'),
       kern_log='Nov 30 00:00:01 guest kernel: [    0.150000] Performance Events: Cascadelake '
                'events, full-width counters, Intel PMU driver.\n')
w(R, '/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids perf_event\n')

# --- kvm-guest-novpmu: 2-vCPU KVM guest on Ice Lake-SP, no vPMU, non-NUMA kernel
R = 'kvm-guest-novpmu'
topology(R, {0: (0, 0), 1: (0, 1)})
for c in range(2):
    caches(R, c, [(1, 'Data', '48K', [c]), (1, 'Instruction', '32K', [c]),
                  (2, 'Unified', '1280K', [c]), (3, 'Unified', '16384K', [0, 1])])
w(R, '/proc/cpuinfo', cpuinfo_x86(2, 'GenuineIntel', 6, 106, 6,
                                  'Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz', 'hypervisor'))
for name, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5), ('kprobe', 6),
                ('uprobe', 7), ('msr', 8)):
    pmu(R, name, t)
common(R, 2, 0, ALL_CAPS, MI_V2, meminfo_kb=4194304, cpuid_sig='KVMKVMKVM',
       dmi=('QEMU', 'Standard PC (i440FX + PIIX, 1996)'),
       kern_log='Nov 30 00:00:01 guest kernel: [    0.000000] Hypervisor detected: KVM\n'
                'Nov 30 00:00:01 guest kernel: [    0.310000] Performance Events: PMU not '
                'available due to virtualization, using software events only.\n')
w(R, '/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids\n')

# --- arm-n1: 4-core Neoverse N1 (aarch64 cpuinfo format), one node, CMN mesh
R = 'arm-n1'
topology(R, {c: (0, c) for c in range(4)})
for c in range(4):
    caches(R, c, [(1, 'Data', '64K', [c]), (1, 'Instruction', '64K', [c]),
                  (2, 'Unified', '1024K', [c]), (3, 'Unified', '32768K', [0, 1, 2, 3])])
w(R, '/proc/cpuinfo', ''.join(
    'processor\t: %d\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 '
    'atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\nCPU implementer\t: 0x41\n'
    'CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n' % c
    for c in range(4)))
nodes(R, [(0, [0, 1, 2, 3], 16777216, 15000000)], [[10]])
for name, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5), ('kprobe', 6),
                ('uprobe', 7), ('armv8_pmuv3_0', 8)):
    pmu(R, name, t)
pmu(R, 'arm_cmn_0', 9, [0])
common(R, 2, 0, ALL_CAPS, MI_V2, meminfo_kb=16777216, dmi=('WIWYNN', 'Mt.Jade'))
w(R, '/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids\n')

# --- xen-pv-dom0: a Xen PV dom0 (as the testbed boots one), no vPMU ---------
R = 'xen-pv-dom0'
topology(R, {0: (0, 0), 1: (0, 1)})
w(R, '/proc/cpuinfo', cpuinfo_x86(2, 'AuthenticAMD', 25, 1, 1, 'AMD EPYC', 'hypervisor'))
nodes(R, [(0, [0, 1], 2097152, 1500000)], [[10]])
for name, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5)):
    pmu(R, name, t)
common(R, 2, 0, ALL_CAPS, MI_V2, meminfo_kb=2097152, cpuid_sig='XenVMMXenVMM',
       kern_log='Nov 30 00:00:01 dom0 kernel: [    0.200000] Performance Events: unsupported '
                'p6 CPU model 1 no PMU driver, software events only.\n')
w(R, '/sys/hypervisor/type', 'xen\n')
w(R, '/sys/hypervisor/properties/capabilities', 'xen-3.0-x86_64 hvm-3.0-x86_32 hvm-3.0-x86_64\n')
w(R, '/proc/xen/capabilities', 'control_d\n')
os.makedirs(os.path.join(HERE, R, 'sys/hypervisor/pmu'), exist_ok=True)  # pmu_mode unreadable

# --- qemu-in-kvm: a KVM guest that itself runs QEMU guests (like the testbed)
R = 'qemu-in-kvm'
topology(R, {0: (0, 0), 1: (0, 1)})
w(R, '/proc/cpuinfo', cpuinfo_x86(2, 'AuthenticAMD', 25, 1, 1, 'AMD EPYC', 'hypervisor'))
nodes(R, [(0, [0, 1], 8388608, 6000000)], [[10]])
for name, t in (('software', 1), ('tracepoint', 2)):
    pmu(R, name, t)
common(R, 2, 0, ALL_CAPS, MI_V2, meminfo_kb=8388608, cpuid_sig='KVMKVMKVM')
w(R, '/proc/777/comm', 'qemu-system-aar\n')   # comm is cut to 15 characters
w(R, '/proc/777/cmdline', '\0'.join(['qemu-system-aarch64', '-M', 'virt', '-cpu', 'max,pmu=on',
                                     '-accel', 'tcg', '-icount', 'shift=0']) + '\0')
w(R, '/proc/778/comm', 'vm-web\n')             # -name process=vm-web renames the comm
w(R, '/proc/778/cmdline', '\0'.join(['/usr/bin/qemu-system-x86_64', '-name',
                                     'guest=web,process=vm-web', '-enable-kvm', '-m', '512']) + '\0')
w(R, '/proc/779/comm', 'bash\n')
w(R, '/proc/779/cmdline', 'bash\0-c\0echo qemu-system-x86_64\0')
w(R, '/proc/self/comm', 'vmmprof\n')

# --- pmu-count: this probe's own tree for counting events/ and format/ entries
R = 'pmu-count'
topology(R, {0: (0, 0)})
w(R, '/proc/cpuinfo', cpuinfo_x86(1, 'GenuineIntel', 6, 85, 4, 'Intel(R) Xeon(R) Gold 6148 CPU'))
pmu(R, 'cpu', 4)
for f in ('event', 'umask', 'edge', 'inv', 'cmask'):
    w(R, '/sys/bus/event_source/devices/cpu/format/' + f, 'config:0-7\n')
for e in ('cpu-cycles', 'instructions', 'cache-misses'):
    w(R, '/sys/bus/event_source/devices/cpu/events/' + e, 'event=0x3c\n')
pmu(R, 'uncore_imc_0', 10, [0])
for f in ('event', 'umask'):
    w(R, '/sys/bus/event_source/devices/uncore_imc_0/format/' + f, 'config:0-7\n')
for e in ('cas_count_read', 'cas_count_write'):
    w(R, '/sys/bus/event_source/devices/uncore_imc_0/events/' + e, 'event=0x04,umask=0x03\n')
    w(R, '/sys/bus/event_source/devices/uncore_imc_0/events/' + e + '.scale', '6.103515625e-5\n')
    w(R, '/sys/bus/event_source/devices/uncore_imc_0/events/' + e + '.unit', 'MiB\n')
w(R, '/sys/bus/event_source/devices/uncore_imc_0/events/clockticks', 'event=0x00,umask=0x00\n')
w(R, '/sys/bus/event_source/devices/uncore_imc_10/type', 'eleven\n')       # garbage type
w(R, '/sys/bus/event_source/devices/uncore_imc_10/cpumask', '0-\n')        # garbage cpumask
w(R, '/sys/bus/event_source/devices/uncore_imc_2/type', '12\n')            # no cpumask at all
os.makedirs(os.path.join(HERE, R, 'sys/bus/event_source/devices/uncore_imc_2/events'), exist_ok=True)

# --- broken: garbage numbers and missing files -------------------------------
R = 'broken'
w(R, '/proc/cpuinfo', 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: six\n'
  'model\t\t: 85\nmodel name\t: Broken CPU\nstepping\t: 4\n\n')
w(R, '/sys/devices/system/cpu/online', '0-3\n')
for c in range(4):
    if c != 3:  # cpu3 has no topology files
        w(R, '/sys/devices/system/cpu/cpu%d/topology/physical_package_id' % c, '0\n')
        w(R, '/sys/devices/system/cpu/cpu%d/topology/core_id' % c,
          'x\n' if c == 2 else '%d\n' % c)
nodes(R, [(0, [0, 1], 1048576, 500000), (1, [2, 3], 1048576, 600000)], [[10, 21], [21, 10]])
w(R, '/sys/devices/system/node/node1/distance', '21 ten\n')
os.remove(os.path.join(HERE, R, 'sys/devices/system/node/node1/meminfo'))
w(R, '/proc/sys/kernel/perf_event_paranoid', 'high\n')
w(R, '/proc/self/status', 'Name:\tvmmprof\nState:\tR (running)\n')
w(R, '/proc/filesystems', 'nodev\tsysfs\nnodev\tresctrl\n')
w(R, '/sys/fs/resctrl/info/L3_MON/.keep', '')
w(R, '/.vmmprof-fixture/cpuid-hypervisor', 'ACMEVISOR123\n')

# --- wsm-ep: two-socket Xeon X5670 (Westmere-EP), native, cgroup v1 only ----
# Like nhm-ep (same kernel drivers: arch/x86/events/intel/uncore.c binds
# WESTMERE_EP to nehalem_uncore_init, core.c gives Westmere the Nehalem
# formats), but six cores per socket and family 6 model 44 (0x2c), which
# libpfm4 calls wsm_dp.  This tree also writes its own format/ and events/
# (the kernel's sysfs ABI: Documentation/ABI/testing/sysfs-bus-event_source-devices-format
# and -events), the values nhm_uncore_formats_attr / nhm_uncore_events and
# intel_arch3_formats_attr register.
R = 'wsm-ep'
two_socket_smt(R, 6, [[0, 1, 2, 3, 4, 5]], l2='256K', l3='12288K')
w(R, '/proc/cpuinfo', cpuinfo_x86(24, 'GenuineIntel', 6, 44, 2,
                                  'Intel(R) Xeon(R) CPU           X5670  @ 2.93GHz'))
nodes(R, [(0, [0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17], 25165824, 20000000),
          (1, [6, 7, 8, 9, 10, 11, 18, 19, 20, 21, 22, 23], 25165824, 21000000)], [[10, 20], [20, 10]])
for name, t in (('software', 1), ('tracepoint', 2), ('cpu', 4), ('breakpoint', 5),
                ('kprobe', 7), ('uprobe', 8), ('msr', 9)):
    pmu(R, name, t)
pmu(R, 'uncore', 6, [0, 6])
D = '/sys/bus/event_source/devices/'
for f, v in (('event', 'config:0-7'), ('umask', 'config:8-15'), ('edge', 'config:18'),
             ('pc', 'config:19'), ('any', 'config:21'), ('inv', 'config:23'), ('cmask', 'config:24-31'),
             ('offcore_rsp', 'config1:0-63'), ('ldlat', 'config1:0-15')):
    w(R, D + 'cpu/format/' + f, v + '\n')
for e, v in (('cpu-cycles', 'event=0x3c'), ('instructions', 'event=0xc0'),
             ('cache-references', 'event=0x2e,umask=0x4f'), ('cache-misses', 'event=0x2e,umask=0x41'),
             ('branch-instructions', 'event=0xc4'), ('branch-misses', 'event=0xc5'),
             ('bus-cycles', 'event=0x3c,umask=0x01'), ('ref-cycles', 'event=0x00,umask=0x03')):
    w(R, D + 'cpu/events/' + e, v + '\n')
for f, v in (('event', 'config:0-7'), ('umask', 'config:8-15'), ('edge', 'config:18'),
             ('inv', 'config:23'), ('cmask', 'config:24-31')):
    w(R, D + 'uncore/format/' + f, v + '\n')
for e, v in (('clockticks', 'event=0xff,umask=0x00'),
             ('qmc_writes_full_any', 'event=0x2f,umask=0x0f'),
             ('qmc_normal_reads_any', 'event=0x2c,umask=0x0f'),
             ('qhl_request_ioh_reads', 'event=0x20,umask=0x01'),
             ('qhl_request_ioh_writes', 'event=0x20,umask=0x02'),
             ('qhl_request_remote_reads', 'event=0x20,umask=0x04'),
             ('qhl_request_remote_writes', 'event=0x20,umask=0x08'),
             ('qhl_request_local_reads', 'event=0x20,umask=0x10'),
             ('qhl_request_local_writes', 'event=0x20,umask=0x20')):
    w(R, D + 'uncore/events/' + e, v + '\n')
w(R, D + 'msr/format/event', 'config:0-63\n')
for e, v in (('tsc', 'event=0x00'), ('aperf', 'event=0x01'), ('mperf', 'event=0x02'), ('smi', 'event=0x04')):
    w(R, D + 'msr/events/' + e, v + '\n')
common(R, 1, 0, ALL_CAPS, MI_V1, meminfo_kb=50331648, cpuid_sig='',
       dmi=('Dell Inc.', 'PowerEdge R610'),
       kern_log='Nov 30 00:00:01 wsm kernel: [    0.100000] Performance Events: PEBS fmt1+, '
                'Westmere events, 16-deep LBR, Intel PMU driver.\n')
