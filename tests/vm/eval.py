#!/usr/bin/env python3
"""eval.py - host-side checks of what vmmprof printed as JSON, against the
expectation that tests/tiers/vm-testbed.sh derived from the QEMU command line.
The guest has no JSON parser, so it sends vmmprof's JSON as "VMDATA NAME ..."
console lines and this script judges them.  Prints one line per check:
"ok|FAIL|skip NAME detail".

  eval.py guest LOG ARCH NODES CPUS MEM DIST
  eval.py vms JSON VMNAME QEMU_PID NCPU
"""
import json
import sys


def cpulist(text):
    """'0-1,3' -> [0, 1, 3]; a list of ints passes through."""
    if isinstance(text, list):
        return sorted(int(c) for c in text)
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return sorted(out)


def vmdata(log):
    """{name: parsed JSON} of the VMDATA lines in a console log."""
    data = {}
    with open(log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("VMDATA "):
                _, name, text = (line.split(" ", 2) + [""])[:3]
                try:
                    data[name] = json.loads(text)
                except ValueError as e:
                    data[name] = e
    return data


def find_nodes(info):
    """The list of NUMA node objects in vmmprof info's JSON."""
    for path in (("topology", "nodes"), ("nodes",), ("numa", "nodes"), ("topology", "numa_nodes")):
        cur = info
        for k in path:
            cur = cur.get(k) if isinstance(cur, dict) else None
        if isinstance(cur, list):
            return cur
    raise KeyError("no topology.nodes list")


def first(obj, *keys):
    for k in keys:
        if isinstance(obj, dict) and k in obj:
            return obj[k]
    raise KeyError("none of %s in node %s" % (keys, sorted(obj)))


def check_info(arch, info, nodes, cpus, mem, dist):
    name = arch + "/topo/vmmprof-info"
    if isinstance(info, Exception):
        print("FAIL %s-json vmmprof info --json is not JSON: %s" % (name, info))
        return
    try:
        got = find_nodes(info)
    except KeyError as e:
        print("FAIL %s-nodes %s" % (name, e))
        return
    want_cpus = [cpulist(c) for c in cpus.split("/")]
    want_mem = [int(m) for m in mem.split("/")]
    want_dist = [[int(v) for v in row.split(",")] for row in dist.split("/")]
    if len(got) == int(nodes):
        print("ok %s-nodes %d nodes" % (name, len(got)))
    else:
        print("FAIL %s-nodes %d nodes, QEMU defined %s" % (name, len(got), nodes))
        return
    bad = []
    for i, n in enumerate(got):
        try:
            c = cpulist(first(n, "cpus", "cpulist", "cpuset"))
        except KeyError as e:
            bad.append(str(e))
            continue
        if c != want_cpus[i]:
            bad.append("node%d cpus %s != %s" % (i, c, want_cpus[i]))
    print(("FAIL %s-cpus %s" % (name, "; ".join(bad))) if bad else ("ok %s-cpus %s" % (name, cpus)))
    bad = []
    seen = []
    for i, n in enumerate(got):
        try:
            if "memory_bytes" in n or "mem_bytes" in n:
                b = first(n, "memory_bytes", "mem_bytes")
            else:
                b = first(n, "memory_kb", "mem_kb", "memory_kib") * 1024
        except KeyError as e:
            bad.append(str(e))
            continue
        size = want_mem[i] << 20
        seen.append("node%d=%dMiB" % (i, b >> 20))
        # the same bound as the guest's sysfs check (tests/vm/guest/vmtest.sh)
        lo = size - (64 << 20) if i == 0 else size * 0.95 - (4 << 20)
        if not (lo <= b <= size):
            bad.append("node%d %d bytes for %d MiB" % (i, b, want_mem[i]))
    print(("FAIL %s-mem %s" % (name, "; ".join(bad))) if bad else ("ok %s-mem %s" % (name, " ".join(seen))))
    bad = []
    for i, n in enumerate(got):
        try:
            d = [int(v) for v in first(n, "distances", "distance")]
        except KeyError as e:
            bad.append(str(e))
            continue
        if d != want_dist[i]:
            bad.append("node%d %s != %s" % (i, d, want_dist[i]))
    print(("FAIL %s-distance %s" % (name, "; ".join(bad))) if bad else ("ok %s-distance %s" % (name, dist)))


def guest(log, arch, nodes, cpus, mem, dist):
    data = vmdata(log)
    if "info" in data:
        check_info(arch, data["info"], nodes, cpus, mem, dist)


def vms(path, vmname, qpid, ncpu):
    print("FAIL host/list-vms-eval the check of 'vmmprof list vms --json' is not written yet")


def main(argv):
    if len(argv) == 8 and argv[1] == "guest":
        guest(*argv[2:])
    elif len(argv) == 6 and argv[1] == "vms":
        vms(*argv[2:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
