#!/usr/bin/env python3
"""compare.py - the Xen testbed's checks, run in dom0: what vmmprof reports
against what xl itself reports.  Each check prints one line
"VMTEST ok|fail|skip NAME [detail]".  python3 is in dom0 because xen-utils
depends on it.

    compare.py info|list|top|destroy DIR

DIR holds the outputs checks.sh collected (xl-*, info.json, list.json, ...).
Expected values come from xl's own outputs and from the domU's configuration
(dom0-init: memory=128, vcpus=2, cpus=["1", "0"]), never from vmmprof.
"""
import json
import os
import re
import sys

DOMU = "vptest"
DOMU_MEM_MIB = 128
DOMU_HARD = {0: {1}, 1: {0}}  # cpus = ["1", "0"] in dom0-init


def say(status, name, detail=""):
    detail = " ".join(str(detail).split())[:400]
    print("VMTEST %s %s%s" % (status, name, " " + detail if detail else ""), flush=True)


def read(d, name, default=""):
    try:
        with open(os.path.join(d, name), errors="replace") as f:
            return f.read()
    except OSError:
        return default


def cpuset(text, all_set):
    """'all' / '0-2,5' / [0,1] -> a set of ints."""
    if isinstance(text, list):
        return {int(x) for x in text}
    text = str(text).strip()
    if text == "all":
        return set(all_set)
    out = set()
    for part in filter(None, text.split(",")):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


# --- xl's outputs -----------------------------------------------------------

def xl_info(text):
    """'xl info -n' -> (nr_cpus, nr_nodes, {cpu: node})"""
    nr_cpus = nr_nodes = 0
    cpu_node = {}
    in_topo = False
    for line in text.splitlines():
        m = re.match(r"(\w+)\s*:\s*(.*)$", line)
        if m and m.group(1) == "nr_cpus":
            nr_cpus = int(m.group(2))
        if m and m.group(1) == "nr_nodes":
            nr_nodes = int(m.group(2))
        if line.startswith("cpu_topology"):
            in_topo = True
            continue
        if in_topo:
            m = re.match(r"\s*(\d+):\s+(\d+)\s+(\d+)\s+(\d+)\s*$", line)
            if m:
                cpu_node[int(m.group(1))] = int(m.group(4))
            elif not line.startswith("cpu:"):
                in_topo = False
    return nr_cpus, nr_nodes, cpu_node


def xl_vcpus(text, nr_cpus):
    """'xl vcpu-list' -> {(name, vcpu): {domid, cpu, state, time, hard, soft}}"""
    out = {}
    for line in text.splitlines()[1:]:
        m = re.match(r"(.*?)\s+(\d+)\s+(\d+)\s+(-|\d+)\s+(\S+)\s+([\d.]+)\s+(\S+) / (\S+)\s*$", line)
        if not m:
            continue
        out[(m.group(1), int(m.group(3)))] = {
            "domid": int(m.group(2)),
            "cpu": None if m.group(4) == "-" else int(m.group(4)),
            "state": m.group(5), "time": float(m.group(6)),
            "hard": cpuset(m.group(7), range(nr_cpus)),
            "soft": cpuset(m.group(8), range(nr_cpus)),
        }
    return out


def xl_list(text):
    """'xl list' (or 'xl list -n') -> {name: {domid, mem, vcpus[, nodes]}}"""
    out = {}
    for line in text.splitlines()[1:]:
        m = re.match(r"(.*?)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+([\d.]+)(?:\s+(\S+))?\s*$", line)
        if m:
            out[m.group(1)] = {"domid": int(m.group(2)), "mem": int(m.group(3)),
                               "vcpus": int(m.group(4)), "nodes": m.group(7)}
    return out


# --- vmmprof's JSON, looked up by the names the adapters use -----------------

def load_json(d, name):
    text = read(d, name)
    try:
        return json.loads(text), None
    except ValueError as e:
        return None, "%s is not JSON (%s): %r" % (name, e, text[:200])


def walk(o):
    yield o
    if isinstance(o, dict):
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)


def find_vm(doc, name):
    for o in walk(doc):
        if isinstance(o, dict) and o.get("name") == name and ("vcpus" in o or "domid" in o):
            return o
    return None


def pick(o, *keys):
    for k in keys:
        if isinstance(o, dict) and k in o:
            return k, o[k]
    return None, None


# --- the checks -------------------------------------------------------------

