#!/usr/bin/env python3
"""make-fixtures.py - writes the /proc and /sys fixture trees under tests/data/root.

Every number here is chosen by hand; the unit and CLI tests compute what
vmmprof must report from these numbers (see README.md next to this file).
Run it from this directory after changing a value, and commit the result.
"""
import os, shutil, json

HERE = os.path.dirname(os.path.abspath(__file__))

def w(root, path, text):
    p = os.path.join(HERE, root, path.lstrip('/'))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(text)

def stat_line(tid, comm, state='S', ppid=1, utime=0, stime=0, nthreads=1, start=5000, cpu=0):
    f = [0] * 52
    f[3], f[4], f[5], f[6], f[7], f[8] = ppid, tid, tid, 0, -1, 4194560
    f[13], f[14] = utime, stime
    f[17], f[18], f[19], f[21] = 20, 0, nthreads, start
    f[22], f[23], f[24] = 1642369024, 9234, 18446744073709551615
    f[37] = 17
    f[38] = cpu
    rest = ' '.join(str(x) for x in f[3:])
    return '%d (%s) %s %s\n' % (tid, comm, state, rest)

def status(name, tgid, tid, cpus, mems='0-1'):
    return ('Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n'
            'PPid:\t1\nThreads:\t4\nCpus_allowed:\tf\nCpus_allowed_list:\t%s\n'
            'Mems_allowed:\t00000000,00000003\nMems_allowed_list:\t%s\n'
            'voluntary_ctxt_switches:\t10\n' % (name[:15], tgid, tid, cpus, mems))

def nodes(root, spec, vm_extra=''):
    """spec: list of (node, cpulist, numastat dict, memtotal_kB, memfree_kB)."""
    n = len(spec)
    for node, cpus, ns, total, free in spec:
        d = '/sys/devices/system/node/node%d/' % node
        w(root, d + 'cpulist', cpus + '\n')
        w(root, d + 'distance', ' '.join('10' if j == node else '21' for j in range(n)) + '\n')
        w(root, d + 'numastat', ''.join('%s %d\n' % kv for kv in ns))
        w(root, d + 'meminfo',
          'Node %d MemTotal:       %8d kB\nNode %d MemFree:        %8d kB\n'
          'Node %d MemUsed:        %8d kB\nNode %d FilePages:      %8d kB\n'
          'Node %d AnonPages:      %8d kB\nNode %d Shmem:          %8d kB\n'
          'Node %d HugePages_Total:   %d\nNode %d HugePages_Free:    %d\n' %
          (node, total, node, free, node, total - free, node, 1024, node, 2048, node, 0,
           node, 512 if node == 1 else 0, node, 256 if node == 1 else 0))
    w(root, '/sys/devices/system/node/online', '0-%d\n' % (n - 1))
    w(root, '/sys/devices/system/node/possible', '0-%d\n' % (n - 1))

