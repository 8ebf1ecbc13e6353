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
    line there and stops if a transcription differs from the source.  The
    Arm CMN driver (drivers/perf/arm-cmn.c) writes its formats from bit masks
    instead, `CMN_FORMAT_ATTR(type, CMN_CONFIG_TYPE)` with `#define
    CMN_CONFIG_TYPE GENMASK_ULL(15, 0)`: --kernel reads those too, and the
    `events/` aliases the trees carry (CMN_EVENTS) from its event table.
    Last checked against Linux 6.12 (Debian's linux-source-6.12 6.12.117).
  - which PMUs exist and how many instances: the drivers' registration
    logic, named per tree below.

Run it from anywhere after changing a value, and commit the result.  It
rewrites only the trees it owns (TREES), never another, and in arm-n1
(make-platform-fixtures.py's tree) only the `format/` and `events/` of its
`arm_cmn_0`, which that script leaves to this one.
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
ARM_PMUV3 = 'drivers/perf/arm_pmuv3.c'
INTEL_CORE = 'arch/x86/events/intel/core.c'
SNBEP = 'arch/x86/events/intel/uncore_snbep.c'
AMD_UNC = 'arch/x86/events/amd/uncore.c'
ARM_CMN = 'drivers/perf/arm-cmn.c'

FORMATS = {
    # PMU_FORMAT_ATTR(name, "...") in amd/core.c: amd_format_attr[]
    (AMD_CORE, 'event'): ('event', 'config:0-7,32-35'),
    (AMD_CORE, 'umask'): ('umask', 'config:8-15'),
    (AMD_CORE, 'edge'): ('edge', 'config:18'),
    (AMD_CORE, 'inv'): ('inv', 'config:23'),
    (AMD_CORE, 'cmask'): ('cmask', 'config:24-31'),
    # PMU_FORMAT_ATTR(name, "...") in intel/core.c (intel_arch3_formats_attr, offcore_rsp)
    (INTEL_CORE, 'event'): ('event', 'config:0-7'),
    (INTEL_CORE, 'umask'): ('umask', 'config:8-15'),
    (INTEL_CORE, 'edge'): ('edge', 'config:18'),
    (INTEL_CORE, 'pc'): ('pc', 'config:19'),
    (INTEL_CORE, 'any'): ('any', 'config:21'),
    (INTEL_CORE, 'inv'): ('inv', 'config:23'),
    (INTEL_CORE, 'cmask'): ('cmask', 'config:24-31'),
    (INTEL_CORE, 'offcore_rsp'): ('offcore_rsp', 'config1:0-63'),
    # DEFINE_UNCORE_FORMAT_ATTR(var, name, "...") in intel/uncore_snbep.c
    (SNBEP, 'event'): ('event', 'config:0-7'),
    (SNBEP, 'umask'): ('umask', 'config:8-15'),
    (SNBEP, 'edge'): ('edge', 'config:18'),
    (SNBEP, 'tid_en'): ('tid_en', 'config:19'),
    (SNBEP, 'inv'): ('inv', 'config:23'),
    (SNBEP, 'thresh8'): ('thresh', 'config:24-31'),
    (SNBEP, 'filter_tid'): ('filter_tid', 'config1:0-4'),
    (SNBEP, 'filter_tid3'): ('filter_tid', 'config1:0-5'),
    (SNBEP, 'filter_link'): ('filter_link', 'config1:5-8'),
    (SNBEP, 'filter_link2'): ('filter_link', 'config1:6-8'),
    (SNBEP, 'filter_nid'): ('filter_nid', 'config1:10-17'),
    (SNBEP, 'filter_nid2'): ('filter_nid', 'config1:32-47'),
    (SNBEP, 'filter_state'): ('filter_state', 'config1:18-22'),
    (SNBEP, 'filter_state2'): ('filter_state', 'config1:17-22'),
    (SNBEP, 'filter_state3'): ('filter_state', 'config1:17-23'),
    (SNBEP, 'filter_opc'): ('filter_opc', 'config1:23-31'),
    (SNBEP, 'filter_opc2'): ('filter_opc', 'config1:52-60'),
    (SNBEP, 'filter_nc'): ('filter_nc', 'config1:62'),
    (SNBEP, 'filter_c6'): ('filter_c6', 'config1:61'),
    (SNBEP, 'filter_isoc'): ('filter_isoc', 'config1:63'),
    (SNBEP, 'umask_ext4'): ('umask', 'config:8-15,32-55'),
    (SNBEP, 'umask_ext5'): ('umask', 'config:8-15,32-63'),
    (SNBEP, 'tid_en2'): ('tid_en', 'config:16'),
    (SNBEP, 'filter_tid5'): ('filter_tid', 'config1:0-9'),
    # PMU_FORMAT_ATTR(event, "config:0-15") in drivers/perf/arm_pmuv3.c
    (ARM_PMUV3, 'event'): ('event', 'config:0-15'),
    # DEFINE_UNCORE_FORMAT_ATTR(var, name, "...") in amd/uncore.c (Linux 6.8+)
    (AMD_UNC, 'event14v2'): ('event', 'config:0-7,32-37'),
    (AMD_UNC, 'umask12'): ('umask', 'config:8-15,24-27'),
    (AMD_UNC, 'event8'): ('event', 'config:0-7'),
    (AMD_UNC, 'event14'): ('event', 'config:0-7,32-35,59-60'),
    (AMD_UNC, 'slicemask'): ('slicemask', 'config:48-51'),
    (AMD_UNC, 'threadmask8'): ('threadmask', 'config:56-63'),
    (AMD_UNC, 'umask8'): ('umask', 'config:8-15'),
    (AMD_UNC, 'coreid'): ('coreid', 'config:42-44'),
    (AMD_UNC, 'threadmask2'): ('threadmask', 'config:56-57'),
    (AMD_UNC, 'enallslices'): ('enallslices', 'config:46'),
    (AMD_UNC, 'enallcores'): ('enallcores', 'config:47'),
    (AMD_UNC, 'sliceid'): ('sliceid', 'config:48-50'),
    (AMD_UNC, 'rdwrmask'): ('rdwrmask', 'config:8-9'),
    # CMN_FORMAT_ATTR(name, MASK) / _CMN_FORMAT_ATTR(name, word, MASK) in arm-cmn.c,
    # MASK a #define GENMASK_ULL(hi, lo) / BIT_ULL(n); arm_cmn_format_show prints
    # the mask as a bit list ("config:16-26", "config:31")
    (ARM_CMN, 'type'): ('type', 'config:0-15'),
    (ARM_CMN, 'eventid'): ('eventid', 'config:16-26'),
    (ARM_CMN, 'occupid'): ('occupid', 'config:27-30'),
    (ARM_CMN, 'bynodeid'): ('bynodeid', 'config:31'),
    (ARM_CMN, 'nodeid'): ('nodeid', 'config:32-47'),
    (ARM_CMN, 'wp_dev_sel'): ('wp_dev_sel', 'config:48-50'),
    (ARM_CMN, 'wp_chn_sel'): ('wp_chn_sel', 'config:51-55'),
    (ARM_CMN, 'wp_grp'): ('wp_grp', 'config:56-57'),
    (ARM_CMN, 'wp_exclusive'): ('wp_exclusive', 'config:58'),
    (ARM_CMN, 'wp_combine'): ('wp_combine', 'config:27-30'),
    (ARM_CMN, 'wp_val'): ('wp_val', 'config1:0-63'),
    (ARM_CMN, 'wp_mask'): ('wp_mask', 'config2:0-63'),
}

# events/ aliases of arm_cmn the trees carry: (sysfs name, node type, event id,
# occupid or None), as arm-cmn.c's arm_cmn_event_attrs[] registers them
# (CMN_EVENT_DTC, CMN_EVENT_HNF) and arm_cmn_event_show prints them.  Only the
# HN-F (node type 5) events of the queue factor and the DTC's cycle counter
# (type 3): the driver shows more, depending on the mesh.
CMN_EVENTS = [
    ('dtc_cycles', 0x3, None, None),
    ('hnf_cache_miss', 0x5, 0x01, None),
    ('hnf_slc_sf_cache_access', 0x5, 0x02, None),
    ('hnf_pocq_retry', 0x5, 0x04, None),
    ('hnf_pocq_reqs_recvd', 0x5, 0x05, None),
    ('hnf_mc_retries', 0x5, 0x0c, None),
    ('hnf_mc_reqs', 0x5, 0x0d, None),
]

# the attribute sets each PMU gets, as the drivers assemble them
PMU_FORMATS = {
    # intel/core.c intel_arch3_formats_attr[] (event, umask, edge, pc, any, inv,
    # cmask) and format_attr_offcore_rsp (Sandy Bridge and later)
    'intel-core': [(INTEL_CORE, a) for a in ('event', 'umask', 'edge', 'pc', 'any', 'inv', 'cmask',
                                             'offcore_rsp')],
    # uncore_snbep.c snbep_uncore_formats_attr[] (HA, IMC of SNB-EP, HSX, BDX) and
    # ivbep_uncore_formats_attr[] (IVB-EP): the same five
    'snbep-common': [(SNBEP, a) for a in ('event', 'umask', 'edge', 'inv', 'thresh8')],
    # snbep_uncore_cbox_formats_attr[]
    'snbep-cbox': [(SNBEP, a) for a in ('event', 'umask', 'edge', 'tid_en', 'inv', 'thresh8', 'filter_tid',
                                        'filter_nid', 'filter_state', 'filter_opc')],
    # ivbep_uncore_cbox_formats_attr[] (no inv)
    'ivbep-cbox': [(SNBEP, a) for a in ('event', 'umask', 'edge', 'tid_en', 'thresh8', 'filter_tid',
                                        'filter_link', 'filter_state2', 'filter_nid2', 'filter_opc2',
                                        'filter_nc', 'filter_c6', 'filter_isoc')],
    # hswep_uncore_cbox_formats_attr[] (Haswell-EP; Broadwell-EP's cbox uses the same group)
    'hswep-cbox': [(SNBEP, a) for a in ('event', 'umask', 'edge', 'tid_en', 'thresh8', 'filter_tid3',
                                        'filter_link2', 'filter_state3', 'filter_nid2', 'filter_opc2',
                                        'filter_nc', 'filter_c6', 'filter_isoc')],
    # uncore_snbep.c spr_uncore_cha_formats_attr[] (Sapphire Rapids' CHA; Emerald
    # Rapids uses spr_uncores, Granite Rapids' CHA the same group)
    'spr-cha': [(SNBEP, a) for a in ('event', 'umask_ext5', 'tid_en2', 'inv', 'thresh8', 'filter_tid5')],
    # spr_uncore_raw_formats_attr[] (IMC, UPI of SPR, EMR, GNR)
    'spr-raw': [(SNBEP, a) for a in ('event', 'umask_ext4', 'edge', 'inv', 'thresh8')],
    # arm_pmuv3.c armv8_pmuv3_format_attrs[]: event (long, rdpmc are flags, not kept)
    'armv8-pmuv3': [(ARM_PMUV3, 'event')],
    # amd/core.c amd_format_attr[]
    'amd-core': [(AMD_CORE, a) for a in ('event', 'umask', 'edge', 'inv', 'cmask')],
    # amd/uncore.c amd_uncore_df_ctx_init, pmu_version >= 2: event14v2, umask12
    'amd-df-v2': [(AMD_UNC, 'event14v2'), (AMD_UNC, 'umask12')],
    # amd_uncore_l3_ctx_init, family >= 0x19: event8, umask8, threadmask2, and
    # amd_f19h_uncore_l3_format_attr[] (visible on family >= 0x19): coreid,
    # enallslices, enallcores, sliceid
    'amd-l3-f19h': [(AMD_UNC, a) for a in ('event8', 'umask8', 'threadmask2', 'coreid',
                                           'enallslices', 'enallcores', 'sliceid')],
    # amd_uncore_df_ctx_init, family 17h without PerfMonV2: event14, umask8
    'amd-df-f17h': [(AMD_UNC, 'event14'), (AMD_UNC, 'umask8')],
    # amd_uncore_l3_ctx_init, family 17h: event8, umask8, threadmask8, and
    # amd_f17h_uncore_l3_format_attr[] (visible on family 17h/18h): slicemask
    'amd-l3-f17h': [(AMD_UNC, a) for a in ('event8', 'umask8', 'threadmask8', 'slicemask')],
    # amd_uncore_umc_format_attr[]: event8, rdwrmask
    'amd-umc': [(AMD_UNC, 'event8'), (AMD_UNC, 'rdwrmask')],
    # arm-cmn.c arm_cmn_format_attrs[]
    'arm-cmn': [(ARM_CMN, a) for a in ('type', 'eventid', 'occupid', 'bynodeid', 'nodeid', 'wp_dev_sel',
                                       'wp_chn_sel', 'wp_grp', 'wp_exclusive', 'wp_combine', 'wp_val',
                                       'wp_mask')],
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
        if path == ARM_CMN:
            got = cmn_format(text, var)
        elif m:
            got = (m.group(1), m.group(2))
        else:
            m = re.search(r'PMU_FORMAT_ATTR\(\s*%s\s*,\s*"([^"]*)"' % re.escape(var), text)
            got = (var, m.group(1)) if m else gen_format(text, var)
        if got != (name, fmt):
            print('make-model-fixtures: %s: %s is %s in the source, %s here' % (path, var, got, (name, fmt)),
                  file=sys.stderr)
            bad += 1
    text = srcs.get(ARM_CMN)
    for name, typ, eid, occ in CMN_EVENTS if text else []:
        if cmn_event(text, name) != (typ, eid, occ):
            print('make-model-fixtures: %s: event %s is %s in the source, %s here' %
                  (ARM_CMN, name, cmn_event(text, name), (typ, eid, occ)), file=sys.stderr)
            bad += 1
    return bad


def gen_format(text, var):
    """arm_pmuv3.c since Linux 6.8: GEN_PMU_FORMAT_ATTR(var) with ATTR_CFG_FLD_var_{CFG,LO,HI}."""
    if not re.search(r'GEN_PMU_FORMAT_ATTR\(\s*%s\s*\)' % re.escape(var), text):
        return None
    f = {k: re.search(r'#define\s+ATTR_CFG_FLD_%s_%s\s+(\w+)' % (re.escape(var), k), text) for k in ('CFG', 'LO', 'HI')}
    if not all(f.values()):
        return None
    lo, hi = f['LO'].group(1), f['HI'].group(1)
    return (var, '%s:%s' % (f['CFG'].group(1), lo if lo == hi else '%s-%s' % (lo, hi)))


def cmn_format(text, var):
    """arm-cmn.c: [_]CMN_FORMAT_ATTR(var, [word,] MASK) and MASK's GENMASK_ULL / BIT_ULL."""
    m = re.search(r'_?CMN_FORMAT_ATTR\(\s*%s\s*,\s*(?:(\d)\s*,\s*)?(\w+)\s*\)' % re.escape(var), text)
    if not m:
        return None
    word = 'config' + (m.group(1) if m.group(1) and m.group(1) != '0' else '')
    d = re.search(r'#define\s+%s\s+(GENMASK_ULL\(\s*(\d+)\s*,\s*(\d+)\s*\)|BIT_ULL\(\s*(\d+)\s*\))'
                  % re.escape(m.group(2)), text)
    if not d:
        return None
    if d.group(4):
        return (var, '%s:%s' % (word, d.group(4)))
    return (var, '%s:%s-%s' % (word, d.group(3), d.group(2)))


def cmn_event(text, name):
    """arm-cmn.c's arm_cmn_event_attrs[]: (node type, event id, occupid) of an alias."""
    types = {'CMN_TYPE_DTC': 0x3, 'CMN_TYPE_HNF': 0x5}
    if name == 'dtc_cycles':
        return (0x3, None, None) if re.search(r'CMN_EVENT_DTC\(\s*cycles\s*\)', text) else None
    m = re.search(r'CMN_EVENT_HNF\(\s*\w+\s*,\s*%s\s*,\s*(0x[0-9a-fA-F]+)\s*\)' % re.escape(name[4:]), text)
    if not m:
        return None
    # the node type enum: CMN_TYPE_HNF must still be 5 (INVALID, DVM, CFG, DTC, HNI, HNF)
    e = re.search(r'enum cmn_node_type \{([^}]*)\}', text)
    order = [w.strip().split('=')[0].strip() for w in e.group(1).split(',')] if e else []
    if order[:6] != ['CMN_TYPE_INVALID', 'CMN_TYPE_DVM', 'CMN_TYPE_CFG', 'CMN_TYPE_DTC', 'CMN_TYPE_HNI',
                     'CMN_TYPE_HNF']:
        return None
    return (types['CMN_TYPE_HNF'], int(m.group(1), 16), None)


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
    if formats == 'arm-cmn':
        # arm_cmn_event_show: "type=0x%x" (DTC), "type=0x%x,eventid=0x%x[,occupid=0x%x]"
        for name, typ, eid, occ in CMN_EVENTS:
            text = 'type=0x%x' % typ
            if eid is not None:
                text += ',eventid=0x%x' % eid
            if occ is not None:
                text += ',occupid=0x%x' % occ
            w(root, d + 'events/' + name, text + '\n')


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


def zen1_2s(R):
    # EPYC 7001 "Naples" (family 0x17 model 0x01): each die is a NUMA node (four
    # per socket); trimmed here to one die per socket, 4 cores with SMT, CCX of 2
    # (4 on the part), so two nodes.  The kernel's family 17h uncore (no PerfMonV2).
    per = two_socket(R, 4, True, 2, '512K', '8192K')
    w(R, '/proc/cpuinfo', cpuinfo_x86(16, 'AuthenticAMD', 23, 1, 2, 'AMD EPYC 7601 32-Core Processor',
                                      'perfctr_core perfctr_nb perfctr_llc'))
    for name, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5), ('msr', 8)):
        pmu(R, name, t)
    pmu(R, 'cpu', 4, 'amd-core')                       # PERF_TYPE_RAW
    pmu(R, 'amd_df', 12, 'amd-df-f17h', [per[0][0], per[1][0]])
    pmu(R, 'amd_l3', 13, 'amd-l3-f17h', [0, 2, 4, 6])  # one CPU per CCX
    common(R, 'Nov 30 00:00:01 naples kernel: [    0.300000] Performance Events: Fam17h+ core perfctr, '
              'AMD PMU driver.\n', ('Dell Inc.', 'PowerEdge R7425'))
    readme(R, 'zen1-2s: a two-socket EPYC 7001 (Zen 1, family 0x17 model 0x01) host', [
        '2 sockets trimmed to one die each (on the part each socket has four dies, each a NUMA node), '
        '4 cores per die with SMT, CCX of 2 cores (4 on the part): 2 NUMA nodes.',
        '`type` numbers are made up but `cpu` (PERF_TYPE_RAW, 4).',
        '',
        '| PMU | formats from |',
        '|-----|--------------|',
        '| `cpu` | arch/x86/events/amd/core.c `amd_format_attr[]` |',
        '| `amd_df` | arch/x86/events/amd/uncore.c, family 17h without PerfMonV2: `event14`, `umask8` |',
        '| `amd_l3` | uncore.c, family 17h: `event8`, `umask8`, `threadmask8`, '
        '`amd_f17h_uncore_l3_format_attr[]` (`slicemask`) |',
        '',
        'perf\'s mapfile.csv gives family 23 model 0x01 the `amdzen1` table '
        '(`AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])`), which has no fills-by-source event.',
    ])


def intel_ep(R, model, name, cbox, n_ha, n_imc, kern, title, notes):
    # trimmed to 4 cores per socket with SMT; one uncore PMU per box, its
    # cpumask a CPU of each socket (the kernel's uncore PMUs cover every socket)
    per = two_socket(R, 4, True, 4, '256K', '20480K')
    w(R, '/proc/cpuinfo', cpuinfo_x86(16, 'GenuineIntel', 6, model, 2, name, 'pdcm pcid dca'))
    for n, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5), ('msr', 8)):
        pmu(R, n, t)
    pmu(R, 'cpu', 4, 'intel-core')                        # PERF_TYPE_RAW
    both = [per[0][0], per[1][0]]
    t = 20
    for i in range(4):                                    # a CBo per core
        pmu(R, 'uncore_cbox_%d' % i, t, cbox, both)
        t += 1
    for i in range(n_ha):
        pmu(R, 'uncore_ha' if n_ha == 1 else 'uncore_ha_%d' % i, t, 'snbep-common', both)
        t += 1
    for i in range(n_imc):
        pmu(R, 'uncore_imc_%d' % i, t, 'snbep-common', both)
        t += 1
    common(R, 'Nov 30 00:00:01 xeon kernel: [    0.300000] Performance Events: PEBS fmt2+, %s '
              'events, 16-deep LBR, full-width counters, Intel PMU driver.\n' % kern, ('Dell Inc.', 'PowerEdge R730'))
    readme(R, title, [
        '2 x 4 cores with SMT (trimmed), 2 NUMA nodes.  `type` numbers are made up but `cpu` '
        '(PERF_TYPE_RAW, 4).', '',
        '| PMU | formats from |', '|-----|--------------|',
        '| `cpu` | arch/x86/events/intel/core.c `intel_arch3_formats_attr[]`, `format_attr_offcore_rsp` |',
        '| `uncore_cbox_0..3` | arch/x86/events/intel/uncore_snbep.c %s |' % notes[0],
        '| `uncore_ha*`, `uncore_imc_*` | uncore_snbep.c %s |' % notes[1], '',
        notes[2]])