def check_info(d):
    rc = read(d, "info.rc").strip()
    doc, err = load_json(d, "info.json")
    if rc != "0" or doc is None:
        for n in ("info-role", "info-pmu-mode"):
            say("fail", n, "vmmprof info --json exited %s: %s %s" % (rc, err or "", read(d, "info.err")[:200]))
        return
    v = doc.get("virtualization", {})
    bad = []
    if str(v.get("hypervisor", "")).lower() != "xen":
        bad.append("hypervisor %r, want Xen (/sys/hypervisor/type: %s)" % (v.get("hypervisor"), read("/sys/hypervisor", "type").strip()))
    if v.get("role") != "host":
        bad.append("role %r, want host (evidence %r)" % (v.get("role"), v.get("role_evidence")))
    caps = read("/proc/xen", "capabilities").strip()
    if v.get("xen_dom0") is not True:
        bad.append("xen_dom0 %r, want true (/proc/xen/capabilities: %r)" % (v.get("xen_dom0"), caps))
    say("fail" if bad else "ok", "info-role", "; ".join(bad) or "host, Xen, dom0")

    # The truth: reading pmu_mode here fails (no vPMU under TCG); its error text.
    truth = read(d, "pmu_mode").strip()
    mode, reason = v.get("xen_pmu_mode"), v.get("xen_pmu_reason")
    m = re.match(r"cat: [^:]+: (.*)$", truth)
    if m:  # unreadable: vmmprof must say unknown, with the same reason
        if mode:
            say("fail", "info-pmu-mode", "pmu_mode %r but reading it fails: %s" % (mode, m.group(1)))
        elif not reason or m.group(1).lower() not in str(reason).lower():
            say("fail", "info-pmu-mode", "reason %r does not say %r" % (reason, m.group(1)))
        elif "Xen PMU mode" not in read(d, "info.txt"):
            say("fail", "info-pmu-mode", "the text output has no 'Xen PMU mode' line")
        else:
            say("ok", "info-pmu-mode", "unknown: %s" % reason)
    elif mode != truth:
        say("fail", "info-pmu-mode", "pmu_mode %r, file says %r" % (mode, truth))
    else:
        say("ok", "info-pmu-mode", mode)


def check_list(d):
    names = ("list-vms-domain", "list-vms-vcpus", "list-vms-memory")
    rc = read(d, "list.rc").strip()
    doc, err = load_json(d, "list.json")
    if rc != "0" or doc is None:
        for n in names:
            say("fail", n, "vmmprof list vms --json exited %s: %s %s" % (rc, err or "", read(d, "list.err")[:200]))
        return
    nr_cpus, nr_nodes, cpu_node = xl_info(read(d, "xl-info-n"))
    xl = xl_list(read(d, "xl-list")).get(DOMU)
    vm = find_vm(doc, DOMU)
    if xl is None:
        for n in names:
            say("fail", n, "xl list has no %s: %s" % (DOMU, read(d, "xl-list")))
        return
    if vm is None:
        for n in names:
            say("fail", n, "no VM named %s in list vms --json (xl list: domid %d)" % (DOMU, xl["domid"]))
        return
    _, domid = pick(vm, "domid", "domain_id", "id")
    _, hv = pick(vm, "hypervisor", "adapter")
    bad = []
    if domid != xl["domid"]:
        bad.append("domid %r, xl list says %d" % (domid, xl["domid"]))
    if hv is not None and str(hv).lower() != "xen":
        bad.append("hypervisor %r, want xen" % hv)
    say("fail" if bad else "ok", "list-vms-domain", "; ".join(bad) or "%s domid %d" % (DOMU, domid))

    # vCPUs: xl before and after the vmmprof call; pinned, so pCPU is fixed.
    before = xl_vcpus(read(d, "vcpu-before"), nr_cpus)
    after = xl_vcpus(read(d, "vcpu-after"), nr_cpus)
    _, vcpus = pick(vm, "vcpus")
    bad = []
    if not isinstance(vcpus, list):
        bad.append("no vcpus array")
        vcpus = []
    want_n = len([k for k in before if k[0] == DOMU])
    if len(vcpus) != want_n:
        bad.append("%d vCPUs, xl vcpu-list shows %d" % (len(vcpus), want_n))
    for i, v in enumerate(vcpus):
        _, idx = pick(v, "index", "vcpu", "id")
        idx = i if idx is None else idx
        b, a = before.get((DOMU, idx)), after.get((DOMU, idx))
        if not b or not a:
            bad.append("vCPU %r not in xl vcpu-list" % idx)
            continue
        k, cpu = pick(v, "cpu", "pcpu")
        if cpu not in (b["cpu"], a["cpu"]):
            bad.append("vCPU %d on pCPU %r, xl says %r/%r" % (idx, cpu, b["cpu"], a["cpu"]))
        k, aff = pick(v, "affinity", "hard_affinity", "cpus_allowed")
        try:
            got = cpuset(aff, range(nr_cpus)) if aff is not None else None
        except ValueError:
            got = None
        if got != b["hard"] or got != DOMU_HARD.get(idx):
            bad.append("vCPU %d hard affinity %r, xl says %s (configured %s)" % (idx, aff, sorted(b["hard"]), sorted(DOMU_HARD.get(idx, ()))))
        k, soft = pick(v, "soft_affinity")
        if soft is not None and cpuset(soft, range(nr_cpus)) != b["soft"]:
            bad.append("vCPU %d soft affinity %r, xl says %s" % (idx, soft, sorted(b["soft"])))
        k, node = pick(v, "node")
        if node is not None and cpu is not None and node != cpu_node.get(cpu):
            bad.append("vCPU %d node %r, xl info -n puts pCPU %r on node %r" % (idx, node, cpu, cpu_node.get(cpu)))
        k, t = pick(v, "cpu_time_s", "time_s", "cpu_time")
        if isinstance(t, (int, float)) and not (b["time"] - 0.05 <= t <= a["time"] + 0.15):
            bad.append("vCPU %d time %.2f s outside xl's %.1f..%.1f s" % (idx, t, b["time"], a["time"]))
    say("fail" if bad else "ok", "list-vms-vcpus", "; ".join(bad) or
        "; ".join("vCPU %s on pCPU %s" % (pick(v, "index")[1], pick(v, "cpu")[1]) for v in vcpus))

    # memory (xl list's Mem, MiB) and node affinity (xl list -n)
    bad = []
    k, mem = pick(vm, "mem_size", "memory_bytes", "mem_bytes", "memory")
    if isinstance(mem, (int, float)):
        if mem not in (xl["mem"] * 1024 * 1024, xl["mem"]):
            bad.append("%s %r, xl list says %d MiB" % (k, mem, xl["mem"]))
    else:
        bad.append("no memory size (xl list: %d MiB)" % xl["mem"])
    nodes = xl_list(read(d, "xl-list-n")).get(DOMU, {}).get("nodes")
    k, na = pick(vm, "node_affinity", "nodes")
    if nodes is None:
        bad.append("xl list -n has no NODE Affinity for %s" % DOMU)
    elif na is None:
        bad.append("no node affinity (xl list -n: %s)" % nodes)
    else:
        try:
            if cpuset(na, range(nr_nodes)) != cpuset(nodes, range(nr_nodes)):
                bad.append("node affinity %r, xl list -n says %s" % (na, nodes))
        except ValueError:
            bad.append("node affinity %r is not a node list (xl list -n: %s)" % (na, nodes))
    say("fail" if bad else "ok", "list-vms-memory", "; ".join(bad) or
        "%d MiB, node affinity %s" % (xl["mem"], nodes))


