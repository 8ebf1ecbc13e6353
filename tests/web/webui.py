"""webui.py - the web UI scenarios, run in headless Chromium against a real vmmprof daemon.

  webui.py SCENARIO --url URL --tokens DIR --out DIR [--keep DIR] [--pid PID]

SCENARIO is login, session, viewer, replay or map.  DIR holds alice.token (operator),
bob.token (viewer) and root.token (admin).  Each scenario prints what it
checks and exits non-zero at the first failed check.  Expected values come
from the machine (/proc, /sys) or from the daemon's own API read beside the
page (what the page must show), never from the page itself.
"""
import argparse
import json
import os
import shutil
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CDPError, png_stats  # noqa: E402

FACTORS = ["locality", "llc", "sharing", "imc", "queue"]


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)
    print("ok:", what if len(what) < 200 else what[:200] + "...")


def api(url, token, method, path, body=None):
    """(status, parsed JSON or None) of one API call."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + "/api/v1" + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, None


def token(args, who):
    with open(os.path.join(args.tokens, who + ".token")) as f:
        return f.read().strip()


def login(page, tok):
    page.fill("#token", tok)
    page.click("#login")
    return page.wait_for("!document.getElementById('app-view').hidden && "
                         "document.getElementById('who-role') && document.getElementById('who-role').textContent",
                         20, "the logged-in view")


def shot(page, args, name, min_height, texts):
    """A full-page screenshot: 1280 wide, at least min_height tall, not blank, and the
    page holds each of texts (DOM query at the time of the screenshot)."""
    body = page.eval("document.body.innerText")
    for t in texts:
        check(t in body, "%s: the page shows %r" % (name, t))
    path = os.path.join(args.out, name + ".png")
    page.eval("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    w, h = page.screenshot(path)
    if args.keep:
        shutil.copy(path, os.path.join(args.keep, name + ".png"))
    ps = png_stats(path)
    sw, sh, colours, top = ps.width, ps.height, ps.colours, ps.commonest
    print("screenshot %s: %dx%d, %d colours, commonest %.0f %%" % (name, sw, sh, colours, 100 * top))
    check((sw, sh) == (w, h) and sw == 1280 and sh >= min_height, "%s: %dx%d PNG (>= %d tall)" % (name, sw, sh, min_height))
    # text, tables and chart lines give many colours; a blank or error page has a handful
    check(colours >= 40, "%s: not blank (%d colours >= 40)" % (name, colours))
    check(top < 0.97, "%s: not one flat colour (commonest %.1f %% < 97 %%)" % (name, 100 * top))


def no_errors(page):
    errs = page.errors()
    check(not errs, "no JavaScript errors (%s)" % "; ".join(errs))


def cpu_model_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.split(":")[0].strip() == "model name":
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def numa_nodes():
    """{node id: cpulist} from sysfs; one node 0 with every online CPU when there is no NUMA sysfs."""
    base = "/sys/devices/system/node"
    nodes = {}
    if os.path.isdir(base):
        for d in os.listdir(base):
            if d.startswith("node") and d[4:].isdigit():
                with open(os.path.join(base, d, "cpulist")) as f:
                    nodes[int(d[4:])] = f.read().strip()
    if not nodes:
        with open("/sys/devices/system/cpu/online") as f:
            nodes[0] = f.read().strip()
    return nodes


# ---------------------------------------------------------------- scenarios

def scenario_login(args, b):
    alice = token(args, "alice")
    page = b.new_page(args.url + "/")
    check(page.eval("!document.getElementById('login-view').hidden && document.getElementById('app-view').hidden"),
          "a new visitor sees the login form only")
    page.fill("#token", "not-the-token-" + alice[:4])
    page.click("#login")
    err = page.wait_for("document.getElementById('login-error').textContent", 15, "the login error")
    check("401" in err, "a wrong token is refused with 401 shown: %r" % err)
    check(page.eval("document.getElementById('app-view').hidden"), "and the application stays hidden")
    check(page.eval("sessionStorage.getItem('vmmprof.token') === null"), "and no token is kept")

    role = login(page, alice)
    check(role == "operator", "alice logs in as operator (role shown: %r)" % role)
    check(page.text("#who-user") == "alice", "the user name shown is alice")
    check(page.eval("sessionStorage.getItem('vmmprof.token')") == alice, "the token is in sessionStorage")
    check(page.eval("localStorage.length") == 0 and alice not in page.eval("location.href"),
          "and nowhere else (localStorage, URL)")

    nodes = numa_nodes()
    page.wait_for("document.querySelectorAll('#nodes-table tbody tr').length === %d" % len(nodes), 15,
                  "%d node rows" % len(nodes))
    # the CPU lists come from /api/v1/info, which can answer after the first top sample has
    # drawn the rows (n/a until then; slow under the sanitizers): wait for them too
    try:
        page.wait_for("[...document.querySelectorAll('#nodes-table tbody tr')].every((r) => r.cells[1].textContent !== 'n/a')",
                      15, "the nodes' CPU lists")
    except CDPError:
        pass  # the check below says what is shown
    rows = page.eval("[...document.querySelectorAll('#nodes-table tbody tr')].map((r) => [...r.cells].map((c) => c.textContent))")
    check([r[0] for r in rows] == [str(n) for n in sorted(nodes)], "one row per NUMA node of /sys: %s" % [r[0] for r in rows])
    check([r[1] for r in rows] == [nodes[n] for n in sorted(nodes)], "each with its cpulist: %s" % [r[1] for r in rows])
    model = cpu_model_name()
    if model:
        page.wait_for("document.getElementById('host').textContent.includes(%s)" % json.dumps(model), 10, "the CPU model")
        check(True, "the header names the CPU of /proc/cpuinfo: %s" % model)
    cov = page.eval("[...document.querySelectorAll('#coverage li')].map((l) => l.dataset.factor)")
    check(cov == FACTORS, "what the host can measure lists the five factors: %s" % cov)
    # the live node view: a second sample gives the rates, or n/a with the reason
    page.wait_for("document.getElementById('nodes-live').textContent === 'live'", 15, "the live node view")
    cell = page.eval("document.querySelector('#nodes-table tbody tr').cells[6].textContent")
    check(cell.endswith("%") or (cell.startswith("n/a") and len(cell) > 3), "CPU load is a percentage or n/a with a reason: %r" % cell)

    page.reload()
    role = page.wait_for("document.getElementById('who-role') && !document.getElementById('app-view').hidden && "
                         "document.getElementById('who-role').textContent", 15, "the view after a reload")
    check(role == "operator", "a reload keeps the login of this tab")
    shot(page, args, "t10510-login", 700, ["alice", "operator", "Host", "Sessions", "NUMA nodes"])
    page.click("#logout")
    page.wait_for("!document.getElementById('login-view').hidden", 5, "the login form after logging out")
    check(page.eval("sessionStorage.getItem('vmmprof.token') === null"), "logging out forgets the token")
    no_errors(page)


def frame_by_seq(args, tok, sid, seq):
    st, j = api(args.url, tok, "GET", "/sessions/%s/history" % sid)
    check(st == 200, "history of %s: HTTP %d" % (sid, st))
    for f in j["frames"]:
        if f["seq"] == seq:
            return f
    raise Fail("frame %d of %s is not in its history (seqs %s)" % (seq, sid, [f["seq"] for f in j["frames"]][-5:]))


def shown_frame(page):
    """The seq of the frame the page shows and every factor cell's text by row key."""
    return page.eval("""(() => {
        const m = /frame (\\d+)/.exec(document.getElementById('sv-meta').textContent);
        const rows = {};
        for (const tr of document.querySelectorAll('#factors-table tbody tr[data-key]'))
            rows[tr.dataset.key] = [...tr.cells].map((c) => c.innerText);
        return {seq: m ? +m[1] : -1, rows};
    })()""")


