#!/usr/bin/env python3
"""make-model-fixtures.py - writes the fixture trees of the newer built-in models under tests/data/root.

Trees: zen5-2s (and the others listed in TREES).  Each is a two-socket host
as `vmmprof model list --root`, `model check --root`, `info --root` and
tests/unit/test_model_encodings.c see one: /proc/cpuinfo with the CPU's
vendor, family and model, topology, NUMA nodes, and the perf PMUs the
kernel registers there, with the sysfs `format/` files its drivers write.

Where the values come from (nothing below is invented but the `type`
numbers, the trimmed core counts and the memory sizes):

  - which perf event table a CPU gets: the kernel's
    tools/perf/pmu-events/arch/{x86,arm64}/mapfile.csv.  With --pmu-events
    DIR (the arch/ directory of a copy, e.g. github.com/tud-zih-energy/pmu-events
    at kernel commit 76b2cf07a6d2a836108f9c2486d76599f7adf6e8, a work tree or
    a bare git directory) the script checks that mapfile.csv gives each
    tree's CPU the table its model was written from, and stops if not.
  - the format files: the kernel drivers' format attributes, transcribed
    below with the driver file and the attribute's C name (FORMATS).  With
    --kernel DIR (a directory holding those driver files at their kernel
    paths) the script reads every DEFINE_UNCORE_FORMAT_ATTR / PMU_FORMAT_ATTR
    line there and stops if a transcription differs from the source.
  - which PMUs exist and how many instances: the drivers' registration
    logic, named per tree below.

Run it from anywhere after changing a value, and commit the result.  It
rewrites only the trees it owns (TREES), never another.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# format attributes: (driver file, C attribute name) -> (sysfs name, format)
# ---------------------------------------------------------------------------
AMD_CORE = 'arch/x86/events/amd/core.c'
AMD_UNC = 'arch/x86/events/amd/uncore.c'

FORMATS = {
    # PMU_FORMAT_ATTR(name, "...") in amd/core.c: amd_format_attr[]
    (AMD_CORE, 'event'): ('event', 'config:0-7,32-35'),
    (AMD_CORE, 'umask'): ('umask', 'config:8-15'),
    (AMD_CORE, 'edge'): ('edge', 'config:18'),
    (AMD_CORE, 'inv'): ('inv', 'config:23'),
    (AMD_CORE, 'cmask'): ('cmask', 'config:24-31'),
    # DEFINE_UNCORE_FORMAT_ATTR(var, name, "...") in amd/uncore.c (Linux 6.8+)
    (AMD_UNC, 'event14v2'): ('event', 'config:0-7,32-37'),
    (AMD_UNC, 'umask12'): ('umask', 'config:8-15,24-27'),
    (AMD_UNC, 'event8'): ('event', 'config:0-7'),
    (AMD_UNC, 'umask8'): ('umask', 'config:8-15'),
    (AMD_UNC, 'coreid'): ('coreid', 'config:42-44'),
    (AMD_UNC, 'threadmask2'): ('threadmask', 'config:56-57'),
    (AMD_UNC, 'enallslices'): ('enallslices', 'config:46'),
    (AMD_UNC, 'enallcores'): ('enallcores', 'config:47'),
    (AMD_UNC, 'sliceid'): ('sliceid', 'config:48-50'),
    (AMD_UNC, 'rdwrmask'): ('rdwrmask', 'config:8-9'),
}

# the attribute sets each PMU gets, as the drivers assemble them
PMU_FORMATS = {
    # amd/core.c amd_format_attr[]
    'amd-core': [(AMD_CORE, a) for a in ('event', 'umask', 'edge', 'inv', 'cmask')],
    # amd/uncore.c amd_uncore_df_ctx_init, pmu_version >= 2: event14v2, umask12
    'amd-df-v2': [(AMD_UNC, 'event14v2'), (AMD_UNC, 'umask12')],
    # amd_uncore_l3_ctx_init, family >= 0x19: event8, umask8, threadmask2, and
    # amd_f19h_uncore_l3_format_attr[] (visible on family >= 0x19): coreid,
    # enallslices, enallcores, sliceid
    'amd-l3-f19h': [(AMD_UNC, a) for a in ('event8', 'umask8', 'threadmask2', 'coreid',
                                           'enallslices', 'enallcores', 'sliceid')],
    # amd_uncore_umc_format_attr[]: event8, rdwrmask
    'amd-umc': [(AMD_UNC, 'event8'), (AMD_UNC, 'rdwrmask')],
}


def check_kernel(kdir):
    """Every transcribed format against the driver source under kdir."""
    srcs = {}
    missing = set()
    bad = 0
    for (path, var), (name, fmt) in sorted(FORMATS.items()):
        if path not in srcs:
            p = os.path.join(kdir, path)
            srcs[path] = open(p).read() if os.path.exists(p) else None
        text = srcs[path]
        if text is None:
            if path in missing:
                continue
            missing.add(path)
            print('make-model-fixtures: %s: not in %s, not checked' % (path, kdir), file=sys.stderr)
            continue
        m = re.search(r'DEFINE_UNCORE_FORMAT_ATTR\(\s*%s\s*,\s*(\w+)\s*,\s*"([^"]*)"' % re.escape(var), text)
        if m:
            got = (m.group(1), m.group(2))
        else:
            m = re.search(r'PMU_FORMAT_ATTR\(\s*%s\s*,\s*"([^"]*)"' % re.escape(var), text)
            got = (var, m.group(1)) if m else None
        if got != (name, fmt):
            print('make-model-fixtures: %s: %s is %s in the source, %s here' % (path, var, got, (name, fmt)),
                  file=sys.stderr)
            bad += 1
    return bad


def git_or_file(d, rel):
    p = os.path.join(d, rel)
    if os.path.exists(p):
        return open(p).read()
    return subprocess.run(['git', '--git-dir', d, 'show', 'HEAD:' + rel], check=True,
                          capture_output=True, text=True).stdout


def check_mapfile(pe, tree):
    """mapfile.csv must give the tree's CPU the table its model was written from."""
    t = TREES[tree]
    arch, cpuid, table = t['mapfile']
    text = git_or_file(pe, 'arch/%s/mapfile.csv' % arch)
    for line in text.splitlines():
        if not line or line.startswith('#') or line.startswith('Family'):
            continue
        f = line.split(',')
        if (arch == 'arm64' and f[0].lower() == cpuid.lower()) or \
                (arch != 'arm64' and re.fullmatch(f[0].replace('[:xdigit:]', '0-9A-Fa-f'), cpuid)):
            if f[2] != table:
                print('make-model-fixtures: %s: mapfile.csv gives %s table %s, not %s' %
                      (tree, cpuid, f[2], table), file=sys.stderr)
                return 1
            return 0
    print('make-model-fixtures: %s: mapfile.csv has no row for %s' % (tree, cpuid), file=sys.stderr)
    return 1


