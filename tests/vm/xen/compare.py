#!/usr/bin/env python3
"""compare.py - the Xen testbed's checks, run in dom0: what vmmprof reports
against what xl itself reports.  Each check prints one line
"VMTEST ok|fail|skip NAME [detail]".  python3 is in dom0 because xen-utils
depends on it.

    compare.py info|list|diagnose|top|daemon|destroy DIR
    compare.py daemon-fetch DIR URL TOKENFILE   (the daemon check's client)

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
        elif "counts for every domain" in read(d, "info.txt"):
            say("fail", "info-pmu-mode", "the text claims dom0 counts for every domain")
        elif "vpmu=1" not in str(v.get("xen_domain_pmu_reason")):
            say("fail", "info-pmu-mode", "xen_domain_pmu_reason %r does not name vpmu=1"
                % v.get("xen_domain_pmu_reason"))
        else:
            say("ok", "info-pmu-mode", "unknown: %s; per domain: %s" % (reason, v.get("xen_domain_pmu_reason")))
    elif mode != truth:
        say("fail", "info-pmu-mode", "pmu_mode %r, file says %r" % (mode, truth))
    else:
        say("ok", "info-pmu-mode", mode)
    check_info_topology(d, doc)


def xl_numa_info(text):
    """'xl info -n' numa_info -> {node: (memsize MiB, distances)}"""
    out, on = {}, False
    for line in text.splitlines():
        if line.startswith("numa_info"):
            on = True
            continue
        if on:
            m = re.match(r"\s*(\d+):\s+(\d+)\s+(\d+)\s+([\d,]+)\s*$", line)
            if m:
                out[int(m.group(1))] = (int(m.group(2)), [int(x) for x in m.group(4).split(",")])
            elif not line.startswith("node:"):
                on = False
    return out


def check_info_topology(d, doc):
    """The machine's topology as xl info -n has it; dom0's own view kept apart; PSR's reason."""
    text = read(d, "xl-info-n")
    nr_cpus, nr_nodes, cpu_node = xl_info(text)
    numa = xl_numa_info(text)
    t = doc.get("topology", {})
    bad = []
    if t.get("source") != "xen":
        bad.append("topology source %r, want xen" % t.get("source"))
    nodes = {n.get("id"): n for n in t.get("nodes", [])}
    if set(nodes) != set(numa) or len(nodes) != nr_nodes:
        bad.append("nodes %s, xl info -n has %s (nr_nodes %d)" % (sorted(nodes), sorted(numa), nr_nodes))
    for nid, (mib, dist) in numa.items():
        n = nodes.get(nid, {})
        want = {c for c, x in cpu_node.items() if x == nid}
        if cpuset(n.get("cpus", ""), range(nr_cpus)) != want:
            bad.append("node %d cpus %r, xl: %s" % (nid, n.get("cpus"), sorted(want)))
        if n.get("mem_total_bytes") != mib << 20:
            bad.append("node %d memory %r, xl: %d MiB" % (nid, n.get("mem_total_bytes"), mib))
    dist = t.get("distance")
    if dist != [numa[k][1] for k in sorted(numa)]:
        bad.append("distances %r, xl: %r" % (dist, [numa[k][1] for k in sorted(numa)]))
    if t.get("n_cpus") != nr_cpus:
        bad.append("n_cpus %r, xl nr_cpus %d" % (t.get("n_cpus"), nr_cpus))
    d0 = doc.get("dom0_topology") or {}
    sys_nodes = len([x for x in os.listdir("/sys/devices/system/node") if re.match(r"node\d+$", x)])
    if len(d0.get("nodes", [])) != sys_nodes:
        bad.append("dom0_topology has %d nodes, dom0's sysfs %d" % (len(d0.get("nodes", [])), sys_nodes))
    say("fail" if bad else "ok", "info-topology-xen", "; ".join(bad) or
        "%d pCPUs, nodes %s as xl info -n; dom0's own view %d node(s)" % (nr_cpus, sorted(numa), sys_nodes))
    v = doc.get("virtualization", {})
    why = str(v.get("xen_psr_reason"))
    if v.get("xen_psr") is not False or "psr=cmt" not in why:
        say("fail", "info-psr-reason", "xen_psr %r, reason %r: want false naming psr=cmt" % (v.get("xen_psr"), why))
    else:
        say("ok", "info-psr-reason", why)