def fmt2(v):
    # JavaScript's toFixed(2) rounds the binary value as Python's % does
    return "%.2f" % v


def check_cells(shown, frame):
    """Every factor cell shows the frame's score, or n/a with the frame's reason: never 0 for null."""
    check(set(shown["rows"]) == {r["key"] for r in frame["rows"]},
          "rows shown are the frame's rows: %s" % sorted(shown["rows"]))
    for r in frame["rows"]:
        cells = shown["rows"][r["key"]]
        for i, k in enumerate(FACTORS):
            fv = r["factors"].get(k)
            text = cells[4 + i]
            if fv is None or fv.get("score") is None:
                reason = (fv or {}).get("reason") or ""
                ok = text.startswith("n/a") and (not reason or reason in text.replace("\n", " "))
                if not ok:
                    raise Fail("%s %s: null score shown as %r, want n/a with %r" % (r["key"], k, text, reason))
            else:
                if not text.startswith(fmt2(fv["score"])):
                    raise Fail("%s %s: score %r shown as %r" % (r["key"], k, fv["score"], text))
                if fv.get("cost_pct") is None and "cost n/a" not in text:
                    raise Fail("%s %s: null cost shown as %r" % (r["key"], k, text))
    check(True, "frame %d: %d rows x 5 factors shown as the daemon sent them (n/a + reason for null)"
          % (frame["seq"], len(frame["rows"])))