# ---------------------------------------------------------------------------
# writing a tree
# ---------------------------------------------------------------------------
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


def cpuinfo_x86(n, vendor, family, model, stepping, name, flags):
    return ''.join('processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n'
                   'model name\t: %s\nstepping\t: %d\nmicrocode\t: 0x1\ncpu MHz\t\t: 2400.000\n'
                   'flags\t\t: %s %s\n\n' % (c, vendor, family, model, name, stepping, X86_FLAGS, flags)
                   for c in range(n))


def two_socket(root, cores, smt, llc_cores, l2, l3):
    """Linux numbering: socket s core k -> cpu s*C+k, its SMT sibling +2C."""
    C = cores
    cpus = {}
    for s in range(2):
        for k in range(C):
            cpus[s * C + k] = (s, k)
            if smt:
                cpus[2 * C + s * C + k] = (s, k)
    w(root, '/sys/devices/system/cpu/online', cpulist(cpus) + '\n')
    w(root, '/sys/devices/system/cpu/possible', cpulist(cpus) + '\n')
    for c, (s, k) in cpus.items():
        d = '/sys/devices/system/cpu/cpu%d/' % c
        w(root, d + 'topology/physical_package_id', '%d\n' % s)
        w(root, d + 'topology/core_id', '%d\n' % k)
        sib = [s * C + k] + ([2 * C + s * C + k] if smt else [])
        g0 = k - k % llc_cores
        llc = [s * C + j for j in range(g0, g0 + llc_cores)]
        llc += [2 * C + x for x in llc] if smt else []
        for i, (lvl, typ, size, shared) in enumerate(((1, 'Data', '48K', sib), (1, 'Instruction', '32K', sib),
                                                       (2, 'Unified', l2, sib), (3, 'Unified', l3, llc))):
            e = d + 'cache/index%d/' % i
            w(root, e + 'level', '%d\n' % lvl)
            w(root, e + 'type', typ + '\n')
            w(root, e + 'size', size + '\n')
            w(root, e + 'shared_cpu_list', cpulist(shared) + '\n')
    per = [[c for c, (s, _) in cpus.items() if s == n] for n in range(2)]
    for n in range(2):
        d = '/sys/devices/system/node/node%d/' % n
        w(root, d + 'cpulist', cpulist(per[n]) + '\n')
        w(root, d + 'distance', '10 32\n' if n == 0 else '32 10\n')
        w(root, d + 'meminfo', 'Node %d MemTotal:       %8d kB\nNode %d MemFree:        %8d kB\n'
          'Node %d MemUsed:        %8d kB\n' % (n, 67108864, n, 60000000, n, 67108864 - 60000000))
    w(root, '/sys/devices/system/node/online', '0-1\n')
    w(root, '/sys/devices/system/node/possible', '0-1\n')
    return per


