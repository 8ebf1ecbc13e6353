#!/usr/bin/env python3
"""many_vms.py - writes a fixture root of a big host with many QEMU VMs, for the placement
map's aggregation tests (tests/cli/t10540, t9102).

  many_vms.py DIR [VMS]

The host: 4 NUMA nodes, each one package with one L3 and 8 cores x 2 SMT threads, so
64 CPUs; node n holds CPUs 8n..8n+7 and their siblings 32+8n..32+8n+7 (Linux numbers the
second threads after all the first ones).  VMS plain QEMU/KVM guests (default 100), vm000
.. vm099, pid 10000 + 10 i, each with 2 vCPUs "CPU 0/KVM" and "CPU 1/KVM" (tids pid + 2,
pid + 3): vCPU k of VM i last ran on CPU (2 i + k) mod 64, so every CPU holds
2 VMS / 64 vCPUs or one more (100 VMs: CPUs 0..7 hold 4 vCPUs, the other 56 CPUs 3: 200),
and node n holds the vCPUs on its 16 CPUs (100 VMs: node 0 56, nodes 1-3 48 each).  VM i
has 1 GiB of RAM, 768 MiB on node i mod 4 and 256 MiB on the next node.
The tests compute what they expect from these rules, not from vmmprof's output.
"""
import os
import sys

NODES, CORES, THREADS = 4, 8, 2
NCPU = NODES * CORES * THREADS


def w(root, path, text):
    p = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def stat_line(tid, comm, nthreads, cpu, utime=100, stime=10, start=5000):
    f = [0] * 52
    f[3], f[4], f[5], f[6], f[7], f[8] = 1, tid, tid, 0, -1, 4194560
    f[13], f[14] = utime, stime
    f[17], f[18], f[19], f[21] = 20, 0, nthreads, start
    f[22], f[23], f[24] = 1642369024, 9234, 18446744073709551615
    f[37], f[38] = 17, cpu
    return "%d (%s) S %s\n" % (tid, comm, " ".join(str(x) for x in f[3:]))


def status(name, tgid, tid, cpus):
    return ("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
            "PPid:\t1\nThreads:\t3\nCpus_allowed_list:\t%s\nMems_allowed_list:\t0-%d\n"
            "voluntary_ctxt_switches:\t10\n" % (name[:15], tgid, tid, cpus, NODES - 1))


def node_of(cpu):
    return (cpu % (NCPU // THREADS)) // CORES


def main():
    root = sys.argv[1]
    vms = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    w(root, "/sys/devices/system/cpu/online", "0-%d\n" % (NCPU - 1))
    w(root, "/sys/devices/system/cpu/possible", "0-%d\n" % (NCPU - 1))
    for c in range(NCPU):
        core = c % (NCPU // THREADS)
        sib = "%d,%d" % (core, core + NCPU // THREADS)
        d = "/sys/devices/system/cpu/cpu%d/" % c
        w(root, d + "topology/physical_package_id", "%d\n" % node_of(c))
        w(root, d + "topology/core_id", "%d\n" % (core % CORES))
        w(root, d + "topology/thread_siblings_list", sib + "\n")
        n = node_of(c)
        l3 = "%d-%d,%d-%d" % (8 * n, 8 * n + 7, 32 + 8 * n, 32 + 8 * n + 7)
        w(root, d + "cache/index3/level", "3\n")
        w(root, d + "cache/index3/type", "Unified\n")
        w(root, d + "cache/index3/size", "32768K\n")
        w(root, d + "cache/index3/shared_cpu_list", l3 + "\n")
    for n in range(NODES):
        d = "/sys/devices/system/node/node%d/" % n
        w(root, d + "cpulist", "%d-%d,%d-%d\n" % (8 * n, 8 * n + 7, 32 + 8 * n, 32 + 8 * n + 7))
        w(root, d + "distance", " ".join("10" if j == n else "21" for j in range(NODES)) + "\n")
        w(root, d + "numastat", "numa_hit 1000000\nnuma_miss 2000\nnuma_foreign 3000\n"
          "interleave_hit 400\nlocal_node 990000\nother_node 12000\n")
        total, free = 64 << 20, 16 << 20
        w(root, d + "meminfo", "Node %d MemTotal:       %8d kB\nNode %d MemFree:        %8d kB\n"
          "Node %d MemUsed:        %8d kB\n" % (n, total, n, free, n, total - free))
    w(root, "/sys/devices/system/node/online", "0-%d\n" % (NODES - 1))
    w(root, "/sys/devices/system/node/possible", "0-%d\n" % (NODES - 1))
    w(root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n")
    w(root, "/sys/fs/cgroup/cgroup.procs", "")
    w(root, "/proc/vmstat", "nr_free_pages 100000\nnuma_hit 1500000\nnuma_miss 5000\n"
      "numa_foreign 5000\nnuma_interleave 700\nnuma_local 1470000\nnuma_other 35000\n")
    w(root, "/proc/sys/kernel/hostname", "bighost\n")
    w(root, "/proc/sys/kernel/numa_balancing", "0\n")
    for i in range(vms):
        pid = 10000 + 10 * i
        name = "vm%03d" % i
        home, other = i % NODES, (i + 1) % NODES
        d = "/proc/%d/" % pid
        argv = ["/usr/bin/qemu-system-x86_64", "-name", "guest=%s,debug-threads=on" % name,
                "-accel", "kvm", "-m", "1024", "-smp", "2"]
        w(root, d + "cmdline", "\0".join(argv) + "\0")
        threads = [(pid, "qemu-system-x86", 0), (pid + 2, "CPU 0/KVM", (2 * i) % NCPU),
                   (pid + 3, "CPU 1/KVM", (2 * i + 1) % NCPU)]
        w(root, d + "stat", stat_line(pid, "qemu-system-x86", 3, 0))
        w(root, d + "status", status("qemu-system-x86", pid, pid, "0-%d" % (NCPU - 1)))
        w(root, d + "cgroup", "0::/user.slice\n")
        # 1 GiB in 4 KiB pages: 196608 (768 MiB) on the home node, 65536 on the next
        w(root, d + "numa_maps", "7f0000000000 default anon=262144 dirty=262144 N%d=196608 N%d=65536 "
          "kernelpagesize_kB=4\n" % (home, other))
        w(root, d + "maps", "7f0000000000-7f0040000000 rw-p 00000000 00:00 0 \n")
        for tid, comm, cpu in threads:
            t = d + "task/%d/" % tid
            w(root, t + "stat", stat_line(tid, comm, 3, cpu))
            w(root, t + "status", status(comm, pid, tid, "0-%d" % (NCPU - 1)))
            w(root, t + "schedstat", "1000000000 1000000 100\n")
            w(root, t + "cgroup", "0::/user.slice\n")


if __name__ == "__main__":
    main()
