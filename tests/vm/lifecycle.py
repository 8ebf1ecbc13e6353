#!/usr/bin/env python3
"""lifecycle.py - the QEMU testbed's recording check (issue 20, Done-when 1):
`vmmprof record` runs on the host while real QEMU guests start, stop, restart
and pause, and report's text, CSV, JSON and HTML must show each incarnation
counted for exactly the time it existed.  Prints one line per check,
"ok|FAIL|skip NAME detail", as eval.py does.

  lifecycle.py VMMPROF KERNEL INITRD WORKDIR TAG
  lifecycle.py --check VMMPROF WORKDIR     the checks again, on the recording
                and the schedule (WORKDIR/sched) a run left (VP_VM_KEEP=1 keeps
                them in tests/vm/cache/logs)

The schedule (-I 1000, about 20 s): guest A boots before the recording and
runs through it, paused (HMP 'stop') for 5 s in the middle and resumed
('cont'); guest B starts after the recording did, is killed, and is started
again under its name (a second incarnation) that runs to the end.

The bounds come from timestamps this script takes itself (CLOCK_MONOTONIC,
the frames' clock), so that load widens them instead of breaking them.
Interval i covers (t_i - duration_i, t_i]; the collector scans before it
stamps t_i, and the scan of interval i+1 starts after t_i.  So, with at(t)
the interval holding t:
  - an incarnation's first row is in at(launched) .. at(seen) + 1, where
    'seen' is when this script first saw its vCPU thread in /proc: it cannot
    be scanned before it exists, and the first scan after the script saw it
    is at the latest in the next interval (the allowance: one interval, plus
    whatever the load made of seen - launched);
  - its last row, marked ended, is in at(killed) .. at(gone) + 1 ('gone': the
    process reaped); a row in every interval between, none after;
  - a VM row has no counts in the interval it appeared in (its counters open
    at that interval's end) and counts in every later one;
  - the paused state comes from QEMU's QMP query-status, which the scan cache
    asks again when the vCPUs' run time jumps by 4x or every 2 s (state_ns,
    src/hv/hv.h): A's rows before at(stop sent) run, those from
    at(stop acked + 2 s) + 1 up to before at(cont sent) are paused, those from
    at(cont acked + 2 s) + 1 run again; a paused row is never rated.
"""
import csv
import json
import os
import re
import socket
import subprocess
import sys
import time

INTERVAL_MS = 1000
STATE_NS = 2_000_000_000  # the scan cache's QMP clock (hv_cache_opts.state_ns)

if sys.argv[1] == "--check":
    vmmprof, work = sys.argv[2:4]
    kernel = initrd = None
    sched0 = dict(l.split() for l in open(os.path.join(work, "sched")))
    tag = sched0.pop("tag")
else:
    vmmprof, kernel, initrd, work, tag = sys.argv[1:6]
A = "vmtest-lc-a-" + tag
B = "vmtest-lc-b-" + tag
procs = []
sched = {}


def now():
    return time.monotonic_ns()


def say(verdict, name, detail=""):
    print("%s lifecycle/%s %s" % (verdict, name, detail), flush=True)


def launch(name, key):
    """Starts a guest, waits for its vCPU thread; the Popen (its pid is QEMU's)."""
    base = os.path.join(work, key)
    for f in (base + ".mon", base + ".qmp"):
        if os.path.exists(f):
            os.unlink(f)
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-smp", "1", "-m", "128M",
           "-name", "guest=%s,debug-threads=on" % name, "-display", "none",
           "-serial", "file:%s.log" % base, "-no-reboot",
           # the test's controls (HMP) and the state vmmprof reads (QMP) apart:
           # a QMP monitor serves one client at a time
           "-monitor", "unix:%s.mon,server=on,wait=off" % base,
           "-qmp", "unix:%s.qmp,server=on,wait=off" % base,
           "-kernel", kernel, "-initrd", initrd,
           "-append", "console=ttyS0 quiet panic=-1"]
    sched[key + "_launch"] = now()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=open(base + ".err", "w"))
    procs.append(p)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if p.poll() is not None:
            raise RuntimeError("%s: QEMU exited %s: %s" % (name, p.returncode,
                               open(base + ".err").read()[-300:]))
        try:
            for t in os.listdir("/proc/%d/task" % p.pid):
                with open("/proc/%d/task/%s/comm" % (p.pid, t)) as f:
                    if f.read().startswith("CPU 0/"):
                        sched[key + "_seen"] = now()
                        sched[key + "_pid"] = p.pid
                        return p
        except OSError:
            pass
        time.sleep(0.02)
    raise RuntimeError("%s: no vCPU thread (CPU 0/...) within 60 s" % name)