def snb_ep_2s(R):
    intel_ep(R, 0x2d, 'Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz', 'snbep-cbox', 1, 4, 'SandyBridge',
             'snb-ep-2s: a two-socket Xeon E5-2600 (Sandy Bridge-EP, family 6 model 0x2d) host',
             ['`snbep_uncore_cbox_formats_attr[]` (filter_opc config1:23-31)',
              '`snbep_uncore_formats_attr[]`; one HA (`snbep_uncore_ha` num_boxes 1: `uncore_ha`), 4 IMC channels',
              "perf's mapfile.csv gives GenuineIntel-6-2D the `jaketown` table."])


def ivb_ep_2s(R):
    intel_ep(R, 0x3e, 'Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz', 'ivbep-cbox', 2, 8, 'IvyBridge',
             'ivb-ep-2s: a two-socket Xeon E5-2600 v2 (Ivy Bridge-EP, family 6 model 0x3e) host',
             ['`ivbep_uncore_cbox_formats_attr[]` (filter_opc config1:52-60, no inv)',
              '`ivbep_uncore_formats_attr[]`; two HAs, 8 IMC channels (`ivbep_uncore_ha`, `ivbep_uncore_imc`)',
              "perf's mapfile.csv gives GenuineIntel-6-3E the `ivytown` table."])