def check_xentrace(d):
    """vCPU 0 of vptest, pinned to pCPU 1 (made busy once xentrace runs), moved to pCPU 0
    mid-trace: its traced seconds per pCPU against xl vcpu-list's Time(s) around the trace, and
    dom0's wall clock (uptime) at each step.

    Readings (checks.sh): t0 before vmmprof starts; wd the last time xentrace was not running
    yet (the trace [A, B] begins after it: A >= wd); ta when xentrace appeared (wa); tp 3 s
    later, just before the move (wpin); ts just after it (w1); ts2 3 s later (ws2); wexit when
    vmmprof had exited (B <= wexit); t2 after that.  trace_s (first to last stamp) <= B - A.
    The physics: a vCPU's CPU time grows by at most the wall time, it is on pCPU 1 until the
    move and on pCPU 0 after it, and the trace holds all of its run time in [A, B].  So, with
    r = 0.1 s for two roundings of xl's Time(s) (0.1 s steps) and the trace's TSC-to-seconds
    conversion (Xen calibrates cpu_mhz itself, under TCG on a loaded host) allowed 5 %:
      upper: pCPU 1 <= ts - t0 + r and pCPU 0 <= t2 - tp + r (the trace lies inside them;
             the move happens inside 'xl vcpu-pin', between tp and ts, so time on pCPU 0
             begins after tp, not after ts)
      lower: pCPU 1 >= tp - ta - r when [wa, wpin] lies in the trace: wa >= A, which holds
             if wa >= wexit - trace_s (A = B - (B - A) <= wexit - trace_s), and wpin <= B,
             which holds if wpin <= wd + trace_s (B >= A + trace_s >= wd + trace_s);
             pCPU 0 >= ts2 - ts - r when ws2 <= wd + trace_s (the reading before B).
    Load stretches the steps; a lower bound whose condition does not hold is not checked and
    the detail says so (never a wall-clock guess)."""
    rc = read(d, "trace.rc").strip()
    doc, err = load_json(d, "trace.json")
    if rc != "0" or doc is None:
        say("fail", "xentrace-residency", "list vms --xentrace exited %s: %s %s" % (rc, err or "", read(d, "trace.err")[:300]))
        return
    nr_cpus = xl_info(read(d, "xl-info-n"))[0]
    t = {}
    for n in ("before", "a", "p", "switch", "s2", "after"):
        t[n] = xl_vcpus(read(d, "trace-vcpu-" + n), nr_cpus).get(("vptest", 0))
    vm = find_vm(doc, "vptest")
    try:
        w = {n: float(read(d, "trace-w" + n).strip()) for n in ("0", "d", "a", "pin", "1", "s2", "exit", "2")}
    except ValueError:
        w = None
    if not all(t.values()) or not vm or w is None:
        say("fail", "xentrace-residency", "missing xl readings, wall-clock stamps or vptest in the JSON")
        return
    reason = vm.get("trace_reason") or ""
    runs = (vm.get("vcpus") or [{}])[0].get("traced_run_s_per_pcpu")
    trace_s = vm.get("trace_s")
    if runs is None or not trace_s:
        say("fail", "xentrace-residency", "no traced residency: %s" % reason)
        return
    trace_s = float(trace_s)
    on1, on0 = float(runs.get("1", 0)), float(runs.get("0", 0))
    r, conv = 0.1, 0.05
    tm = {k: v["time"] for k, v in t.items()}
    # the move takes effect somewhere inside 'xl vcpu-pin' (tens of seconds under TCG at
    # load): after the reading just before it (p), before the one just after it (switch)
    up1, up0 = tm["switch"] - tm["before"] + r, tm["after"] - tm["p"] + r
    bad, notes = [], []
    if t["p"]["cpu"] != 1 or t["switch"]["cpu"] != 0 or t["s2"]["cpu"] != 0:
        bad.append("xl placed vCPU 0 on pCPU %s before the move, %s and %s after, the test wants 1, 0, 0"
                   % (t["p"]["cpu"], t["switch"]["cpu"], t["s2"]["cpu"]))
    if not on1 > 0 or not on0 > 0:
        bad.append("traced %.3f s on pCPU 1 and %.3f s on pCPU 0: it ran on both" % (on1, on0))
    if on1 * (1 - conv) > up1:
        bad.append("traced %.3f s on pCPU 1 > %.1f s of CPU time up to the move" % (on1, up1))
    if on0 * (1 - conv) > up0:
        bad.append("traced %.3f s on pCPU 0 > %.1f s of CPU time after the move" % (on0, up0))
    if trace_s * (1 - conv) > w["2"] - w["0"]:
        bad.append("trace of %.2f s longer than the %.2f s of wall time around it" % (trace_s, w["2"] - w["0"]))
    lo1 = lo0 = None
    if w["a"] >= w["exit"] - trace_s and w["pin"] <= w["d"] + trace_s:
        lo1 = tm["p"] - tm["a"] - r
        if on1 * (1 + conv) < lo1:
            bad.append("traced %.3f s on pCPU 1 < %.2f s that xl counted inside the trace before the move" % (on1, lo1))
    else:
        notes.append("pCPU 1 lower bound not checked: the readings at +3 s (%.1f) and before the move (%.1f) "
                     "are not provably inside the trace (%.1f..%.1f s, %.1f s long)"
                     % (w["a"], w["pin"], w["d"], w["exit"], trace_s))
    if w["s2"] <= w["d"] + trace_s:
        lo0 = tm["s2"] - tm["switch"] - r
        if on0 * (1 + conv) < lo0:
            bad.append("traced %.3f s on pCPU 0 < %.2f s that xl counted inside the trace after the move" % (on0, lo0))
    else:
        notes.append("pCPU 0 lower bound not checked: the reading 3 s after the move (%.1f) is not provably "
                     "before the trace's end (>= %.1f)" % (w["s2"], w["d"] + trace_s))
    for k, x in runs.items():
        if int(k) not in (0, 1) and x > 0:
            bad.append("traced on pCPU %s, which does not exist" % k)
    fmt = lambda lo: "-" if lo is None else "%.2f" % lo
    say("fail" if bad else "ok", "xentrace-residency", "; ".join(bad + notes) if bad else
        "pCPU 1 %.3f s in [%s, %.1f], pCPU 0 %.3f s in [%s, %.1f] (xl Time(s) inside and around the %.2f s "
        "trace)%s; %s" % (on1, fmt(lo1), up1, on0, fmt(lo0), up0, trace_s,
                          "; " + "; ".join(notes) if notes else "", reason))