def scenario_session(args, b):
    alice = token(args, "alice")
    pid = args.pid
    page = b.new_page(args.url + "/")
    login(page, alice)

    st, models = api(args.url, alice, "GET", "/models")
    check(st == 200, "GET /models as alice")
    page.wait_for("document.querySelectorAll('#model option').length === %d" % len(models["models"]), 15,
                  "the model chooser")
    opts = page.eval("[...document.querySelectorAll('#model option')].map((o) => o.value)")
    check(opts == [m["name"] for m in models["models"]], "the model chooser lists the daemon's models: %s" % opts)
    check(page.eval("document.getElementById('model').value") == models["chosen"],
          "and preselects the one chosen for this CPU (%s)" % models["chosen"])
    st, vms = api(args.url, alice, "GET", "/vms")
    nvm = len(vms["vms"])
    if nvm == 0:
        page.wait_for("document.getElementById('vm-choices').textContent.includes('No VMs')", 10, "the empty VM chooser")
        check(True, "no VM runs here and the VM chooser says so")
    else:
        n = page.eval("document.querySelectorAll('#vm-choices input').length")
        check(n == nvm, "the VM chooser offers the %d VMs" % nvm)

    page.eval("document.getElementById('model').value = 'software'")
    page.fill("#pids", str(pid))
    page.fill("#interval", "1000")
    page.eval("document.getElementById('record').checked = true")
    page.click("#start")
    sid = page.wait_for("!document.getElementById('session-view').hidden && document.getElementById('sv-id').textContent",
                        20, "the new session's view")
    err = page.text("#start-error")
    check(not err, "the session starts without an error (%r)" % err)
    st, s = api(args.url, alice, "GET", "/sessions/" + sid)
    check(st == 200 and s["state"] == "running" and s["model"] == "software" and s.get("interval_ms") == 1000,
          "the daemon has session %s running with model software every 1000 ms: %s" % (sid, s))
    page.wait_for("[...document.querySelectorAll('#sessions-table tbody tr')].some((r) => r.dataset.id === %s && "
                  "r.textContent.includes('running'))" % json.dumps(sid), 10, "the session in the list")

    # the shared counter set holds the software model's events (models/software.model), for this session
    want_ev = []
    with open(os.path.join(args.models, "software.model")) as f:
        for line in f:
            w = line.split()
            if len(w) >= 4 and w[0] == "event" and w[2] == "=":
                want_ev.append(w[3])
    page.wait_for("[...document.querySelectorAll('#collector-table tbody tr')].filter((r) => r.cells.length === 5 && "
                  "r.cells[2].textContent.split(', ').includes(%s)).length === %d" % (json.dumps(sid), len(want_ev)),
                  15, "the shared counters of %s" % sid)
    shown_ev = page.eval("[...document.querySelectorAll('#collector-table tbody tr')].map((r) => r.cells[0].textContent)")
    check(sorted(shown_ev) == sorted(want_ev), "the shared counters are the model's events: %s" % shown_ev)

    # live: the frame shown advances, each shown as the daemon sent it
    page.wait_for("/frame \\d+/.test(document.getElementById('sv-meta').textContent)", 20, "the first frame")
    a = shown_frame(page)
    page.wait_for("+(/frame (\\d+)/.exec(document.getElementById('sv-meta').textContent) || [0, -1])[1] >= %d"
                  % (a["seq"] + 2), 20, "two more frames")
    bfr = shown_frame(page)
    check(bfr["seq"] >= a["seq"] + 2, "live: the page went from frame %d to %d" % (a["seq"], bfr["seq"]))
    check_cells(a, frame_by_seq(args, alice, sid, a["seq"]))
    last = frame_by_seq(args, alice, sid, bfr["seq"])
    check_cells(bfr, last)

    # first principles about the target: the workload's pid, its threads, one busy thread
    vm = [r for r in last["rows"] if r["kind"] not in ("vcpu", "thread")]
    check(len(vm) == 1 and vm[0]["pid"] == pid, "one process row, pid %d" % pid)
    tids = set(int(t) for t in os.listdir("/proc/%d/task" % pid))
    vcpu_tids = [r["tid"] for r in last["rows"] if r["kind"] in ("vcpu", "thread")]
    check(vcpu_tids and set(vcpu_tids) <= tids, "its thread rows are threads of the workload: %s" % vcpu_tids)
    util = page.eval("(() => { for (const tr of document.querySelectorAll('#metrics-table tr'))"
                     " if (tr.cells[0].textContent === 'cpu_util') return tr.cells[1].textContent; return null; })()")
    check(util is not None, "the metrics of the process row include cpu_util (%r)" % util)
    u = float(util.split()[0])
    # the workload burns one thread without pause: near one CPU, never more than one (plus edges)
    check(0.05 <= u <= 1.3, "cpu_util of one busy thread is within 0.05..1.3: %g" % u)

    # charts: the metric chart has the line colour; the score chart too when a factor has a score
    px = page.eval("""((id, rgb) => { const c = document.getElementById(id), g = c.getContext('2d');
        const d = g.getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 0; i < d.length; i += 4)
            if (Math.abs(d[i] - rgb[0]) < 40 && Math.abs(d[i + 1] - rgb[1]) < 40 && Math.abs(d[i + 2] - rgb[2]) < 40 && d[i + 3] > 128) n++;
        return n; })('chart-metric', [0x24, 0x57, 0xa6])""")
    check(px >= 100, "the cpu_util chart draws its line over time (%d line pixels)" % px)
    scored = [k for k in FACTORS if vm[0]["factors"].get(k, {}).get("score") is not None]
    if scored:
        n = page.eval("document.querySelectorAll('#chart-legend li').length")
        check(n == 5, "the charts' legend names the five factors")
    nm = page.eval("[...document.querySelectorAll('#not-measured li[data-factor]')].map((l) => l.dataset.factor)")
    want = [k for k in FACTORS if any(r["factors"].get(k, {}).get("score") is None for r in last["rows"])]
    check(nm == want, "'not measured' lists the factors without a score: %s" % nm)

    # the diagnosis, beside the daemon's: the session is live, so the page's diagnosis is
    # one taken between the two the test asks for (a CPU-contention finding can come and
    # go with the machine's load); its rows are those of one of them
    st0, d0 = api(args.url, alice, "GET", "/sessions/%s/diagnosis" % sid)
    page.click("#diagnose")
    meta = page.wait_for("document.getElementById('diag-meta') && document.getElementById('diag-meta').textContent",
                         60, "the diagnosis")
    st, d = api(args.url, alice, "GET", "/sessions/%s/diagnosis" % sid)
    check(st == 200 and st0 == 200, "GET diagnosis: HTTP %d, %d" % (st0, st))
    check("model " + d["model"] in meta, "the diagnosis names its model: %r" % meta)
    un = page.eval("document.getElementById('diag-unavailable').innerText")
    for k, why in d.get("unavailable", {}).items():
        check(k in un and why in un, "the diagnosis says %s was not measured and why" % k)
    nb = page.eval("document.querySelectorAll('#diag-bottlenecks tbody tr').length")
    want_nb = {len(x["diagnosis"]["bottlenecks"]) for x in (d0, d)}
    check(nb in want_nb or (nb == 0 and page.eval("!!document.getElementById('diag-no-bottleneck')")),
          "bottlenecks: %d shown, the daemon's before and after: %s" % (nb, sorted(want_nb)))
    adv = page.eval("document.querySelectorAll('#diagnosis .advice').length")
    want_adv = {len(x["diagnosis"]["advice"]) for x in (d0, d)}
    check(adv in want_adv, "advice: %d item(s) shown, the daemon's before and after: %s" % (adv, sorted(want_adv)))

    shot(page, args, "t10520-session", 1200, ["Session " + sid, "running", "VMs and vCPUs: the five factors",
                                              "Factor scores", "Not measured, and why", "Diagnosis and advice", "n/a"])

    # stop from the list
    page.click("#sessions-table tbody tr[data-id=%s] button.stop" % json.dumps(sid))
    page.wait_for("document.getElementById('sv-state').textContent === 'stopped'", 20, "the stopped state")
    page.wait_for("document.getElementById('sv-live').textContent === 'ended'", 20, "the stream to end")
    st, s = api(args.url, alice, "GET", "/sessions/" + sid)
    check(st == 200 and s["state"] == "stopped" or st == 404, "the daemon has %s stopped (%d %s)" % (sid, st, s))
    seq = shown_frame(page)["seq"]
    time.sleep(2.5)
    check(shown_frame(page)["seq"] == seq, "no frame arrives after the stop (still %d)" % seq)
    check(not page.eval("document.querySelector('#sessions-table tbody tr[data-id=%s] button.stop')" % json.dumps(sid)),
          "a stopped session has no Stop button")

    # it was recorded: the file in the daemon's recordings directory, listed and downloaded through the page
    recdir = os.path.join(args.tokens, "rec")
    files = [f for f in os.listdir(recdir) if f.endswith("-%s.vmmdb" % sid)]
    check(len(files) == 1 and files[0].startswith("alice+"), "the daemon wrote alice's recording of %s: %s" % (sid, files))
    path = os.path.join(recdir, files[0])
    with open(path, "rb") as f:
        head = f.read(16)
    check(head == b"SQLite format 3\0", "it is an SQLite file (record-format.md)")
    size = os.path.getsize(path)
    sel = "#recordings-table tbody tr[data-name=%s]" % json.dumps(files[0])
    page.wait_for("document.querySelector(%s)" % json.dumps(sel), 15, "the recording in the list")
    page.click(sel + " button.download")
    got = page.wait_for("(/Downloaded \\((\\d+) bytes\\)/.exec(document.querySelector(%s).textContent) || [])[1]"
                        % json.dumps(sel + " button.download"), 30, "the download")
    check(int(got) == size, "the page downloaded it with the token: %s bytes, the file has %d" % (got, size))
    no_errors(page)