def hsx_2s(R):
    intel_ep(R, 0x3f, 'Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz', 'hswep-cbox', 2, 8, 'Haswell',
             'hsx-2s: a two-socket Xeon E5-2600 v3 (Haswell-EP, family 6 model 0x3f) host',
             ['`hswep_uncore_cbox_formats_attr[]` (filter_opc config1:52-60, no inv)',
              '`snbep_uncore_formats_attr[]` (`hswep_uncore_ha`, `hswep_uncore_imc`: 2 HAs, 8 channels)',
              "perf's mapfile.csv gives GenuineIntel-6-3F the `haswellx` table."])


def bdx_2s(R):
    intel_ep(R, 0x4f, 'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz', 'hswep-cbox', 2, 8, 'Broadwell',
             'bdx-2s: a two-socket Xeon E5-2600 v4 (Broadwell-EP, family 6 model 0x4f) host',
             ['`hswep_uncore_cbox_formats_attr[]` (`bdx_uncore_cbox` uses Haswell-EP\'s group)',
              '`snbep_uncore_formats_attr[]` (`bdx_uncore_ha`, `bdx_uncore_imc`: 2 HAs, 8 channels)',
              "perf's mapfile.csv gives GenuineIntel-6-4F the `broadwellx` table."])


def xeon_sp(R, model, name, n_imc, kern, title, notes):
    per = two_socket(R, 4, True, 4, '2048K', '327680K')
    w(R, '/proc/cpuinfo', cpuinfo_x86(16, 'GenuineIntel', 6, model, 2, name, 'pdcm pcid avx512f amx_tile'))
    for n, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5), ('msr', 8)):
        pmu(R, n, t)
    pmu(R, 'cpu', 4, 'intel-core')
    both = [per[0][0], per[1][0]]
    t = 20
    for i in range(4):                                    # four of the CHAs are kept
        pmu(R, 'uncore_cha_%d' % i, t, 'spr-cha', both)
        t += 1
    for i in range(n_imc):
        pmu(R, 'uncore_imc_%d' % i, t, 'spr-raw', both)
        t += 1
    for i in range(4):
        pmu(R, 'uncore_upi_%d' % i, t, 'spr-raw', both)
        t += 1
    common(R, 'Nov 30 00:00:01 xeon kernel: [    0.300000] Performance Events: XSAVE Architectural LBR, '
              'PEBS fmt4+-baseline, AnyThread deprecated, %s events, 32-deep LBR, full-width counters, '
              'Intel PMU driver.\n' % kern, ('Dell Inc.', 'PowerEdge R760'))
    readme(R, title, [
        '2 x 4 cores with SMT (trimmed), 2 NUMA nodes.  `type` numbers are made up but `cpu` '
        '(PERF_TYPE_RAW, 4).', '',
        '| PMU | formats from |', '|-----|--------------|',
        '| `cpu` | arch/x86/events/intel/core.c `intel_arch3_formats_attr[]`, `format_attr_offcore_rsp` |',
        '| `uncore_cha_0..3` | arch/x86/events/intel/uncore_snbep.c `spr_uncore_cha_formats_attr[]` '
        '(umask config:8-15,32-63) |',
        '| `uncore_imc_*`, `uncore_upi_0..3` | uncore_snbep.c `spr_uncore_raw_formats_attr[]` '
        '(umask config:8-15,32-55) |', '', notes])