def check_top_xentrace(d):
    """top --json --xentrace -n 4 -d 1, vptest's vCPU 0 hard-pinned to pCPU 0 (node 0) and
    moved to pCPU 1 (node 1) after top's second sample: m1 samples were out before the move
    began, m2 when it was done.  Sample j covers [scan j-1, scan j].  Exact residency says:
      samples 2..m1 (before the move): no run time on pCPU 1's node (it could not run there);
      samples m2+2..4 (after it): none on pCPU 0's node;
      samples m1+1..m2+1 (the move inside): run time on both nodes -- the one interval in
      which sampling would charge everything to one node (the vCPU's load runs every 0.5 s,
      so it runs on both sides of the move);
    and every sample after the first is labelled 'xentrace' / measured, the notes say exact,
    and no xentrace runs after top exited (it turned Xen's tracing off)."""
    rc = read(d, "top-trace.rc").strip()
    if rc != "0":
        say("fail", "top-xentrace", "top --xentrace exited %s: %s" % (rc, read(d, "top-trace.err")[:300]))
        return
    try:
        samples = [json.loads(l) for l in read(d, "top-trace.jsonl").splitlines() if l.strip()]
        m1, m2 = int(read(d, "top-trace-before-move")), int(read(d, "top-trace-after-move"))
    except ValueError as e:
        say("fail", "top-xentrace", "unreadable: %s" % e)
        return
    node_of = xl_info(read(d, "xl-info-n"))[2]
    n0, n1 = node_of.get(0), node_of.get(1)
    bad, per, later = [], {}, []
    if len(samples) != 4:
        bad.append("%d samples, not 4" % len(samples))
    for j, s in enumerate(samples[1:], 2):
        notes = s.get("notes") or ""
        if "Xen residency per node: exact, from Xen's scheduler trace" not in notes:
            bad.append("sample %d notes: %s" % (j, notes[:200]))
        nodes = [n.get("node") for n in s.get("nodes", [])]
        c = [c for c in s.get("vcpus", []) if c.get("vm") == "vptest" and c.get("vcpu") == 0]
        res = (c[0].get("residency") or {}) if c else {}
        if res.get("source") != "xentrace" or res.get("quality") != "measured":
            bad.append("sample %d: vptest vCPU 0 residency %r" % (j, res))
            continue
        per[j] = dict(zip(nodes, res.get("node_run_s") or []))
    before = [j for j in per if j <= m1]
    after = [j for j in per if j >= m2 + 2]
    during = [j for j in per if m1 < j <= m2 + 1]
    for j in before:
        if (per[j].get(n1) or 0) > 0:
            bad.append("sample %d, before the move: %.3f s on node %s, where it could not run" % (j, per[j][n1], n1))
    for j in after:
        if (per[j].get(n0) or 0) > 0:
            bad.append("sample %d, after the move: %.3f s on node %s, where it could not run" % (j, per[j][n0], n0))
    if not before or not after or not during:
        bad.append("samples before the move %s, with it %s, after it %s: the schedule did not happen" % (before, during, after))
    else:
        on0 = sum(per[j].get(n0) or 0 for j in during)
        on1 = sum(per[j].get(n1) or 0 for j in during)
        nxt = per.get(max(during) + 1) or {}
        if on0 > 0 and on1 == 0 and (nxt.get(n1) or 0) > 0 and not (nxt.get(n0) or 0):
            # the vCPU (a small load every 0.5 s) did not run between the move
            # and the end of its interval: `xl vcpu-pin` under TCG can take most
            # of a sample (seen: 0.008 s on node 0, then nothing until the next
            # sample, 0.039 s on node 1).  Exact residency then rightly puts the
            # interval on node 0 alone and the change of node in the next one;
            # the samples before and after are held to one node each above
            later.append("the vCPU ran on node %s only after the interval of the move ended "
                         "(%.3f s there in sample %d)" % (n1, nxt.get(n1), max(during) + 1))
        elif not (on0 > 0 and on1 > 0):
            bad.append("interval(s) %s with the move: %.3f s on node %s and %.3f s on node %s, want both > 0" % (during, on0, n0, on1, n1))
    if read(d, "top-trace-after").strip():
        bad.append("xentrace still running after top exited (pid %s)" % read(d, "top-trace-after").strip())
    say("fail" if bad else "ok", "top-xentrace", "; ".join(bad) or
        "vptest vCPU 0 run time per node by sample (move after sample %d, done by %d): %s%s"
        % (m1, m2, {j: {k: round(v, 3) for k, v in x.items()} for j, x in per.items()},
           "; " + "; ".join(later) if later else ""))


def xl_numa_pages(text):
    """The newest 'xl debug-keys u' dump in an 'xl dmesg' text ->
    {domid: {node: pages}}: the lines after the last "Memory location of
    each domain:", "Domain N (total: T):" (Xen 4.17) or "dN (total: T):"
    (later), "    Node n: pages"."""
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if "Memory location of each domain:" in l]
    out, dom = {}, None
    for line in lines[starts[-1] + 1:] if starts else []:
        m = re.match(r"\(XEN\)\s+(?:Domain |d)(\d+) \(total: \d+\):\s*$", line)
        if m:
            dom = int(m.group(1))
            out[dom] = {}
            continue
        m = re.match(r"\(XEN\)\s+Node (\d+): (\d+)\s*$", line)
        if m and dom is not None:
            out[dom][int(m.group(1))] = int(m.group(2))
    return out


def dump_count(text):
    return sum("Memory location of each domain:" in l for l in text.splitlines())