NA = re.compile(r"\bn/a\b")


def check_top(d):
    rc = read(d, "top.rc").strip()
    text = read(d, "top.txt")
    bad = []
    if rc != "0":
        bad.append("exit %s: %s" % (rc, read(d, "top.err")[:200]))
    if DOMU not in text:
        bad.append("no %s row" % DOMU)
    if not NA.search(text):
        bad.append("no factor marked n/a")
    # without a PMU, a factor that shows a number must not be a hardware count:
    # a row of zeros where n/a belongs is the failure this looks for
    if re.search(r"\b0\.0+ *%", text) and not NA.search(text):
        bad.append("zeros where n/a belongs")
    if os.path.exists(os.path.join(d, "top.jsonl")):
        lines = [l for l in read(d, "top.jsonl").splitlines() if l.strip()]
        try:
            recs = [json.loads(l) for l in lines]
        except ValueError as e:
            recs = []
            bad.append("--json line is not JSON: %s" % e)
        if read(d, "top-json.rc").strip() != "0":
            bad.append("--json exited %s" % read(d, "top-json.rc").strip())
        if recs and find_vm(recs, DOMU) is None:
            bad.append("--json has no %s" % DOMU)
        reasons = [o for o in walk(recs) if isinstance(o, dict) and o.get("reason")]
        if recs and not reasons:
            bad.append("--json gives no reason for what it cannot measure")
    say("fail" if bad else "ok", "top-batch", "; ".join(bad) or "rows for %s, n/a with reasons" % DOMU)


def check_destroy(d):
    rc = read(d, "destroy.rc").strip()
    text = read(d, "destroy.txt")
    bad = []
    if rc != "0":
        bad.append("exit %s after the domain went: %s" % (rc, read(d, "destroy.err")[-300:]))
    if read(d, "destroy.xl").strip():
        bad.append("xl destroy: %s" % read(d, "destroy.xl")[:200])
    # batch output is a sequence of intervals; the domU is in the first ones
    # and not in the last
    blocks = [b for b in re.split(r"\n(?=\S.*\binterval\b|\S*top\b.*\d\d:\d\d)", text) if b.strip()]
    if DOMU not in text:
        bad.append("%s never appeared" % DOMU)
    elif len(blocks) > 1 and DOMU in blocks[-1]:
        bad.append("%s still in the last interval" % DOMU)
    say("fail" if bad else "ok", "domu-destroyed-midrun", "; ".join(bad) or "exit 0, rows end")


if __name__ == "__main__":
    check = {"info": check_info, "list": check_list, "top": check_top, "destroy": check_destroy}
    check[sys.argv[1]](sys.argv[2])