def pmu(root, name, typ, formats=None, cpumask=None):
    d = '/sys/bus/event_source/devices/%s/' % name
    w(root, d + 'type', '%d\n' % typ)
    if cpumask is not None:
        w(root, d + 'cpumask', cpulist(cpumask) + '\n')
    for key in PMU_FORMATS.get(formats, []):
        fname, fmt = FORMATS[key]
        w(root, d + 'format/' + fname, fmt + '\n')


def common(root, kern_log, dmi):
    w(root, '/proc/sys/kernel/perf_event_paranoid', '-1\n')
    w(root, '/proc/self/status', 'Name:\tvmmprof\nUmask:\t0022\nState:\tR (running)\nTgid:\t4000\n'
      'Pid:\t4000\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nCapInh:\t0000000000000000\n'
      'CapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n')
    w(root, '/proc/self/mountinfo', '22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'
      '30 22 0:26 / /sys rw,nosuid,nodev,noexec,relatime - sysfs sysfs rw\n'
      '31 30 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n')
    w(root, '/proc/filesystems', 'nodev\tsysfs\nnodev\ttmpfs\nnodev\tproc\nnodev\tcgroup2\n'
      'nodev\tdebugfs\nnodev\ttracefs\n\text4\n')
    w(root, '/proc/meminfo', 'MemTotal:       134217728 kB\nMemFree:        120000000 kB\n')
    w(root, '/.vmmprof-fixture/cpuid-hypervisor', '')
    w(root, '/var/log/kern.log', kern_log)
    w(root, '/sys/class/dmi/id/sys_vendor', dmi[0] + '\n')
    w(root, '/sys/class/dmi/id/product_name', dmi[1] + '\n')
    w(root, '/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids perf_event\n')


def readme(root, title, lines):
    w(root, '/README.md', '# %s\n\nWritten by `../make-model-fixtures.py` (read its header for the sources); '
      'do not edit by hand.\n\n' % title + '\n'.join(lines) + '\n')