def check_list(d):
    names = ("list-vms-domain", "list-vms-vcpus", "list-vms-memory",
             "list-vms-node-affinity", "list-vms-memory-per-node", "list-vms-memory-per-node-opt-in")
    rc = read(d, "list.rc").strip()
    doc, err = load_json(d, "list.json")
    if rc != "0" or doc is None:
        for n in names:
            say("fail", n, "vmmprof list vms --json exited %s: %s %s" % (rc, err or "", read(d, "list.err")[:200]))
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("vms"), list):
        for n in names:
            say("skip", n, "waiting for vmmprof list vms")
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

    # the domain: name, domid, hypervisor; and Domain-0 marked as dom0
    bad = []
    if vm.get("domid") != xl["domid"]:
        bad.append("domid %r, xl list says %d" % (vm.get("domid"), xl["domid"]))
    if str(vm.get("hypervisor")).lower() != "xen":
        bad.append("hypervisor %r, want xen" % vm.get("hypervisor"))
    if vm.get("dom0") is not False:
        bad.append("dom0 %r for a domU" % vm.get("dom0"))
    d0 = find_vm(doc, "Domain-0")
    if d0 is not None and (d0.get("domid") != 0 or d0.get("dom0") is not True):
        bad.append("Domain-0 listed with domid %r dom0 %r" % (d0.get("domid"), d0.get("dom0")))
    say("fail" if bad else "ok", "list-vms-domain", "; ".join(bad) or "%s domid %d" % (DOMU, vm["domid"]))

    # vCPUs: xl before and after the vmmprof call; pinned, so the pCPU is fixed
    before = xl_vcpus(read(d, "vcpu-before"), nr_cpus)
    after = xl_vcpus(read(d, "vcpu-after"), nr_cpus)
    vcpus = vm.get("vcpus")
    bad = []
    if not isinstance(vcpus, list):
        bad.append("no vcpus array")
        vcpus = []
    want_n = len([k for k in before if k[0] == DOMU])
    if len(vcpus) != want_n:
        bad.append("%d vCPUs, xl vcpu-list shows %d" % (len(vcpus), want_n))
    for v in vcpus:
        idx = v.get("index")
        b, a = before.get((DOMU, idx)), after.get((DOMU, idx))
        if not b or not a:
            bad.append("vCPU %r not in xl vcpu-list" % idx)
            continue
        cpu = v.get("cpu")
        if cpu not in (b["cpu"], a["cpu"]):
            bad.append("vCPU %d on pCPU %r, xl says %r/%r" % (idx, cpu, b["cpu"], a["cpu"]))
        aff = v.get("affinity")
        try:
            got = cpuset(aff, range(nr_cpus)) if aff is not None else None
        except ValueError:
            got = None
        if got != b["hard"] or got != DOMU_HARD.get(idx):
            bad.append("vCPU %d hard affinity %r, xl says %s (configured %s)" % (
                idx, aff, sorted(b["hard"]), sorted(DOMU_HARD.get(idx, ()))))
        soft = v.get("soft_affinity")
        try:
            sgot = cpuset(soft, range(nr_cpus)) if soft is not None else None
        except ValueError:
            sgot = None
        if sgot != b["soft"]:
            bad.append("vCPU %d soft affinity %r, xl says %s" % (idx, soft, sorted(b["soft"])))
        node = v.get("node")
        if cpu is not None and node != cpu_node.get(cpu):
            bad.append("vCPU %d node %r, xl info -n puts pCPU %r on node %r" % (idx, node, cpu, cpu_node.get(cpu)))
        t = v.get("cpu_time_s")
        if not isinstance(t, (int, float)) or not (b["time"] - 0.05 <= t <= a["time"] + 0.15):
            bad.append("vCPU %d time %r s outside xl's %.1f..%.1f s" % (idx, t, b["time"], a["time"]))
        # running and blocked flicker between xl's readings and vmmprof's (a blocked
        # vCPU of the idle domU woken for a tick: '---' runnable, once at load ~20);
        # the paused bit does not, so: one of xl's states, or one of xl's form with
        # the paused bit both of xl's readings show
        st = v.get("state")
        flicker = (isinstance(st, str) and re.fullmatch(r"[r-][b-][p-]", st) is not None and
                   b["state"][2:3] == a["state"][2:3] == st[2:3])
        if st not in (b["state"], a["state"]) and not flicker:
            bad.append("vCPU %d state %r, xl says %r/%r" % (idx, st, b["state"], a["state"]))
    say("fail" if bad else "ok", "list-vms-vcpus", "; ".join(bad) or "; ".join(
        "vCPU %s on pCPU %s node %s affinity %s" % (v.get("index"), v.get("cpu"), v.get("node"), v.get("affinity"))
        for v in vcpus))

    # memory: xl list's Mem (MiB)
    mem = vm.get("mem_size_bytes")
    if mem == xl["mem"] * 1024 * 1024 and xl["mem"] == DOMU_MEM_MIB:
        say("ok", "list-vms-memory", "%d MiB" % xl["mem"])
    else:
        say("fail", "list-vms-memory", "mem_size_bytes %r, xl list says %d MiB (configured %d)" % (
            mem, xl["mem"], DOMU_MEM_MIB))

    # node affinity: xl list -n
    nodes = xl_list(read(d, "xl-list-n")).get(DOMU, {}).get("nodes")
    na = vm.get("node_affinity")
    if nodes is None:
        say("fail", "list-vms-node-affinity", "xl list -n has no NODE Affinity for %s" % DOMU)
    elif na is None:
        say("skip", "list-vms-node-affinity", "waiting for node affinity in vmmprof list vms (xl list -n says %s)" % nodes)
    else:
        try:
            same = cpuset(na, range(nr_nodes)) == cpuset(nodes, range(nr_nodes))
        except ValueError:
            same = False
        say("ok" if same else "fail", "list-vms-node-affinity",
            "%s" % nodes if same else "node_affinity %r, xl list -n says %s" % (na, nodes))

    # memory per node: only with --xen-numa-dump; without it, unknown with
    # the way to get it, and nothing written to Xen's console ring
    vm_plain = vm
    reason = str(vm_plain.get("mem_reason"))
    before, after = read(d, "dmesg-list-before"), read(d, "dmesg-list-after")
    same_start = before.splitlines()[:1] == after.splitlines()[:1]
    bad = []
    if vm_plain.get("mem_node_bytes") is not None:
        bad.append("mem_node_bytes %r without --xen-numa-dump" % vm_plain.get("mem_node_bytes"))
    if "--xen-numa-dump" not in reason:
        bad.append("mem_reason %r does not name --xen-numa-dump" % reason)
    if same_start and dump_count(after) != dump_count(before):
        bad.append("'xl dmesg' has %d dumps after 'list vms', %d before: it asked Xen without the opt-in"
                   % (dump_count(after), dump_count(before)))
    say("fail" if bad else "ok", "list-vms-memory-per-node-opt-in", "; ".join(bad) or
        "unknown without --xen-numa-dump, and says so: %s" % reason)

    check_numa_dump(d, xl)


def load_run(d, name, base, what):
    """The JSON a vmmprof run left in BASE.json (exit status in BASE.rc,
    standard error in BASE.err); None after saying skip (it did not run)
    or fail (it failed) for check NAME."""
    if not read(d, base + ".rc"):
        say("skip", name, "waiting for 'vmmprof %s'" % what)
        return None
    doc, err = load_json(d, base + ".json")
    rc = read(d, base + ".rc").strip()
    if rc != "0" or doc is None:
        say("fail", name, "%s exited %s: %s %s" % (what, rc, err or "", read(d, base + ".err")[:200]))
        return None
    return doc