def emr_2s(R):
    xeon_sp(R, 0xcf, 'INTEL(R) XEON(R) PLATINUM 8592+', 8, 'EmeraldRapids',
            'emr-2s: a two-socket 5th-gen Xeon Scalable (Emerald Rapids, family 6 model 0xcf) host',
            "perf's mapfile.csv gives GenuineIntel-6-CF the `emeraldrapids` table; the kernel "
            "drives its uncore with Sapphire Rapids' (uncore.c: EMERALDRAPIDS_X -> spr_uncore_init).")


def gnr_2s(R):
    xeon_sp(R, 0xad, 'Intel(R) Xeon(R) 6980P', 12, 'GraniteRapids',
            'gnr-2s: a two-socket Xeon 6 P-core (Granite Rapids, family 6 model 0xad) host',
            "perf's mapfile.csv gives GenuineIntel-6-A[DE] the `graniterapids` table; the kernel "
            "names its uncore PMUs from the discovery table with SPR's format groups (gnr_uncores).")


def arm_2s(R, part, what, dmi, notes):
    # two sockets of 4 cores (trimmed), no SMT; one PMU per core type (armv8_pmuv3_0)
    per = two_socket(R, 4, False, 4, '1024K', '32768K')
    w(R, '/proc/cpuinfo', ''.join(
        'processor\t: %d\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 '
        'atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve '
        'asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp sve2 sveaes svepmull svebitperm '
        'svesha3 svesm4 flagm2 frint svei8mm svebf16 i8mm bf16 dgh rng bti\n'
        'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: %s\n'
        'CPU revision\t: 1\n\n' % (c, part) for c in range(8)))
    for n, t in (('software', 1), ('tracepoint', 2), ('breakpoint', 5), ('kprobe', 6), ('uprobe', 7)):
        pmu(R, n, t)
    pmu(R, 'armv8_pmuv3_0', 8, 'armv8-pmuv3')
    # one CMN mesh per socket: arm-cmn.c registers a PMU per mesh the firmware
    # describes, "arm_cmn_%d" in probe order, its cpumask one CPU of the mesh's
    # node (arm_cmn_probe: cpumask_local_spread(0, dev_to_node(dev)))
    for i in range(2):
        pmu(R, 'arm_cmn_%d' % i, 9 + i, 'arm-cmn', [per[i][0]])
    common(R, 'Nov 30 00:00:01 arm kernel: [    0.300000] hw perfevents: enabled with armv8_pmuv3_0 PMU '
              'driver, 7 counters available\n', dmi)
    readme(R, what, [
        '2 x 4 cores (trimmed), no SMT, 2 NUMA nodes.  `type` numbers are made up.', '',
        '| PMU | formats from |', '|-----|--------------|',
        '| `armv8_pmuv3_0` | drivers/perf/arm_pmuv3.c `armv8_pmuv3_format_attrs[]` (`event` config:0-15) |',
        '| `arm_cmn_0..1` | drivers/perf/arm-cmn.c `arm_cmn_format_attrs[]` (`type` config:0-15, `eventid` '
        'config:16-26, `occupid` config:27-30, ...; Linux 6.12); `events/`: the HN-F and DTC aliases of '
        '`arm_cmn_event_attrs[]` the queue factor reads.  One mesh per socket, as the driver registers '
        'one PMU per mesh the firmware describes: whether a given product\'s firmware describes its '
        'mesh (and so whether the PMU exists there) is not established by this tree |',
        '', notes])