# ---------------------------------------------------------------------------
# the trees
# ---------------------------------------------------------------------------
def zen5_2s(R):
    # EPYC 9005 "Turin": family 0x1a model 0x02 (the CPU this project's CI
    # machine reports, without its PMU); trimmed to 4 cores per socket, CCX of
    # 2 here (8 on the part), 12 UMC channels per socket as on the part.
    per = two_socket(R, 4, True, 2, '1024K', '32768K')
    w(R, '/proc/cpuinfo', cpuinfo_x86(16, 'AuthenticAMD', 26, 2, 1, 'AMD EPYC 9575F 64-Core Processor',
                                      'perfctr_core perfctr_nb perfctr_llc perfmon_v2'))
    for name, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5), ('msr', 8)):
        pmu(R, name, t)
    pmu(R, 'cpu', 4, 'amd-core')                       # PERF_TYPE_RAW
    pmu(R, 'amd_df', 12, 'amd-df-v2', [per[0][0], per[1][0]])
    pmu(R, 'amd_l3', 13, 'amd-l3-f19h', [0, 2, 4, 6])  # one CPU per CCX
    # amd_uncore_umc_ctx_init: one PMU per active UMC, numbered across sockets
    for i in range(24):
        pmu(R, 'amd_umc_%d' % i, 20 + i, 'amd-umc', [per[i // 12][0]])
    common(R, 'Nov 30 00:00:01 turin kernel: [    0.300000] Performance Events: PMU version 2, '
              'Fam17h+ 16-deep LBR, core perfctr, AMD PMU driver.\n',
           ('Dell Inc.', 'PowerEdge R7725'))
    readme(R, 'zen5-2s: a two-socket EPYC 9005 (Zen 5, family 0x1a model 0x02) host', [
        '2 x 4 cores with SMT (trimmed), CCX of 2 cores, 2 NUMA nodes, 12 UMC channels per socket.',
        '`type` numbers are made up but `cpu` (PERF_TYPE_RAW, 4).',
        '',
        '| PMU | formats from |',
        '|-----|--------------|',
        '| `cpu` | arch/x86/events/amd/core.c `amd_format_attr[]` |',
        '| `amd_df` | arch/x86/events/amd/uncore.c, PerfMonV2: `event14v2`, `umask12` |',
        '| `amd_l3` | uncore.c, family >= 0x19: `event8`, `umask8`, `threadmask2`, '
        '`amd_f19h_uncore_l3_format_attr[]` |',
        '| `amd_umc_0..23` | uncore.c `amd_uncore_umc_format_attr[]` (Linux 6.8+) |',
        '',
        'perf\'s mapfile.csv gives family 26 model 0x02 the `amdzen5` table '
        '(`AuthenticAMD-26-([12467][[:xdigit:]]|[[:xdigit:]])`); libpfm4 4.13 has no table '
        'for it, so the zen5 model writes its core events raw.',
    ])


TREES = {
    'zen5-2s': {'make': zen5_2s, 'mapfile': ('x86', 'AuthenticAMD-26-2', 'amdzen5')},
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', help='directory with the kernel driver files at their paths')
    ap.add_argument('--pmu-events', help="the kernel's tools/perf/pmu-events (its arch/ inside), "
                    'a work tree or a bare git directory')
    ap.add_argument('trees', nargs='*', help='trees to write (default: all of TREES)')
    a = ap.parse_args()
    names = a.trees or sorted(TREES)
    bad = check_kernel(a.kernel) if a.kernel else 0
    if a.pmu_events:
        bad += sum(check_mapfile(a.pmu_events, n) for n in names)
    if bad:
        sys.exit(1)
    for n in names:
        shutil.rmtree(os.path.join(HERE, n), ignore_errors=True)
        TREES[n]['make'](n)


if __name__ == '__main__':
    main()