def check_numa_dump(d, xl):
    """list vms --xen-numa-dump against the dump it made Xen print, read
    back here with 'xl dmesg' right after; the total against 'xl list'."""
    name = "list-vms-memory-per-node"
    doc = load_run(d, name, "list-numa", "list vms --xen-numa-dump --json")
    if doc is None:
        return
    before, after = read(d, "dmesg-numa-before"), read(d, "dmesg-numa-after")
    pages = xl_numa_pages(after)
    bad = []
    # vmmprof asked Xen for exactly one dump (when the ring did not wrap meanwhile)
    if before.splitlines()[:1] == after.splitlines()[:1] and dump_count(after) != dump_count(before) + 1:
        bad.append("'xl dmesg' has %d dumps after vmmprof, %d before: want one more" % (
            dump_count(after), dump_count(before)))
    for dom_name, domid in ((DOMU, xl["domid"]), ("Domain-0", 0)):
        vm = find_vm(doc, dom_name)
        want = {n: p * 4096 for n, p in pages.get(domid, {}).items()}
        mn = vm.get("mem_node_bytes") if vm else None
        got = {int(k): v for k, v in mn.items()} if isinstance(mn, dict) else mn
        if not want:
            bad.append("no dump of domain %d in 'xl dmesg' after vmmprof ran" % domid)
        elif got != want:
            bad.append("%s mem_node_bytes %r, Xen's dump says %r (reason %r)" % (
                dom_name, got, want, vm and vm.get("mem_reason")))
    vm = find_vm(doc, DOMU)
    mn = vm.get("mem_node_bytes") if vm else None
    total = sum(mn.values()) if isinstance(mn, dict) else None
    if total != xl["mem"] * 1024 * 1024:
        bad.append("%s total %r bytes, xl list says %d MiB" % (DOMU, total, xl["mem"]))
    say("fail" if bad else "ok", name, "; ".join(bad) or "%s: %s bytes per node, total %d MiB = xl list" % (
        DOMU, {n: p * 4096 for n, p in sorted(pages.get(xl["domid"], {}).items())}, xl["mem"]))


def check_diagnose(d):
    """diagnose --xen-numa-dump: the domU's memory per node is Xen's dump
    (read back here after it ran), and its placement estimate of locality
    weighs it: whatever share of run time each node had, the VM's remote
    share lies between the smallest and the largest share of its pages not
    on one node."""
    name = "diagnose-memory-per-node"
    doc = load_run(d, name, "diag-numa", "diagnose --xen-numa-dump --json")
    if doc is None:
        return
    xl = xl_list(read(d, "xl-list")).get(DOMU)
    vms = [v for v in doc.get("diagnosis", {}).get("vms", []) if v.get("vm") == DOMU]
    if xl is None or not vms:
        say("fail", name, "xl list has %s: %r; diagnose lists it: %r" % (DOMU, xl, bool(vms)))
        return
    vm, bad = vms[0], []
    pages = xl_numa_pages(read(d, "dmesg-diag-after")).get(xl["domid"], {})
    want = {n: p * 4096 for n, p in pages.items()}
    mn = vm.get("mem_node_bytes")
    got = {int(k): v for k, v in mn.items()} if isinstance(mn, dict) else mn
    if not want:
        bad.append("no dump of domain %d in 'xl dmesg' after diagnose ran" % xl["domid"])
    elif got != want:
        bad.append("mem_node_bytes %r, Xen's dump says %r (reason %r)" % (got, want, vm.get("mem_reason")))
    total = sum(pages.values())
    score = vm.get("factors", {}).get("locality", {}).get("score")
    if total:
        shares = [1 - p / total for p in pages.values()]
        if score is None or not min(shares) - 1e-9 <= score <= max(shares) + 1e-9:
            bad.append("locality score %r, not within the pages not on one node: %r" % (score, shares))
    say("fail" if bad else "ok", name, "; ".join(bad) or "%s: %r bytes per node as Xen's dump; locality %r" % (
        DOMU, want, score))


def load_jsonl(d, name):
    recs, bad = [], None
    for line in read(d, name).splitlines():
        if not line.strip():
            continue
        try:
            recs.append(json.loads(line))
        except ValueError as e:
            bad = "a line of %s is not JSON (%s): %r" % (name, e, line[:120])
    return recs, bad


def factor_problems(rows, what):
    """Every factor has a quality; an unavailable one has no value and a reason."""
    bad = []
    for r in rows:
        for f, q in (r.get("factors") or {}).items():
            if q.get("quality") == "unavailable":
                if q.get("value") is not None:
                    bad.append("%s %s: unavailable but value %r" % (what, f, q.get("value")))
                if not q.get("why"):
                    bad.append("%s %s: unavailable without a reason" % (what, f))
            elif q.get("quality") is None:
                bad.append("%s %s: no quality label" % (what, f))
    return bad