def scenario_viewer(args, b):
    alice, bob = token(args, "alice"), token(args, "bob")
    st, s = api(args.url, alice, "POST", "/sessions", {"model": "software", "pids": [args.pid], "interval_ms": 1000})
    check(st == 201, "alice starts a session through the API: HTTP %d %s" % (st, s))
    sid = s["id"]
    try:
        page = b.new_page(args.url + "/")
        role = login(page, bob)
        check(role == "viewer", "bob logs in as viewer")
        check(page.eval("document.getElementById('start-fields').disabled"), "the start form is disabled for a viewer")
        note = page.eval("document.getElementById('start-note').hidden ? '' : document.getElementById('start-note').textContent")
        check("read-only" in note, "and says why: %r" % note)
        page.wait_for("document.querySelector('#sessions-table tbody tr[data-id=%s]')" % json.dumps(sid), 15,
                      "alice's session in bob's list")
        check(page.eval("document.querySelectorAll('#sessions-table button.stop').length") == 0,
              "a viewer gets no Stop button")

        # a viewer may watch: frames of alice's session arrive
        page.click("#sessions-table tbody tr[data-id=%s] button.open" % json.dumps(sid))
        page.wait_for("/frame \\d+/.test(document.getElementById('sv-meta').textContent)", 20, "a frame for the viewer")
        a = shown_frame(page)["seq"]
        page.wait_for("+(/frame (\\d+)/.exec(document.getElementById('sv-meta').textContent) || [0, -1])[1] > %d" % a,
                      15, "the next frame for the viewer")
        check(True, "the viewer follows alice's session live (frame %d and on)" % a)

        # forcing the form: the daemon says 403 and the page says so
        st, before = api(args.url, token(args, "root"), "GET", "/sessions")
        page.eval("document.getElementById('start-fields').disabled = false")
        page.fill("#pids", str(args.pid))
        page.click("#start")
        err = page.wait_for("document.getElementById('start-error').textContent", 15, "the refusal")
        check("403" in err, "a forced start is refused with 403 shown: %r" % err)
        st, after = api(args.url, token(args, "root"), "GET", "/sessions")
        check(len(after["sessions"]) == len(before["sessions"]), "and no session was started")
        # and a forced stop (the function behind the Stop button)
        page.eval("stopSession({id: %s})" % json.dumps(sid))
        msg = page.wait_for("!document.getElementById('banner').hidden && document.getElementById('banner').textContent",
                            15, "the stop refusal")
        check("403" in msg, "a forced stop is refused with 403 shown: %r" % msg)
        st, s2 = api(args.url, alice, "GET", "/sessions/" + sid)
        check(s2["state"] == "running", "alice's session still runs")
        shot(page, args, "t10530-viewer", 900, ["bob", "viewer", "read-only", "Session " + sid, "403"])
        no_errors(page)
    finally:
        api(args.url, alice, "DELETE", "/sessions/" + sid)