def wait_mon(key):
    end = time.monotonic() + 30
    while not os.path.exists(os.path.join(work, key + ".mon")):
        if time.monotonic() > end:
            raise RuntimeError("%s: no monitor socket" % key)
        time.sleep(0.05)


def hmp(key, command):
    """One HMP command; returns when QEMU has carried it out (its next prompt)."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(os.path.join(work, key + ".mon"))
    buf = b""

    def until(p):
        nonlocal buf
        while p not in buf:
            d = s.recv(4096)
            if not d:
                return
            buf += d
    until(b"(qemu) ")
    buf = b""
    s.sendall(command.encode() + b"\n")
    until(b"(qemu) ")
    s.close()


def kill(p, key):
    sched[key + "_kill"] = now()
    p.terminate()
    p.wait(30)
    sched[key + "_gone"] = now()


def sleep_until(t0, s):
    d = t0 + s * 1e9 - now()
    if d > 0:
        time.sleep(d / 1e9)


def run():
    a = launch(A, "a")
    # A boots before the recording (its log says when, tests/tiers/vm-testbed.sh)
    end = time.monotonic() + 240
    while "LIFE-READY" not in open(os.path.join(work, "a.log"), errors="replace").read():
        if time.monotonic() > end or a.poll() is not None:
            raise RuntimeError("%s did not boot within 240 s: %s" % (
                A, open(os.path.join(work, "a.log"), errors="replace").read()[-400:]))
        time.sleep(0.2)
    wait_mon("a")
    rec = subprocess.Popen([vmmprof, "record", "-q", "-o", os.path.join(work, "lc.vmmdb"),
                            "-d", "20", "-I", str(INTERVAL_MS), "-m", "software"],
                           stdout=subprocess.DEVNULL,
                           stderr=open(os.path.join(work, "rec.err"), "w"))
    t0 = now()
    sleep_until(t0, 2)
    b1 = launch(B, "b1")
    sleep_until(t0, 4)
    sched["a_stop_sent"] = now()
    hmp("a", "stop")
    sched["a_stop_ack"] = now()
    sleep_until(t0, 9)
    sched["a_cont_sent"] = now()
    hmp("a", "cont")
    sched["a_cont_ack"] = now()
    sleep_until(t0, 11)
    kill(b1, "b1")
    sleep_until(t0, 13)
    launch(B, "b2")
    rc = rec.wait(120)
    sched["a_pid"] = a.pid
    return rc


def report(*args):
    r = subprocess.run([vmmprof, "report"] + list(args), capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("vmmprof report %s exited %d: %s" % (" ".join(args), r.returncode,
                                                              r.stderr[-300:]))
    return r.stdout


def checks():
    db = os.path.join(work, "lc.vmmdb")
    html = os.path.join(work, "lc.html")
    j = json.loads(report("--json", db))
    csvtext = report("--csv", db)
    text = report("--timeline", db)
    report("--html", html, db)
    page = open(html).read()
    iv = j["intervals"]
    say("ok", "recording", "%d intervals of %d ms, every VM of the host" % (len(iv), INTERVAL_MS))

    def at(t):
        if t <= iv[0]["t_ns"] - iv[0]["duration_s"] * 1e9:
            return 0
        for i, f in enumerate(iv):
            if f["t_ns"] - f["duration_s"] * 1e9 < t <= f["t_ns"]:
                return i
        return len(iv)  # after the recording's end

    def rows(pred):
        return [(i, r) for i, f in enumerate(iv) for r in f["rows"] if pred(r)]

    life = {}  # key -> (first, last) of the VM row, for the other forms

    def incarnation(key, name, ended):
        pid = sched[key + "_pid"]
        what = "%s[%s pid %d]" % (key, name, pid)
        vm = rows(lambda r: r["kind"] == "vm" and r.get("pid") == pid)
        vc = rows(lambda r: r["kind"] == "vcpu" and r.get("pid") == pid)
        if not vm or not vc:
            say("FAIL", key + "/rows", "%s: no %s row in any interval" % (what, "VM" if not vm else "vCPU"))
            return
        if key != "a" and sched[key + "_seen"] > iv[-1]["t_ns"] - 1e9:
            say("skip", key + "/json", "%s: its vCPU thread came %.1f s after its launch, too late "
                "in the recording to judge (a machine this loaded)" % (
                    what, (sched[key + "_seen"] - sched[key + "_launch"]) / 1e9))
            return
        errs = []
        lo = at(sched[key + "_launch"]) if key != "a" else 0
        hi = at(sched[key + "_seen"]) + 1 if key != "a" else 0
        for kind, rs in (("VM", vm), ("vCPU 0", vc)):
            first, last = rs[0][0], rs[-1][0]
            if not lo <= first <= hi:
                errs.append("%s first in interval %d, not %d..%d" % (kind, first, lo, hi))
            if [i for i, _ in rs] != list(range(first, last + 1)):
                errs.append("%s rows not one run of intervals: %s" % (kind, [i for i, _ in rs]))
            if ended:
                elo, ehi = at(sched[key + "_kill"]), at(sched[key + "_gone"]) + 1
                if not elo <= last <= ehi:
                    errs.append("%s last in interval %d, not %d..%d" % (kind, last, elo, ehi))
                if rs[-1][1]["state"] != "ended" or any(r["state"] == "ended" for _, r in rs[:-1]):
                    errs.append("%s not marked ended once, at its last row: %s" % (
                        kind, [r["state"] for _, r in rs]))
            elif last != len(iv) - 1:
                errs.append("%s lost in interval %d of %d" % (kind, last, len(iv)))
        # counts: none in the interval the vCPU appeared (when it appeared in
        # the recording), a figure in every later one; the VM's from the
        # interval after its first vCPU's
        cf = vc[0][0] + 1 if key != "a" else 0
        for kind, rs in (("VM", vm), ("vCPU 0", vc)):
            for i, r in rs:
                if i < cf and r["cycles"] is not None:
                    errs.append("%s counted in interval %d, before its counters opened" % (kind, i))
                if i >= cf and r["cycles"] is None:
                    errs.append("%s not counted in interval %d (%s)" % (kind, i, r["state"]))
        if key != "a" and not any((r["cycles"] or 0) > 0 for _, r in vm):
            errs.append("no cycles in any interval of a booting guest")
        secs = sum(iv[i]["duration_s"] for i, _ in vm)
        life[key] = (vm[0][0], vm[-1][0], pid)
        if errs:
            say("FAIL", key + "/json", "%s: %s" % (what, "; ".join(errs)))
        else:
            lived = ((sched[key + "_gone"] if ended else iv[-1]["t_ns"]) -
                     (sched[key + "_launch"] if key != "a" else iv[0]["t_ns"] -
                      iv[0]["duration_s"] * 1e9)) / 1e9
            say("ok", key + "/json", "%s: intervals %d-%d (%.1f s) for a life of %.1f s%s" % (
                what, vm[0][0] + 1, vm[-1][0] + 1, secs, lived, ", ended" if ended else ""))

    incarnation("a", A, False)
    incarnation("b1", B, True)
    incarnation("b2", B, False)
    if sched["b1_pid"] == sched["b2_pid"]:
        say("FAIL", "b/pids", "both incarnations of %s have pid %d" % (B, sched["b1_pid"]))

    # A's pause
    va = rows(lambda r: r["kind"] == "vm" and r.get("pid") == sched["a_pid"])
    s1 = at(sched["a_stop_sent"])
    s2 = at(sched["a_stop_ack"] + STATE_NS) + 1
    c1 = at(sched["a_cont_sent"])
    c2 = at(sched["a_cont_ack"] + STATE_NS) + 1
    errs = []
    for i, r in va:
        want = "running" if i < s1 or i >= c2 else "paused" if s2 <= i < c1 else None
        if want and r["state"] != want:
            errs.append("interval %d %s, not %s" % (i, r["state"], want))
        if r["state"] == "paused" and any(f.get("score") is not None
                                          for f in r["factors"].values()):
            errs.append("interval %d paused and rated" % i)
    npaused = sum(r["state"] == "paused" for _, r in va)
    if not any(r["state"] == "paused" for _, r in va):
        errs.append("never paused")
    if errs:
        say("FAIL", "a/paused", "; ".join(errs))
    else:
        say("ok", "a/paused", "paused in %d intervals (bounds %d..%d to %d..%d), never rated" % (
            npaused, s1, s2, c1, c2))

    # CSV: the same rows with pid, start and state
    mine = (A, B)
    cr = [r for r in csv.DictReader(text_lines(csvtext)) if r["vm"] in mine]
    jr = [r for f in iv for r in f["rows"] if r["vm"] in mine]
    bad = [(c, r) for c, r in zip(cr, jr)
           if c["state"] != r["state"] or int(c["pid"]) != r["pid"] or
           abs(float(c["started"]) - r["started"]) > 1e-6 or c["kind"] != r["kind"]]
    if len(cr) != len(jr) or bad:
        say("FAIL", "csv", "%d rows against the JSON's %d; differing: %s" % (len(cr), len(jr),
                                                                          bad[:2]))
    else:
        say("ok", "csv", "%d rows, pid, start and state as in the JSON" % len(cr))

    # text: incarnations by pid, the end and the pause marked
    want = [r"%s \[pid %d\] \(ended\)" % (re.escape(B), sched["b1_pid"]),
            r"%s \[pid %d\]" % (re.escape(B), sched["b2_pid"]),
            r"%s/vCPU 0 \(ended\)" % re.escape(B),
            r"%s( \[pid %d\])? \(paused\)" % (re.escape(A), sched["a_pid"])]
    miss = [w for w in want if not re.search(w, text)]
    if miss:
        say("FAIL", "text", "no line matching %s" % miss)
    else:
        say("ok", "text", "both incarnations of %s by pid, the end and the pause marked" % B)

    # HTML: one series per incarnation, labelled with the intervals it was in
    labels = {}
    for g in page.split('<g class="vm" data-key="vm:kvm:')[1:]:
        m = re.match(r'(\d+)[:"]', g)
        t = re.search(r'<text[^>]*>([^<]*)</text></g>', g)
        if m and t:
            labels[m.group(1)] = t.group(1)
    errs = []
    for key, name in (("a", A), ("b1", B), ("b2", B)):
        if key not in life:
            continue
        first, last, pid = life[key]
        lab = labels.get(str(pid))
        if lab is None:
            errs.append("no series for %s pid %d" % (key, pid))
            continue
        exp = name + (" (pid %d)" % pid if key != "a" else "")
        if first > 0 or last + 1 < len(iv):
            exp += (" [interval %d]" % (first + 1) if first == last else
                    " [intervals %d-%d]" % (first + 1, last + 1))
        if key == "a":
            exp += " paused in %d of %d" % (npaused, len(va))
        if key == "b1":
            exp += " ended in interval %d" % (last + 1)
        if lab != exp:
            errs.append("%s labelled '%s', want '%s'" % (key, lab, exp))
    if errs:
        say("FAIL", "html", "; ".join(errs))
    else:
        say("ok", "html", "three series, labelled with their intervals, pause and end")


def text_lines(s):
    return s.splitlines(True)


def main():
    if kernel is None:
        sched.update((k, int(v)) for k, v in sched0.items())
        checks()
        return
    try:
        rc = run()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        say("FAIL", "run", str(e))
        return
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
        with open(os.path.join(work, "sched"), "w") as f:
            f.write("tag %s\n" % tag)
            for k, v in sorted(sched.items()):
                f.write("%s %s\n" % (k, v))
    if rc:
        say("FAIL", "record", "vmmprof record exited %d: %s" % (
            rc, open(os.path.join(work, "rec.err")).read()[-300:]))
        return
    try:
        checks()
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        say("FAIL", "report", "%s: %s" % (type(e).__name__, e))


main()