def check_top(d):
    xl = xl_list(read(d, "xl-list")).get(DOMU, {})
    nr_cpus, _, cpu_node = xl_info(read(d, "xl-info-n"))
    vc = xl_vcpus(read(d, "xl-vcpu-list"), nr_cpus)
    bad = []
    # text: two samples, the domU's row, n/a with a reason for the factors
    rc = read(d, "top.rc").strip()
    text = read(d, "top.txt")
    if rc != "0":
        bad.append("--batch exit %s: %s" % (rc, read(d, "top.err")[:200]))
    if len(re.findall(r"^vmmprof top: sample", text, re.M)) != 2:
        bad.append("--batch -n 2 printed %d samples" % len(re.findall(r"^vmmprof top: sample", text, re.M)))
    if not re.search(r"^%s\s+xen\s+%s\s" % (DOMU, xl.get("domid")), text, re.M):
        bad.append("no VMS row '%s xen %s'" % (DOMU, xl.get("domid")))
    na_lines = re.findall(r"^(\w+) n/a: (.+)$", text, re.M)
    if not na_lines or any(not why.strip() for _, why in na_lines):
        bad.append("no factor marked n/a with a reason")
    # JSON lines: the same, field by field
    recs, err = load_jsonl(d, "top.jsonl")
    if err:
        bad.append(err)
    if read(d, "top-json.rc").strip() != "0":
        bad.append("--json exit %s" % read(d, "top-json.rc").strip())
    if len(recs) != 2:
        bad.append("--json -n 2 printed %d samples" % len(recs))
    for r in recs[-1:]:
        vms = [v for v in r.get("vms", []) if v.get("name") == DOMU]
        if not vms or vms[0].get("id") != xl.get("domid") or vms[0].get("hypervisor") != "xen":
            bad.append("--json vms has no %s with id %s" % (DOMU, xl.get("domid")))
        bad += factor_problems(vms, DOMU)
        rows = [c for c in r.get("vcpus", []) if c.get("vm") == DOMU]
        if len(rows) != 2:
            bad.append("--json has %d vCPU rows for %s" % (len(rows), DOMU))
        for c in rows:
            x = vc.get((DOMU, c.get("vcpu")))
            if not x or c.get("cpu") != x["cpu"] or c.get("node") != cpu_node.get(x["cpu"]):
                bad.append("--json vCPU %r on pCPU %r node %r, xl says pCPU %r" % (
                    c.get("vcpu"), c.get("cpu"), c.get("node"), x and x["cpu"]))
        bad += factor_problems(rows, DOMU + " vCPU")
        if not any(q.get("quality") == "unavailable" for v in vms + rows
                   for q in (v.get("factors") or {}).values()):
            bad.append("no factor unavailable, yet dom0 has no PMU")
    say("fail" if bad else "ok", "top-batch", "; ".join(bad) or
        "2 samples; %s rows; unavailable factors say why" % DOMU)

    # with --xen-numa-dump: the domU's memory is known, and is xl list's
    if not read(d, "top-numa.rc"):
        say("skip", "top-xen-numa-dump", "waiting for 'vmmprof top --xen-numa-dump'")
        return
    recs, err = load_jsonl(d, "top-numa.jsonl")
    vms = [v for r in recs[-1:] for v in r.get("vms", []) if v.get("name") == DOMU]
    want = xl.get("mem", -1) * 1024 * 1024
    if read(d, "top-numa.rc").strip() != "0" or err or not vms:
        say("fail", "top-xen-numa-dump", "exit %s %s %s" % (read(d, "top-numa.rc").strip(), err or "",
                                                          read(d, "top-numa.err")[:200]))
    elif vms[0].get("mem_bytes") != want:
        say("fail", "top-xen-numa-dump", "mem_bytes %r, xl list says %r" % (vms[0].get("mem_bytes"), want))
    else:
        say("ok", "top-xen-numa-dump", "%s mem_bytes %d = xl list" % (DOMU, want))

    # with --xen-psr: no RDT under TCG, so n/a, and the reason names psr=cmt
    if not read(d, "top-psr.rc"):
        say("skip", "top-xen-psr-na", "waiting for 'vmmprof top --xen-psr'")
        return
    recs, err = load_jsonl(d, "top-psr.jsonl")
    vms = [v for r in recs[-1:] for v in r.get("vms", []) if v.get("name") == DOMU]
    rdt = (vms[0].get("resctrl") or {}) if vms else {}
    if read(d, "top-psr.rc").strip() != "0" or err or not vms:
        say("fail", "top-xen-psr-na", "exit %s %s %s" % (read(d, "top-psr.rc").strip(), err or "",
                                                       read(d, "top-psr.err")[:200]))
    elif rdt.get("llc_occupancy_bytes") is not None or "psr=cmt" not in str(rdt.get("why")):
        say("fail", "top-xen-psr-na", "resctrl %r: want n/a naming psr=cmt" % rdt)
    else:
        say("ok", "top-xen-psr-na", str(rdt.get("why"))[:200])


def check_xentrace_lifetime(d):
    # SIGKILL: vmmprof's xentrace got SIGINT (PR_SET_PDEATHSIG) and exited
    xt = read(d, "life-xt").strip()
    after = read(d, "life-after").strip()
    if not xt:
        say("fail", "xentrace-dies-with-vmmprof", "top --xentrace started no xentrace: %s" % read(d, "life.err")[:200])
    elif after:
        say("fail", "xentrace-dies-with-vmmprof", "xentrace %s still running 60 s after vmmprof was SIGKILLed" % after)
    else:
        say("ok", "xentrace-dies-with-vmmprof", "xentrace %s gone within %s x 0.5 s of vmmprof's SIGKILL" % (xt, read(d, "life-waits").strip()))
    # a second xentrace: refused, naming the running one
    other = read(d, "second-xt").strip()
    rc = read(d, "second.rc").strip()
    err = read(d, "second.err")
    want = "xentrace is already running (pid %s)" % other
    if other not in read(d, "second-seen").split():
        say("fail", "xentrace-second-refused", "the test's own xentrace %s was not running before vmmprof started: %s"
            % (other, read(d, "other.err")[:300]))
    elif rc == "0" or want not in err:
        say("fail", "xentrace-second-refused", "exit %s, stderr %r: want non-zero and %r" % (rc, err[:300], want))
    else:
        say("ok", "xentrace-second-refused", err.strip()[:200])


# --- diagnose --xentrace and a daemon session (xentrace = on) --------------

# What each factor's reason must name on this testbed (no vPMU, no psr=, an
# AMD-signature TCG CPU): the boot option or hardware that would enable it.
XEN_NA_WORDS = {"llc": ("vpmu=1", "psr=cmt"), "sharing": ("vpmu=1",),
                "imc": ("psr=cmt", "uncore"), "queue": ("uncore",)}


def na_problems(una, what):
    """diagnose --json's 'unavailable': each factor of XEN_NA_WORDS n/a, naming its enablers."""
    bad = []
    for f, words in XEN_NA_WORDS.items():
        why = (una or {}).get(f)
        if not why:
            bad.append("%s: %s not n/a with a reason" % (what, f))
        elif not all(w in why for w in words):
            bad.append("%s: %s n/a without %s: %r" % (what, f, " and ".join(words), why[:160]))
    return bad


def diag_problems(doc, xl_nodes, what):
    """A diagnosis (diagnose --json, or a daemon session's): Xen's nodes, the residency
    exact from xentrace (the notes), vptest in it, every factor n/a naming its enabler."""
    bad = []
    diag = doc.get("diagnosis") or {}
    nodes = sorted(n.get("node") for n in diag.get("nodes") or [])
    if nodes != sorted(xl_nodes):
        bad.append("%s: nodes %r, xl info -n has %r" % (what, nodes, sorted(xl_nodes)))
    notes = doc.get("notes") or ""
    if "Xen residency per node: exact, from Xen's scheduler trace (xentrace)" not in notes:
        bad.append("%s: the notes do not say the residency is exact from xentrace: %r" % (what, notes[:300]))
    if not any(v.get("vm") == DOMU for v in diag.get("vms") or []):
        bad.append("%s: %s not in the diagnosis" % (what, DOMU))
    return bad + na_problems(doc.get("unavailable"), what)