def arm_n1_cmn(R):
    # arm-n1 is make-platform-fixtures.py's tree (one socket, arm_cmn_0 with its
    # type and cpumask); only the CMN PMU's format/ and events/ are written here
    d = os.path.join(HERE, R, 'sys/bus/event_source/devices/arm_cmn_0')
    for sub in ('format', 'events'):
        shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
    for key in PMU_FORMATS['arm-cmn']:
        fname, fmt = FORMATS[key]
        w(R, '/sys/bus/event_source/devices/arm_cmn_0/format/' + fname, fmt + '\n')
    for name, typ, eid, occ in CMN_EVENTS:
        text = 'type=0x%x' % typ + (',eventid=0x%x' % eid if eid is not None else '') + \
            (',occupid=0x%x' % occ if occ is not None else '')
        w(R, '/sys/bus/event_source/devices/arm_cmn_0/events/' + name, text + '\n')


def n2_2s(R):
    arm_2s(R, '0xd49', 'neoverse-n2-2s: a two-socket Arm Neoverse N2 host (implementer 0x41, part 0xd49)',
           ('Microsoft', 'Cobalt 100'), "perf's arm64 mapfile.csv gives 0x00000000410fd490 `arm/neoverse-n2-v2`.")


def v1_2s(R):
    arm_2s(R, '0xd40', 'neoverse-v1-2s: a two-socket Arm Neoverse V1 host (implementer 0x41, part 0xd40)',
           ('Amazon EC2', 'c7g.metal'), "perf's arm64 mapfile.csv gives 0x00000000410fd400 `arm/neoverse-v1`.")