def cpus(root, ncpu, per_node):
    w(root, '/sys/devices/system/cpu/online', '0-%d\n' % (ncpu - 1))
    w(root, '/sys/devices/system/cpu/possible', '0-%d\n' % (ncpu - 1))
    for c in range(ncpu):
        d = '/sys/devices/system/cpu/cpu%d/topology/' % c
        w(root, d + 'physical_package_id', '%d\n' % (c // per_node))
        w(root, d + 'core_id', '%d\n' % (c % per_node))
        w(root, d + 'thread_siblings_list', '%d\n' % c)

def qemu(root, pid, argv, threads, cgroup_lines, numa_maps, maps, cpus_of=None):
    """threads: list of (tid, comm, utime, stime, cpu, affinity, cgroup_lines or None, schedstat)."""
    d = '/proc/%d/' % pid
    w(root, d + 'cmdline', '\0'.join(argv) + '\0')
    main = threads[0]
    w(root, d + 'stat', stat_line(pid, main[1], nthreads=len(threads), cpu=main[4],
                                  utime=main[2], stime=main[3]))
    w(root, d + 'status', status(main[1], pid, pid, main[5]))
    w(root, d + 'cgroup', cgroup_lines)
    w(root, d + 'numa_maps', numa_maps)
    w(root, d + 'maps', maps)
    for tid, comm, ut, st, cpu, aff, cg, ss in threads:
        t = d + 'task/%d/' % tid
        w(root, t + 'stat', stat_line(tid, comm, utime=ut, stime=st, cpu=cpu,
                                      nthreads=len(threads)))
        w(root, t + 'status', status(comm, pid, tid, aff))
        w(root, t + 'schedstat', ss)
        w(root, t + 'cgroup', cg if cg else cgroup_lines)

def sched(comm, tid, faults=None, cur=0, pref=-1):
    """/proc/PID/task/TID/sched as kernel/sched/debug.c prints it; faults: per node
    (task_private, task_shared, group_private, group_shared), None: no NUMA lines."""
    row = lambda k, v: '%-45s:%21s\n' % (k, v)
    t = ('%s (%d, #threads: 4)\n' % (comm, tid) + '-' * 67 + '\n' +
         row('se.exec_start', '47077333.489664') + row('se.sum_exec_runtime', '15000.000000') +
         row('nr_switches', 9000) + row('policy', 0) + row('prio', 120) + row('clock-delta', 81))
    if faults is None:
        return t
    t += (row('mm->numa_scan_seq', 12) + row('numa_pages_migrated', 40) +
          row('numa_preferred_nid', pref) +
          row('total_numa_faults', sum(f[0] + f[1] for f in faults)) +
          'current_node=%d, numa_group_id=0\n' % cur)
    for n, (tp, ts, gp, gs) in enumerate(faults):
        t += ('numa_faults node=%d task_private=%d task_shared=%d group_private=%d '
              'group_shared=%d\n' % (n, tp, ts, gp, gs))
    return t

NS0 = [('numa_hit', 1000000), ('numa_miss', 2000), ('numa_foreign', 3000),
       ('interleave_hit', 400), ('local_node', 990000), ('other_node', 12000)]
NS1 = [('numa_hit', 500000), ('numa_miss', 3000), ('numa_foreign', 2000),
       ('interleave_hit', 300), ('local_node', 480000), ('other_node', 23000)]

VMSTAT = ('nr_free_pages 100000\nnuma_hit 1500000\nnuma_miss 5000\nnuma_foreign 5000\n'
          'numa_interleave 700\nnuma_local 1470000\nnuma_other 35000\nnuma_pte_updates 1234\n'
          'numa_huge_pte_updates 5\nnuma_hint_faults 800\nnuma_hint_faults_local 600\n'
          'numa_pages_migrated 150\npgmigrate_success 160\npgmigrate_fail 2\n')

def common_host(root):
    nodes(root, [(0, '0-1', NS0, 8388608, 4194304), (1, '2-3', NS1, 8388608, 6291456)])
    cpus(root, 4, 2)
    w(root, '/proc/vmstat', VMSTAT)
    w(root, '/proc/sys/kernel/hostname', 'host1\n')
    w(root, '/proc/500/cmdline', '-bash\0')
    w(root, '/proc/500/stat', stat_line(500, 'bash', cpu=1))
    w(root, '/proc/500/task/500/stat', stat_line(500, 'bash', cpu=1))

LIB = '55f0e7651000 default file=/usr/bin/qemu-system-x86_64 mapped=1031 active=0 N0=1031 kernelpagesize_kB=4\n'
LIB_MAPS = '55f0e7651000-55f0e7a58000 r--p 00000000 08:01 123 /usr/bin/qemu-system-x86_64\n'

# ---- host-libvirt-v2: systemd host, cgroup v2, two libvirt VMs, resctrl ----
R = 'host-libvirt-v2'
shutil.rmtree(os.path.join(HERE, R), ignore_errors=True)
common_host(R)
w(R, '/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids perf_event\n')
w(R, '/sys/fs/cgroup/cgroup.procs', '')
scope1 = '/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope'
scope2 = '/machine.slice/machine-qemu\\x2d2\\x2ddb\\x2d2.scope'
for s, leaves in ((scope1, ['emulator', 'vcpu0', 'vcpu1']), (scope2, ['emulator', 'vcpu0'])):
    w(R, '/sys/fs/cgroup' + s + '/cgroup.procs', '')
    for l in leaves:
        w(R, '/sys/fs/cgroup' + s + '/libvirt/' + l + '/cgroup.threads', '')
web1_argv = ['/usr/bin/qemu-system-x86_64', '-name', 'guest=web1,debug-threads=on', '-S',
             '-object', '{"qom-type":"secret","id":"masterKey0"}', '-machine',
             'pc-q35-7.2,usb=off,dump-guest-core=off,memory-backend=pc.ram',
             '-accel', 'kvm', '-m', '1024', '-smp', '2,sockets=2,cores=1,threads=1',
             '-uuid', '6c3f1f5e-1111-4c1b-9a55-0123456789ab']
cg = lambda leaf, s=scope1: '0::%s/libvirt/%s\n' % (s, leaf)
qemu(R, 1000, web1_argv,
     [(1000, 'qemu-system-x86', 150, 50, 0, '0-3', cg('emulator'), '2000000000 1000000 300\n'),
      (1001, 'call_rcu', 1, 1, 1, '0-3', cg('emulator'), '20000000 1000 30\n'),
      (1002, 'CPU 0/KVM', 1200, 300, 1, '0-1', cg('vcpu0'), '15000000000 40000000 9000\n'),
      (1003, 'CPU 1/KVM', 900, 100, 2, '2-3', cg('vcpu1'), '10000000000 20000000 7000\n')],
     cg('emulator'),
     LIB +
     '55f0fd189000 default heap anon=1095 dirty=1095 active=0 N0=1095 kernelpagesize_kB=4\n'
     '7f1900000000 default anon=262144 dirty=262144 N0=196608 N1=65536 kernelpagesize_kB=4\n'
     '7f1963c00000 default anon=12 dirty=12 N1=12 kernelpagesize_kB=4\n',
     LIB_MAPS +
     '55f0fd189000-55f0ff189000 rw-p 00000000 00:00 0                          [heap]\n'
     '7f1900000000-7f1940000000 rw-p 00000000 00:00 0 \n'
     '7f1963c00000-7f1963d00000 rw-p 00000000 00:00 0 \n')
db_argv = ['/usr/bin/qemu-system-x86_64', '-name', 'db-2', '-machine', 'pc,accel=kvm',
           '-m', 'size=512M', '-smp', '1', '-mem-path', '/dev/hugepages/libvirt/qemu/2-db-2']
cg2 = lambda leaf: cg(leaf, scope2)
qemu(R, 2000, db_argv,
     [(2000, 'qemu-system-x86', 10, 5, 3, '2-3', cg2('emulator'), '100000000 1000 10\n'),
      (2002, 'CPU 0/KVM', 400, 100, 3, '2-3', cg2('vcpu0'), '5000000000 1000000 500\n')],
     cg2('emulator'),
     LIB +
     '7f2000000000 bind:1 file=/dev/hugepages/libvirt/qemu/2-db-2/qemu_back_mem.pc.ram.Xy\\040z huge dirty=200 N1=200 kernelpagesize_kB=2048\n',
     LIB_MAPS +
     '7f2000000000-7f2020000000 rw-s 00000000 00:2f 77 /dev/hugepages/libvirt/qemu/2-db-2/qemu_back_mem.pc.ram.Xy z (deleted)\n')
# NUMA hinting faults (sched): vCPU 0 on node 0 faults 15 on node 0, 80 on node 1;
# vCPU 1 on node 1 faults 40 on node 0, 160 on node 1; db-2's vCPU not scanned yet
w(R, '/proc/sys/kernel/numa_balancing', '1\n')
w(R, '/proc/1000/task/1002/sched', sched('CPU 0/KVM', 1002, [(12, 3, 40, 9), (80, 0, 100, 0)], 0, 1))
w(R, '/proc/1000/task/1003/sched', sched('CPU 1/KVM', 1003, [(30, 10, 40, 9), (150, 10, 100, 0)], 1, 1))
w(R, '/proc/2000/task/2002/sched', sched('CPU 0/KVM', 2002, [(0, 0, 0, 0), (0, 0, 0, 0)], 1))
for grp, dom in (('web1', [(0, 1048576, 5000000000, 'Unavailable'), (1, 524288, 'Unavailable', 'Unavailable')]),):
    for d, occ, tot, loc in dom:
        base = '/sys/fs/resctrl/mon_groups/%s/mon_data/mon_L3_%02d/' % (grp, d)
        w(R, base + 'llc_occupancy', '%s\n' % occ)
        w(R, base + 'mbm_total_bytes', '%s\n' % tot)
        w(R, base + 'mbm_local_bytes', '%s\n' % loc)
    w(R, '/sys/fs/resctrl/mon_groups/%s/tasks' % grp, '1000\n1001\n1002\n1003\n')
w(R, '/sys/fs/resctrl/mon_data/mon_L3_00/llc_occupancy', '2097152\n')
w(R, '/sys/fs/resctrl/mon_data/mon_L3_00/mbm_total_bytes', '8000000000\n')
w(R, '/sys/fs/resctrl/mon_data/mon_L3_00/mbm_local_bytes', '6000000000\n')
w(R, '/sys/fs/resctrl/info/L3_MON/mon_features', 'llc_occupancy\nmbm_total_bytes\nmbm_local_bytes\n')
# libvirt's own files (the advice's commands depend on them): web1 is
# persistent (its configuration in /etc) and runs with <numatune> in
# restrictive mode (its status in /run); db-2 is transient (no configuration)
# and its status has no <numatune> (strict, libvirt's default)
w(R, '/etc/libvirt/qemu/web1.xml', "<domain type='kvm'>\n  <name>web1</name>\n</domain>\n")
w(R, '/run/libvirt/qemu/web1.xml',
  "<domstatus state='running' reason='booted' pid='1000'>\n  <domain type='kvm' id='1'>\n"
  "    <name>web1</name>\n    <numatune>\n      <memory mode='restrictive' nodeset='0-1'/>\n"
  "    </numatune>\n  </domain>\n</domstatus>\n")
w(R, '/run/libvirt/qemu/db-2.xml',
  "<domstatus state='running' reason='booted' pid='2000'>\n  <domain type='kvm' id='2'>\n"
  "    <name>db-2</name>\n  </domain>\n</domstatus>\n")

# ---- host-libvirt-v1: cgroupfs (no systemd), cgroup v1, no debug-threads ----
R = 'host-libvirt-v1'
shutil.rmtree(os.path.join(HERE, R), ignore_errors=True)
common_host(R)
base = '/machine/qemu-1-app.libvirt-qemu'
for ctl in ('perf_event', 'cpu,cpuacct', 'cpuset'):
    w(R, '/sys/fs/cgroup/%s/cgroup.procs' % ctl, '')
    for l in ('emulator', 'vcpu0', 'vcpu1'):
        w(R, '/sys/fs/cgroup/%s%s/%s/tasks' % (ctl, base, l), '')
v1 = lambda leaf: ('12:perf_event:%s/%s\n11:cpu,cpuacct:%s/%s\n10:cpuset:%s/%s\n'
                   '9:memory:%s\n1:name=systemd:/\n0::/\n' % (base, leaf, base, leaf, base, leaf, base))
app_argv = ['/usr/libexec/qemu-kvm', '-machine', 'pc,accel=kvm', '-m', '2G', '-smp', '2']
qemu(R, 3000, app_argv,
     [(3000, 'qemu-kvm', 20, 10, 0, '0-3', v1('emulator'), '300000000 1000 10\n'),
      (3001, 'qemu-kvm', 0, 0, 0, '0-3', v1('emulator'), '1000 0 1\n'),
      (3003, 'qemu-kvm', 500, 0, 0, '0', v1('vcpu0'), '5000000000 0 100\n'),
      (3004, 'qemu-kvm', 500, 0, 2, '2', v1('vcpu1'), '5000000000 0 100\n')],
     v1('emulator'),
     LIB + '7f3000000000 default file=/memfd:pc.ram\\040(deleted) dirty=524288 N0=262144 N1=262144 kernelpagesize_kB=4\n',
     LIB_MAPS + '7f3000000000-7f3080000000 rw-s 00000000 00:01 4242 /memfd:pc.ram (deleted)\n')
# balancing off now: vCPU 0 has no hinting faults, vCPU 1 (node 1) still shows
# its decayed ones from before: 3 on node 0, 6 on node 1
w(R, '/proc/sys/kernel/numa_balancing', '0\n')
w(R, '/proc/3000/task/3003/sched', sched('qemu-kvm', 3003, [(0, 0, 0, 0), (0, 0, 0, 0)]))
w(R, '/proc/3000/task/3004/sched', sched('qemu-kvm', 3004, [(1, 2, 0, 0), (6, 0, 0, 0)], 1, 1))
w(R, '/sys/kernel/debug/kvm/3000-11/vcpu0/pid', '3003\n')
w(R, '/sys/kernel/debug/kvm/3000-11/vcpu1/pid', '3004\n')
w(R, '/sys/kernel/debug/kvm/3000-11/remote_tlb_flush', '0\n')

# ---- host-qemu: plain QEMU under TCG, no libvirt, cgroup v2 only ----
R = 'host-qemu'
shutil.rmtree(os.path.join(HERE, R), ignore_errors=True)
common_host(R)
w(R, '/sys/fs/cgroup/cgroup.controllers', 'cpu memory pids\n')
w(R, '/sys/fs/cgroup/cgroup.procs', '')
w(R, '/sys/fs/cgroup/user.slice/user-0.slice/session-1.scope/cgroup.procs', '4000\n')
sess = '0::/user.slice/user-0.slice/session-1.scope\n'
vp_argv = ['qemu-system-x86_64', '-accel', 'tcg', '-name', 'vptest,,x,debug-threads=on',
           '-smp', '2', '-m', '256', '-object', 'memory-backend-ram,id=m0,size=128M',
           '-object', 'memory-backend-ram,id=m1,size=128M',
           '-numa', 'node,nodeid=0,cpus=0,memdev=m0', '-numa', 'node,nodeid=1,cpus=1,memdev=m1',
           '-display', 'none', '-nodefaults']
qemu(R, 4000, vp_argv,
     [(4000, 'qemu-system-x86', 30, 20, 1, '0-3', None, '500000000 1000 50\n'),
      (4001, 'x) (y', 0, 0, 1, '0-3', None, '1000 0 1\n'),
      (4002, 'CPU 0/TCG', 2000, 500, 0, '0-3', None, '25000000000 5000000 800\n'),
      (4003, 'CPU 1/TCG', 1000, 0, 3, '0-3', None, '10000000000 5000000 900\n')],
     sess,
     LIB +
     '7f4000000000 default anon=32768 dirty=32768 N0=32768 kernelpagesize_kB=4\n'
     '7f4008000000 default anon=24576 dirty=24576 N0=8192 N1=16384 kernelpagesize_kB=4\n'
     '7f4010000000 default anon=16384 dirty=16384 N0=16384 kernelpagesize_kB=4\n'
     '7f4020000000 default anon=4096 dirty=4096 N1=4096 kernelpagesize_kB=4\n'
     '7f4030000000 default stack anon=10 dirty=10 N0=10 kernelpagesize_kB=4\n',
     LIB_MAPS +
     '7f4000000000-7f4008000000 rw-p 00000000 00:00 0 \n'
     '7f4008000000-7f4010000000 rw-p 00000000 00:00 0 \n'
     '7f4010000000-7f4014000000 rwxp 00000000 00:00 0 \n'
     '7f4020000000-7f4021000000 rw-p 00000000 00:00 0 \n'
     '7f4030000000-7f4030021000 rw-p 00000000 00:00 0                          [stack]\n')
# a kernel without NUMA balancing: no sysctl, no numa_faults lines; vCPU 1 has no sched file
w(R, '/proc/4000/task/4002/sched', sched('CPU 0/TCG', 4002))

# ---- xen-dom0: captured xl outputs (written from the xl formats; see README.md) ----
R = 'xen-dom0'
shutil.rmtree(os.path.join(HERE, R), ignore_errors=True)
w(R, '/proc/xen/capabilities', 'control_d\n')
w(R, '/sys/hypervisor/type', 'xen\n')
w(R, '/proc/vmstat', VMSTAT)
nodes(R, [(0, '0-1', NS0, 2097152, 1048576)])
cpus(R, 2, 2)
def dom(domid, name, uuid, typ, vcpus, memkb, nodemap=None, vnuma=None):
    b = {"max_vcpus": vcpus, "avail_vcpus": list(range(vcpus)), "numa_placement": "True",
         "max_memkb": memkb, "target_memkb": memkb, "shadow_memkb": 2048,
         "sched_params": {}, "claim_mode": "True", "type.%s" % typ: {}}
    if nodemap is not None:
        b["nodemap"] = nodemap
    if vnuma:
        b["vnuma_nodes"] = vnuma
    return {"domid": domid,
            "config": {"c_info": {"type": typ, "name": name, "uuid": uuid,
                                  "run_hotplug_scripts": "True"},
                       "b_info": b, "on_reboot": "restart", "on_crash": "restart"}}
xl = [dom(0, "Domain-0", "00000000-0000-0000-0000-000000000000", "pv", 2, 2097152),
      dom(1, "guest1", "b1f1a3e5-27f2-4d1b-8f0e-1f2e3d4c5b6a", "pv", 2, 131072, nodemap=[0]),
      dom(3, "numa vm", "c2a9d8e7-0000-4d1b-8f0e-aaaaaaaaaaaa", "pvh", 4, 524288,
          vnuma=[{"memkb": 262144, "distances": [10, 20], "pnode": 0, "vcpus": [0, 1]},
                 {"memkb": 262144, "distances": [20, 10], "pnode": 1, "vcpus": [2, 3]}])]
w(R, '/.vmmprof-fixture/xl/list-l.json', json.dumps(xl, indent=4) + '\n')
w(R, '/.vmmprof-fixture/xl/vcpu-list.txt',
  'Name                                ID  VCPU   CPU State   Time(s) Affinity (Hard / Soft)\n'
  'Domain-0                             0     0    0   r--      52.1  all / all\n'
  'Domain-0                             0     1    1   -b-      33.7  all / all\n'
  'guest1                               1     0    1   -b-       2.5  all / 0-1\n'
  'guest1                               1     1    0   r--       3.0  0 / all\n'
  'numa vm                              3     0    2   -b-       1.0  2-3 / all\n'
  'numa vm                              3     1    3   -b-       1.5  2-3 / all\n'
  'numa vm                              3     2    -   --p       0.0  all / all\n'
  'numa vm                              3     3    0   -b-       0.2  0-1 / all\n')
w(R, '/.vmmprof-fixture/xl/info-n.txt',
  'host                   : dom0\nrelease                : 6.1.0-13-amd64\n'
  'xen_version            : 4.17.3-pre\nnr_cpus                : 4\nmax_cpu_id             : 3\n'
  'nr_nodes               : 2\ncores_per_socket       : 2\nthreads_per_core       : 1\n'
  'cpu_topology           :\ncpu:    core    socket     node\n'
  '  0:       0        0        0\n  1:       1        0        0\n'
  '  2:       0        1        1\n  3:       1        1        1\n'
  'device topology        :\ndevice           node\n'
  'numa_info              :\nnode:    memsize    memfree    distances\n'
  '   0:      2048        512      10,20\n   1:      2048       1024      20,10\n'
  'xen_major              : 4\n')

# ---- guest: a VM with two virtual nodes and no vPMU ----
R = 'guest'
shutil.rmtree(os.path.join(HERE, R), ignore_errors=True)
nodes(R, [(0, '0', NS0, 262144, 131072), (1, '1', NS1, 262144, 196608)])
cpus(R, 2, 1)
w(R, '/proc/vmstat', VMSTAT)
w(R, '/proc/sys/kernel/hostname', 'vmguest\n')
w(R, '/proc/cpuinfo', 'processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu hypervisor\n\n'
   'processor\t: 1\nvendor_id\t: GenuineIntel\nflags\t\t: fpu hypervisor\n\n')
w(R, '/sys/bus/event_source/devices/software/type', '1\n')
w(R, '/sys/bus/event_source/devices/tracepoint/type', '2\n')