def daemon_fetch(d, url, tokf):
    """In dom0, as a client of the daemon checks.sh started: a session, four samples of the
    top stream, the session's diagnosis; the replies into DIR (daemon-*)."""
    import time
    import urllib.request
    tok = read(os.path.dirname(tokf), os.path.basename(tokf)).strip()

    def call(method, path, body=None, timeout=300):
        req = urllib.request.Request(url + path, method=method, data=None if body is None else
                                     json.dumps(body).encode(), headers={"Authorization": "Bearer " + tok})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    out = {}
    t_start = time.time()
    # seconds since the client started at each step: where the section's time goes
    out["at"] = at = {}
    try:
        st, body = call("POST", "/api/v1/sessions", {"model": "software", "interval_ms": 3000})
        at["post"] = round(time.time() - t_start, 2)
        out["post"] = [st, body[:300]]
        sid = json.loads(body).get("id") if st == 201 else None
        # the top stream: one 'top --json' line per 'event: sample'
        req = urllib.request.Request(url + "/api/v1/top/stream?interval_ms=3000",
                                     headers={"Authorization": "Bearer " + tok})
        samples, t0 = [], time.time()
        with urllib.request.urlopen(req, timeout=300) as r:
            ev = None
            for raw in r:
                line = raw.decode(errors="replace").rstrip("\n")
                if line.startswith("event:"):
                    ev = line[6:].strip()
                elif line.startswith("data:") and ev == "sample":
                    samples.append(line[5:].strip())
                    at.setdefault("samples", []).append(round(time.time() - t_start, 2))
                    if len(samples) >= 4 or time.time() - t0 > 600:
                        break
        with open(os.path.join(d, "daemon-top.jsonl"), "w") as f:
            f.write("\n".join(samples) + "\n")
        if sid:
            st, body = call("GET", "/api/v1/sessions/%s/diagnosis" % sid)
            out["diagnosis_status"] = st
            at["diagnosis"] = round(time.time() - t_start, 2)
            with open(os.path.join(d, "daemon-diag.json"), "w") as f:
                f.write(body)
            out["delete"] = call("DELETE", "/api/v1/sessions/%s" % sid)[0]
            at["delete"] = round(time.time() - t_start, 2)
    except Exception as e:  # noqa: the reason goes into the check's detail
        out["error"] = "%s: %s" % (type(e).__name__, e)
    with open(os.path.join(d, "daemon-fetch.json"), "w") as f:
        json.dump(out, f)
    print(json.dumps(out)[:600])


def check_daemon(d):
    xl_nodes = list(xl_numa_info(read(d, "xl-info-n")).keys())
    nr_cpus, _, cpu_node = xl_info(read(d, "xl-info-n"))
    # diagnose --xentrace
    rc = read(d, "dx.rc").strip()
    doc, err = load_json(d, "dx.json")
    if rc != "0" or doc is None:
        say("fail", "diagnose-xentrace", "exit %s: %s %s" % (rc, err or "", read(d, "dx.err")[-300:]))
    else:
        bad = diag_problems(doc, xl_nodes, "diagnose --xentrace")
        say("fail" if bad else "ok", "diagnose-xentrace", "; ".join(bad) or
            "nodes %s as xl info -n, residency exact from xentrace, llc/sharing/imc/queue n/a naming "
            "vpmu=1, psr=cmt, the uncore" % sorted(xl_nodes))
    # the daemon: started, a session, the top stream, stopped (only when named: checks.sh)
    if os.path.exists(os.path.join(d, "daemon-skipped")):
        return
    got = {}
    try:
        got = json.loads(read(d, "daemon-fetch.json") or "{}")
    except ValueError:
        pass
    bad = []
    if not read(d, "serve.url").strip():
        bad.append("the daemon did not start: %s" % read(d, "serve.err")[-300:])
    elif got.get("error"):
        bad.append("client: %s" % got["error"])
    if "Xen residency from a running xentrace" not in read(d, "serve.err"):
        bad.append("the daemon did not start its xentrace: %s" % read(d, "serve.err")[-300:])
    if read(d, "serve.rc").strip() != "0":
        bad.append("the daemon exited %s after SIGTERM" % read(d, "serve.rc").strip())
    if read(d, "serve-xt-after").strip():
        bad.append("xentrace %s still running after the daemon stopped" % read(d, "serve-xt-after").strip())
    if got.get("diagnosis_status") != 200:
        bad.append("session diagnosis: HTTP %s, POST %s" % (got.get("diagnosis_status"), got.get("post")))
    else:
        doc, err = load_json(d, "daemon-diag.json")
        bad += [err] if doc is None else diag_problems(doc, xl_nodes, "session diagnosis")
    say("fail" if bad else "ok", "daemon-session", "; ".join(bad) or
        "xentrace = on; session diagnosis: nodes %s, residency exact, factors n/a naming their enablers; "
        "no xentrace left after SIGTERM" % sorted(xl_nodes))
    # the top stream: Xen's nodes, and each vCPU of vptest whose hard affinity is one pCPU (xl
    # vcpu-list before and after the stream) has exact residency, none on the other node
    recs, err = load_jsonl(d, "daemon-top.jsonl")
    before = xl_vcpus(read(d, "daemon-vcpu-before"), nr_cpus)
    after = xl_vcpus(read(d, "daemon-vcpu-after"), nr_cpus)
    bad, seen = [], {}
    if err or len(recs) < 2:
        bad.append("%d samples from the top stream %s" % (len(recs), err or ""))
    for k, s in enumerate(recs[1:], 2):
        nodes = [n.get("node") for n in s.get("nodes") or []]
        if sorted(nodes) != sorted(xl_nodes):
            bad.append("sample %d: nodes %r, xl info -n has %r" % (k, nodes, sorted(xl_nodes)))
            continue
        for c in s.get("vcpus") or []:
            if c.get("vm") != DOMU:
                continue
            v = c.get("vcpu")
            res = c.get("residency") or {}
            if res.get("source") != "xentrace" or res.get("quality") != "measured":
                bad.append("sample %d vCPU %s: residency %r, want xentrace/measured" % (k, v, res))
                continue
            hb, ha = (before.get((DOMU, v)) or {}).get("hard"), (after.get((DOMU, v)) or {}).get("hard")
            if not hb or hb != ha or len(hb) != 1:
                continue
            home = cpu_node.get(next(iter(hb)))
            run = res.get("node_run_s") or []
            for i, n in enumerate(nodes):
                if i < len(run) and n != home and run[i]:
                    bad.append("sample %d vCPU %s: %.3f s on node %s, but it is pinned to a pCPU of node %s"
                               % (k, v, run[i], n, home))
                if i < len(run) and n == home and run[i]:
                    seen[v] = seen.get(v, 0) + run[i]
    checked = sorted(v for v in (0, 1) if len((before.get((DOMU, v)) or {}).get("hard") or ()) == 1)
    if recs[1:] and not bad and not any(seen.get(v, 0) > 0 for v in checked):
        bad.append("no run time on the home node of any pinned vCPU (%s) in %d samples" % (checked, len(recs)))
    say("fail" if bad else "ok", "daemon-top-residency", "; ".join(bad) or
        "%d samples: nodes %s; vptest vCPUs %s exact from xentrace, run time only on their pCPU's node %s"
        % (len(recs), sorted(xl_nodes), checked, {v: round(x, 3) for v, x in sorted(seen.items())}))


