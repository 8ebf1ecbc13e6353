#!/usr/bin/env python3
"""report_map.py - the HTML report's placement map in headless Chromium, against a map written by hand.

  report_map.py PAGE.html EXPECT.json SCREENSHOT.png

Every snapshot (figure.snap) of the page must hold the expected nodes, CPUs, SMT
cores, LLC domains and, per vCPU, the CPU it is drawn on (or, aggregated, the count
per CPU and each node's drill-down); the memory bars; and each severity stripe's
colour class must be its severity's (n/a is never drawn as ok).  Exits non-zero at
the first failed check; the full-page screenshot is written to SCREENSHOT.png.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, png_stats  # noqa: E402


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what if len(what) < 200 else what[:200] + "...")


COUNT = """(() => [...document.querySelectorAll('figure.snap')].map((f) => {
    const q = (s) => [...f.querySelectorAll(s)];
    const top = ':scope > .map-nodes > .map-node';
    return {
        interval: +f.dataset.interval,
        nodes: q(top).map((e) => +e.dataset.node),
        cpus: q(top + ' .map-cpu').map((e) => +e.dataset.cpu),
        cores: q(top + ' .map-core').map((e) => [...e.querySelectorAll('.map-cpu')].map((c) => +c.dataset.cpu)),
        llcs: q(top + ' .map-llc').length,
        vcpus: Object.fromEntries(q(top + ' .map-vcpu').map((e) => [e.dataset.vm + '/' + e.dataset.vcpu, +e.dataset.cpu])),
        n_vcpu_el: q(top + ' .map-vcpu').length,
        stripes: q('.map-vcpu rect').map((r) => [r.dataset.sev, r.getAttribute('class')]),
        stripes_per_vcpu: q(top + ' .map-vcpu').map((e) => e.querySelectorAll('rect').length),
        agg: Object.fromEntries(q(top + ' .map-agg').map((e) => [e.dataset.cpu, +e.dataset.count])),
        drill: Object.fromEntries(q(':scope > details.drill').map((d) => [d.dataset.node, d.querySelectorAll('.map-vcpu').length])),
        bars: Object.fromEntries(q(':scope > .map-bars > .map-vm').map((e) => [e.dataset.vm,
            Object.fromEntries([...e.querySelectorAll('.map-mem-seg')].map((g) => [g.dataset.node, g.classList.contains('remote')]))])),
        n_bars: q(':scope > .map-bars > .map-vm').length,
        more: q(':scope > details.map-more summary').map((e) => e.textContent).join(''),
    };
}))()"""


def main():
    page_path, expect_path, shot = sys.argv[1:4]
    with open(expect_path) as f:
        want = json.load(f)
    with Browser(width=1280, height=900, log_path="chromium.log") as b:
        page = b.new_page("file://" + os.path.abspath(page_path))
        snaps = page.eval(COUNT)
        check(len(snaps) == want["snaps"], "%d snapshots (intervals %s)" % (len(snaps), [s["interval"] for s in snaps]))
        for s in snaps:
            at = "interval %d: " % s["interval"]
            check(sorted(s["nodes"]) == want["nodes"], at + "one box per node %s" % s["nodes"])
            check(len(s["cpus"]) == want["cpus"] and len(set(s["cpus"])) == want["cpus"], at + "one element per CPU (%d)" % len(s["cpus"]))
            check(sorted(sorted(x) for x in s["cores"]) == sorted(sorted(x) for x in want["cores"]),
                  at + "SMT siblings grouped in %d cores" % len(s["cores"]))
            check(s["llcs"] == want["llcs"], at + "%d LLC domains" % s["llcs"])
            bad = [x for x in s["stripes"] if x[1] != "sev-" + ("na" if x[0] == "n/a" else x[0])]
            check(not bad, at + "each stripe coloured by its own severity, n/a never as ok (%s)" % bad[:3])
            if "vcpus" in want:
                check(s["vcpus"] == want["vcpus"], at + "one square per vCPU on its CPU: %s" % s["vcpus"])
                check(set(s["stripes_per_vcpu"]) == {5}, at + "five factor stripes per vCPU")
                check(not s["agg"] and not s["drill"], at + "nothing aggregated")
            if "agg" in want:
                check(s["n_vcpu_el"] == 0, at + "aggregated: no vCPU drawn one by one in the map")
                check(s["agg"] == want["agg"], at + "one counted square per busy CPU (sum %d)" % sum(s["agg"].values()))
                check(s["drill"] == want["drill"], at + "each node opens to its vCPUs one by one: %s" % s["drill"])
            if "bars" in want:
                check(s["bars"] == want["bars"], at + "memory bars split by node, remote marked: %s" % s["bars"])
            check(s["n_bars"] == want["n_bars"] and want.get("more", "") in s["more"],
                  at + "%d memory bars, then %r" % (s["n_bars"], s["more"]))
        page.eval("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        w, h = page.screenshot(shot)
        ps = png_stats(shot)
        print("screenshot %s: %dx%d, %d colours" % (shot, w, h, ps.colours))
        check(w == 1280 and h >= 900 and ps.colours >= 20 and ps.commonest < 0.97, "the screenshot is not blank")
        errs = page.errors()
        check(not errs, "no errors on the page (%s)" % errs)


if __name__ == "__main__":
    main()