def scenario_replay(args, b):
    """A recording replayed from the Recordings list: the cells and quality words the page
    shows for each row of the last frame, and the diagnosis's, dumped to --dump for
    tests/cli/vocab-fronts.py to hold against report, diagnose, top and /metrics."""
    alice = token(args, "alice")
    page = b.new_page(args.url + "/")
    login(page, alice)
    check(args.recording and len(args.recording) == len(args.dump or []), "a --dump for each --recording")
    for name, dump in zip(args.recording, args.dump):
        replay_one(args, page, alice, name, dump)
    no_errors(page)


def replay_one(args, page, alice, name, dump):
    sel = "#recordings-table tbody tr[data-name=%s] button.replay" % json.dumps(name)
    page.wait_for("!!document.querySelector(%s)" % json.dumps(sel), 60, "the recording in the list")
    before = page.eval("document.getElementById('sv-id').textContent")
    page.click(sel)
    sid = page.wait_for("!document.getElementById('session-view').hidden && "
                        "document.getElementById('sv-id').textContent !== %s && "
                        "document.getElementById('sv-id').textContent" % json.dumps(before),
                        60, "the replayed session's view")
    st, s = api(args.url, alice, "GET", "/sessions/" + sid)
    check(st == 200 and s.get("replay") == name, "session %s replays %s: %s" % (sid, name, s))
    page.wait_for("/frame %d /.test(document.getElementById('sv-meta').textContent)" % s["seq"], 60,
                  "the last frame (%d) shown" % s["seq"])
    rows = page.eval("""(() => {
        const out = {};
        for (const tr of document.querySelectorAll('#factors-table tbody tr[data-key]'))
            out[tr.dataset.key] = [...tr.querySelectorAll('td.factor')].map((td) => ({
                text: td.innerText,
                score: td.querySelector('.fscore') ? td.querySelector('.fscore').textContent : null,
                cost: td.querySelector('.fcost') ? td.querySelector('.fcost').textContent : null,
                words: [...td.querySelectorAll('.q')].map((q) => q.textContent)}));
        return out;
    })()""")
    check(len(rows) > 0, "the page shows %d rows of the replayed frame" % len(rows))
    page.click("#diagnose")
    page.wait_for("!!document.getElementById('diag-meta')", 60, "the diagnosis")
    diag = page.eval("""(() => {
        const out = {};
        for (const tr of document.querySelectorAll('#diag-vms tbody tr'))
            out[tr.cells[0].textContent] = [...tr.querySelectorAll('td.factor')].map((td) => ({
                text: td.innerText,
                score: td.querySelector('.fscore') ? td.querySelector('.fscore').textContent : null,
                words: [...td.querySelectorAll('.q')].map((q) => q.textContent)}));
        return out;
    })()""")
    with open(dump, "w") as f:
        json.dump({"seq": s["seq"], "rows": rows, "diagnosis": diag}, f, indent=1)
    shot(page, args, "t9111-replay-" + name.replace("+", "-").replace(".", "-"), 600, ["Session " + sid])
    api(args.url, alice, "DELETE", "/sessions/" + sid)