def check_destroy(d):
    rc = read(d, "destroy.rc").strip()
    bad = []
    if rc != "0":
        bad.append("exit %s after the domain went: %s" % (rc, read(d, "destroy.err")[-300:]))
    if read(d, "destroy.xl").strip():
        bad.append("xl destroy: %s" % read(d, "destroy.xl")[:200])
    recs, err = load_jsonl(d, "destroy.jsonl")
    if err:
        bad.append(err)
    has = [any(v.get("name") == DOMU for v in r.get("vms", [])) for r in recs]
    if len(recs) < 3:
        bad.append("only %d samples" % len(recs))
    elif not has[0]:
        bad.append("%s not in the first sample" % DOMU)
    elif has[-1]:
        bad.append("%s still in the last sample" % DOMU)
    else:
        first_gone = has.index(False)
        if any(has[first_gone:]):
            bad.append("%s came back after it ended: %s" % (DOMU, has))
        ended = [e for r in recs for e in r.get("ended", []) if e.get("name") == DOMU]
        if not ended:
            bad.append("no 'ended' record for %s" % DOMU)
        if any(c.get("vm") == DOMU for r in recs[first_gone:] for c in r.get("vcpus", [])):
            bad.append("vCPU rows of %s after it ended" % DOMU)
    say("fail" if bad else "ok", "domu-destroyed-midrun", "; ".join(bad) or
        "exit 0; %s in %d samples, then ended" % (DOMU, sum(has)))


def selftest(root):
    """The parsers above against tests/data/xen-captured (run on the build
    machine before booting): the values are the testbed's configuration."""
    x = os.path.join(root, ".vmmprof-fixture", "xl")
    nr_cpus, nr_nodes, cpu_node = xl_info(read(x, "info-n.txt"))
    vc = xl_vcpus(read(x, "vcpu-list.txt"), nr_cpus)
    ls = xl_list(read(x, "list.txt"))
    ln = xl_list(read(x, "list-n.txt"))
    pages = xl_numa_pages(read(x, "dmesg-numa.txt"))
    want = [
        ("nr_cpus", nr_cpus, 2), ("nr_nodes", nr_nodes, 2), ("cpu_node", cpu_node, {0: 0, 1: 1}),
        ("vptest vCPUs", sorted(k[1] for k in vc if k[0] == DOMU), [0, 1]),
        ("vptest vCPU 0 hard", vc.get((DOMU, 0), {}).get("hard"), DOMU_HARD[0]),
        ("vptest vCPU 1 hard", vc.get((DOMU, 1), {}).get("hard"), DOMU_HARD[1]),
        ("vptest vCPU 0 soft", vc.get((DOMU, 0), {}).get("soft"), {0, 1}),
        ("Domain-0 vCPU 1 domid", vc.get(("Domain-0", 1), {}).get("domid"), 0),
        ("vptest mem", ls.get(DOMU, {}).get("mem"), DOMU_MEM_MIB),
        ("vptest vcpus", ls.get(DOMU, {}).get("vcpus"), 2),
        ("vptest node affinity", ln.get(DOMU, {}).get("nodes"), "all"),
        ("vptest pages", sum(pages.get(ls.get(DOMU, {}).get("domid"), {}).values()), DOMU_MEM_MIB * 256),
        ("numa_info", xl_numa_info(read(x, "info-n.txt")), {0: (1536, [10, 20]), 1: (1535, [20, 10])}),
    ]
    # the dump parser on the hand-written texts of tests/data/xen-dmesg
    xd = os.path.join(os.path.dirname(root.rstrip("/")), "xen-dmesg")
    two = read(xd, "two-dumps.txt")
    want += [
        ("newest of two dumps", xl_numa_pages(two), {0: {0: 201989, 1: 322299}, 1: {0: 16384, 1: 16384},
                                                     3: {0: 65600, 1: 65472}}),
        ("dumps counted", dump_count(two), 2),
        ("the dN format", xl_numa_pages("(XEN) Memory location of each domain:\n(XEN) d1 (total: 4):\n"
                                        "(XEN)     Node 0: 4\n"), {1: {0: 4}}),
    ]
    bad = ["%s: %r, want %r" % (n, got, exp) for n, got, exp in want if got != exp]
    say("fail" if bad else "ok", "compare-parsers", "; ".join(bad) or "xl parsers read the captured outputs")
    return not bad


if __name__ == "__main__":
    if sys.argv[1] == "selftest":
        sys.exit(0 if selftest(sys.argv[2]) else 1)
    if sys.argv[1] == "daemon-fetch":
        daemon_fetch(sys.argv[2], sys.argv[3], sys.argv[4])
        sys.exit(0)
    check = {"info": check_info, "xentrace": check_xentrace, "top-xentrace": check_top_xentrace, "list": check_list, "diagnose": check_diagnose, "top": check_top, "xentrace-lifetime": check_xentrace_lifetime, "daemon": check_daemon,
             "destroy": check_destroy}
    check[sys.argv[1]](sys.argv[2])
