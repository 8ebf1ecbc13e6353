"""sse_load.py - N concurrent SSE clients against a vmmprof daemon; its CPU and RSS from /proc.

  sse_load.py --url URL --token T --pid DAEMON_PID --sessions ID[,ID...] [--clients 100]
              [--duration 60] [--interval-ms 1000] [--warmup 5] [--sample 5]

The clients are spread round-robin over the sessions' /stream endpoints and
read every frame (one asyncio task per client, raw HTTP/1.1, chunked or
not).  After a warm-up, for DURATION seconds: every SAMPLE seconds the
daemon's CPU time (utime + stime of /proc/PID/stat) and VmRSS; at the end
each session's history says which frames the daemon produced in that
window, and each client's missed intervals are the window's frames it did
not receive.  Prints the figures and the pass criteria, exits 1 when one
fails:
  - no client misses more than one interval;
  - CPU flat: the fitted change of CPU % over the window within
    +-max(1 %-point, 25 % of its mean);
  - RSS flat: the fitted change within +-max(2 MiB, 5 % of its mean).
"""
import argparse
import asyncio
import json
import os
import sys
import time
import urllib.parse
import urllib.request

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu_rss(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK   # utime, stime (fields 14, 15)
    rss = None
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])             # KiB
    return cpu, rss


def self_cpu():
    t = os.times()
    return t.user + t.system