def map_counts(page):
    """What the placement map holds: elements by class, vCPU squares by VM/index, counted squares by CPU."""
    return page.eval("""(() => {
        const q = (s) => [...document.querySelectorAll(s)];
        return {
            nodes: q('#map-nodes .map-node').map((e) => +e.dataset.node),
            cpus: q('#map-nodes .map-cpu').map((e) => +e.dataset.cpu),
            cores: q('#map-nodes .map-core').map((e) => [...e.querySelectorAll('.map-cpu')].map((c) => +c.dataset.cpu)),
            llcs: q('#map-nodes .map-llc').length,
            vcpus: Object.fromEntries(q('#map-nodes .map-vcpu').map((e) => [e.dataset.vm + '/' + e.dataset.vcpu, +e.dataset.cpu])),
            n_vcpu_el: q('#map-nodes .map-vcpu').length,
            sev: q('#map-nodes .map-vcpu').map((e) => [e.dataset.sev, e.getAttribute('class')]),
            agg: Object.fromEntries(q('#map-nodes .map-agg').map((e) => [e.dataset.cpu, +e.dataset.count])),
            n_agg_el: q('#map-nodes .map-agg').length,
            bars: Object.fromEntries(q('#map-bars .map-vm').map((e) => [e.dataset.vm,
                Object.fromEntries([...e.querySelectorAll('.map-mem-seg')].map((g) => [g.dataset.node, g.classList.contains('remote')]))])),
            n_bars: q('#map-bars .map-vm').length,
            more: document.getElementById('map-more').textContent,
        };
    })()""")