def v2_2s(R):
    # not NVIDIA Grace: Grace's interconnect is NVIDIA's SCF, with no arm_cmn PMU; this
    # tree is a V2 on CMN meshes (the identity is a neutral, made-up one)
    arm_2s(R, '0xd4f', 'neoverse-v2-2s: a two-socket Arm Neoverse V2 host on CMN meshes (implementer 0x41, '
           'part 0xd4f)', ('Arm Ltd', 'Neoverse V2 two-socket host'),
           "perf's arm64 mapfile.csv gives 0x00000000410fd4f0 `arm/neoverse-n2-v2`.  Not NVIDIA Grace: "
           "Grace's interconnect is NVIDIA's SCF (its own uncore PMU, no `arm_cmn`).")


TREES = {
    'neoverse-n2-2s': {'make': n2_2s, 'mapfile': ('arm64', '0x00000000410fd490', 'arm/neoverse-n2-v2')},
    'neoverse-v1-2s': {'make': v1_2s, 'mapfile': ('arm64', '0x00000000410fd400', 'arm/neoverse-v1')},
    'neoverse-v2-2s': {'make': v2_2s, 'mapfile': ('arm64', '0x00000000410fd4f0', 'arm/neoverse-n2-v2')},
    'emr-2s': {'make': emr_2s, 'mapfile': ('x86', 'GenuineIntel-6-CF', 'emeraldrapids')},
    'gnr-2s': {'make': gnr_2s, 'mapfile': ('x86', 'GenuineIntel-6-AD', 'graniterapids')},
    'snb-ep-2s': {'make': snb_ep_2s, 'mapfile': ('x86', 'GenuineIntel-6-2D', 'jaketown')},
    'ivb-ep-2s': {'make': ivb_ep_2s, 'mapfile': ('x86', 'GenuineIntel-6-3E', 'ivytown')},
    'hsx-2s': {'make': hsx_2s, 'mapfile': ('x86', 'GenuineIntel-6-3F', 'haswellx')},
    'bdx-2s': {'make': bdx_2s, 'mapfile': ('x86', 'GenuineIntel-6-4F', 'broadwellx')},
    'zen5-2s': {'make': zen5_2s, 'mapfile': ('x86', 'AuthenticAMD-26-2', 'amdzen5')},
    'zen1-2s': {'make': zen1_2s, 'mapfile': ('x86', 'AuthenticAMD-23-1', 'amdzen1')},
}
# trees of another script in which this one writes only a PMU's format/ and events/
PARTS = {'arm-n1': arm_n1_cmn}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', help='directory with the kernel driver files at their paths')
    ap.add_argument('--pmu-events', help="the kernel's tools/perf/pmu-events (its arch/ inside), "
                    'a work tree or a bare git directory')
    ap.add_argument('trees', nargs='*', help='trees to write (default: all of TREES)')
    a = ap.parse_args()
    names = a.trees or sorted(TREES) + sorted(PARTS)
    bad = check_kernel(a.kernel) if a.kernel else 0
    if a.pmu_events:
        bad += sum(check_mapfile(a.pmu_events, n) for n in names if n in TREES)
    if bad:
        sys.exit(1)
    for n in names:
        if n in PARTS:
            PARTS[n](n)
            continue
        shutil.rmtree(os.path.join(HERE, n), ignore_errors=True)
        TREES[n]['make'](n)


if __name__ == '__main__':
    main()