def fit(xs, ys):
    """Least-squares slope and mean of ys over xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0, my
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx, my


class Client:
    def __init__(self, idx, sid):
        self.idx, self.sid = idx, sid
        self.frames = {}        # seq -> arrival time (monotonic-free: time.time())
        self.error = None
        self.connected = False


async def run_client(c, host, port, path, token, stop):
    try:
        r, w = await asyncio.open_connection(host, port)
        w.write(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\n"
                 "Accept: text/event-stream\r\nConnection: keep-alive\r\n\r\n" % (path, host, port, token)).encode())
        await w.drain()
        status = await r.readline()
        if b" 200 " not in status:
            c.error = status.decode(errors="replace").strip()
            w.close()
            return
        chunked = False
        while True:
            h = await r.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            k, _, v = h.decode().partition(":")
            if k.strip().lower() == "transfer-encoding" and "chunked" in v.lower():
                chunked = True
        c.connected = True
        buf = b""
        etype, data = "", []

        async def chunks():
            while True:
                if chunked:
                    size = await r.readline()
                    if not size:
                        return
                    n = int(size.split(b";")[0].strip() or b"0", 16)
                    if n == 0:
                        return
                    d = await r.readexactly(n)
                    await r.readline()
                    yield d
                else:
                    d = await r.read(65536)
                    if not d:
                        return
                    yield d

        async for d in chunks():
            if stop.is_set():
                break
            buf += d
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                line = line.rstrip(b"\r").decode()
                if line == "":
                    if etype == "frame" and data:
                        try:
                            seq = json.loads("\n".join(data))["seq"]
                            c.frames.setdefault(seq, time.time())
                        except (ValueError, KeyError):
                            pass
                    etype, data = "", []
                elif line.startswith(":"):
                    continue
                else:
                    k, _, v = line.partition(":")
                    v = v[1:] if v.startswith(" ") else v
                    if k == "event":
                        etype = v
                    elif k == "data":
                        data.append(v)
        w.close()
        if not stop.is_set():
            c.error = "the stream ended early"
    except (OSError, asyncio.IncompleteReadError) as e:
        if not stop.is_set():
            c.error = str(e) or type(e).__name__


def history(url, token, sid):
    req = urllib.request.Request(url + "/api/v1/sessions/%s/history" % sid)
    req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())["frames"]


async def main_async(a):
    u = urllib.parse.urlsplit(a.url)
    host, port = u.hostname, u.port or 80
    sids = a.sessions.split(",")
    clients = [Client(i, sids[i % len(sids)]) for i in range(a.clients)]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(run_client(c, host, port, "/api/v1/sessions/%s/stream" % c.sid, a.token, stop))
             for c in clients]
    t_w = time.time()
    while time.time() - t_w < 30 and sum(c.connected or bool(c.error) for c in clients) < a.clients:
        await asyncio.sleep(0.1)
    await asyncio.sleep(a.warmup)
    up = sum(c.connected for c in clients)
    load0 = open("/proc/loadavg").read().split()[:3]
    print("%d of %d clients streaming (%.1f s to connect, then %g s warm-up); load average %s"
          % (up, a.clients, time.time() - t_w - a.warmup, a.warmup, " ".join(load0)))
    print("%8s %8s %10s %10s" % ("t (s)", "CPU %", "RSS (MiB)", "frames"))
    t0 = time.time()
    c0, r0 = proc_cpu_rss(a.pid)
    s0 = self_cpu()
    samples = []
    prev_t, prev_c = t0, c0
    while time.time() - t0 < a.duration - 1e-3:
        await asyncio.sleep(min(a.sample, a.duration - (time.time() - t0)))
        now = time.time()
        cpu, rss = proc_cpu_rss(a.pid)
        pct = 100.0 * (cpu - prev_c) / (now - prev_t)
        prev_t, prev_c = now, cpu
        nf = sum(len(c.frames) for c in clients)
        samples.append((now - t0, pct, rss / 1024.0))
        print("%8.1f %8.2f %10.2f %10d" % (now - t0, pct, rss / 1024.0, nf), flush=True)
    t1 = time.time()
    c1, r1 = proc_cpu_rss(a.pid)
    s1 = self_cpu()
    load1 = open("/proc/loadavg").read().split()[:3]
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    # the frames each session produced inside the window, by the daemon's own time stamps
    produced = {}
    for sid in sids:
        produced[sid] = sorted(f["seq"] for f in history(a.url, a.token, sid) if t0 <= f["time"] <= t1 - 0.5)
    missed = []
    lat = []
    for c in clients:
        want = produced[c.sid]
        m = sum(1 for s in want if s not in c.frames)
        missed.append(m)
        if c.error:
            print("client %d (%s): %s" % (c.idx, c.sid, c.error))
    for sid in sids:
        print("session %s: %d frames in the window (interval %d ms: %d expected)"
              % (sid, len(produced[sid]), a.interval_ms, int((t1 - t0 - 0.5) * 1000 / a.interval_ms)))
    hist = {}
    for m in missed:
        hist[m] = hist.get(m, 0) + 1
    print("missed intervals per client: max %d; clients by count missed: %s"
          % (max(missed), ", ".join("%d missed: %d" % (k, v) for k, v in sorted(hist.items()))))
    print("daemon: %.2f %% CPU on average over %.0f s (%.2f s CPU); RSS %.2f -> %.2f MiB"
          % (100 * (c1 - c0) / (t1 - t0), t1 - t0, c1 - c0, r0 / 1024.0, r1 / 1024.0))
    print("clients (this process): %.2f %% CPU; load average %s at the start, %s at the end"
          % (100 * (s1 - s0) / (t1 - t0), " ".join(load0), " ".join(load1)))

    xs = [s[0] / 60.0 for s in samples]
    cs, cm = fit(xs, [s[1] for s in samples])
    rs, rm = fit(xs, [s[2] for s in samples])
    span = (xs[-1] - xs[0]) if len(xs) > 1 else 0.0
    cpu_ok = abs(cs * span) <= max(1.0, 0.25 * cm)
    rss_ok = abs(rs * span) <= max(2.0, 0.05 * rm)
    miss_ok = max(missed) <= 1 and all(produced[s] for s in sids) and not any(c.error for c in clients)
    print("CPU slope %+.3f %%-points/min (mean %.2f %%): %s" % (cs, cm, "flat" if cpu_ok else "NOT flat"))
    print("RSS slope %+.3f MiB/min (mean %.2f MiB): %s" % (rs, rm, "flat" if rss_ok else "NOT flat"))
    print("no client missed more than one interval: %s" % ("yes" if miss_ok else "NO"))
    ok = cpu_ok and rss_ok and miss_ok
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--sessions", required=True)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--interval-ms", type=int, default=1000)
    ap.add_argument("--warmup", type=float, default=5)
    ap.add_argument("--sample", type=float, default=5)
    a = ap.parse_args()
    return asyncio.run(main_async(a))


if __name__ == "__main__":
    sys.exit(main())