def scenario_map(args, b):
    """The placement map of a fixture host (daemon --root) against --expect, a JSON file the
    test wrote by hand from the fixture tree: nodes, CPUs, SMT cores, LLCs, each vCPU's CPU
    (or, aggregated, the count per CPU), the memory bars; then each drill-down in "focus"."""
    with open(args.expect) as f:
        want = json.load(f)
    page = b.new_page(args.url + "/")
    login(page, token(args, "alice"))
    n_vcpus = want.get("n_vcpus", len(want.get("vcpus", {})))
    try:
        page.wait_for("/ %d vCPUs, sample/.test(document.getElementById('map-state').textContent)" % n_vcpus, 30,
                      "a top sample with %d vCPUs on the map" % n_vcpus)
    except CDPError:
        print("map state: %r; errors: %s" % (page.text("#map-state"), page.errors()))
        raise
    c = map_counts(page)
    check(sorted(c["nodes"]) == want["nodes"], "one box per node: %s" % c["nodes"])
    check(len(c["cpus"]) == want["cpus"] and len(set(c["cpus"])) == want["cpus"], "one element per CPU: %d" % len(c["cpus"]))
    check(sorted(sorted(x) for x in c["cores"]) == sorted(sorted(x) for x in want["cores"]),
          "SMT siblings grouped as cores: %d cores" % len(c["cores"]))
    check(c["llcs"] == want["llcs"], "LLC domains: %d" % c["llcs"])
    if "vcpus" in want:
        check(c["vcpus"] == want["vcpus"], "one square per vCPU, each on its CPU: %s" % c["vcpus"])
        check(c["n_agg_el"] == 0, "nothing aggregated for %d VMs" % len(want["bars"]))
        # the fixture has no cost thresholds: every severity is n/a, drawn grey, never as ok
        bad = [x for x in c["sev"] if x[0] != want["sev"] or "sev-ok" in x[1]]
        check(not bad, "every vCPU square has severity %s and none is coloured ok: %s" % (want["sev"], bad[:3]))
    if "agg" in want:
        check(c["n_vcpu_el"] == 0, "aggregated: no vCPU drawn one by one (%d)" % c["n_vcpu_el"])
        check(c["agg"] == want["agg"], "one counted square per busy CPU with its vCPU count (sum %d)" % sum(c["agg"].values()))
    if "bars" in want:
        check(c["bars"] == want["bars"], "memory bars: each VM split by node, remote parts marked: %s" % c["bars"])
    if "n_bars" in want:
        check(c["n_bars"] == want["n_bars"] and want["more"] in c["more"],
              "%d memory bars and %r (%r)" % (c["n_bars"], want["more"], c["more"]))
    shot(page, args, args.shot, 600, ["Placement map", "node %d" % want["nodes"][0]])
    for fo in want.get("focus", []):
        page.eval("(() => { const s = document.getElementById('map-focus'); s.value = %s;"
                  " s.dispatchEvent(new Event('change')); })()" % json.dumps(fo["focus"]))
        c = map_counts(page)
        check(sorted(c["nodes"]) == fo["nodes"], "%s: node boxes %s" % (fo["focus"], c["nodes"]))
        check(c["n_vcpu_el"] == fo["n_vcpu_el"], "%s: %d vCPUs drawn one by one" % (fo["focus"], c["n_vcpu_el"]))
        check(sum(c["agg"].values()) == fo["agg_total"], "%s: %d vCPUs counted" % (fo["focus"], sum(c["agg"].values())))
        check(c["n_bars"] == fo["n_bars"], "%s: %d memory bars" % (fo["focus"], c["n_bars"]))
        shot(page, args, args.shot + "-" + fo["focus"].replace(":", "-"), 400, ["Placement map"])
    no_errors(page)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["login", "session", "viewer", "replay", "map"])
    ap.add_argument("--url", required=True)
    ap.add_argument("--tokens", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--keep")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--recording", action="append",
                    help="replay: a recording's name in the daemon's directory (repeatable)")
    ap.add_argument("--dump", action="append", help="replay: where its shown cells go (JSON), one per --recording")
    ap.add_argument("--expect", help="map: the expected map (JSON, written by the test)")
    ap.add_argument("--shot", default="map", help="map: the screenshot's name")
    ap.add_argument("--models", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
    args = ap.parse_args()
    try:
        with Browser(width=1280, height=900, log_path=os.path.join(args.out, "chromium.log")) as b:
            globals()["scenario_" + args.scenario](args, b)
    except (Fail, CDPError) as e:
        print("FAIL:", e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
