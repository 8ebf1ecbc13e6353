"""cdp.py - drive headless Chromium over the DevTools protocol, for the web UI tests.

No third-party package: Chromium is started with --remote-debugging-pipe, and
the protocol's JSON messages travel NUL-terminated over file descriptors 3
(to the browser) and 4 (from it).  What the tests need and nothing more:
open a page, evaluate JavaScript, wait for a condition, collect console
errors, take a screenshot; and png_stats() to check a screenshot without PIL.
"""
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib


class CDPError(Exception):
    pass


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    """One headless Chromium; close() ends it and removes its profile."""

    def __init__(self, width=1280, height=1600, log_path=None):
        exe = chromium_path()
        if not exe:
            raise CDPError("chromium is not installed")
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="vp-chromium-")
        to_r, self._to_w = os.pipe()       # we write, Chromium reads fd 3
        self._from_r, from_w = os.pipe()   # Chromium writes fd 4, we read

        def child_fds():
            a, b = os.dup(to_r), os.dup(from_w)  # out of the way of 3 and 4 first
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        log = open(log_path or os.devnull, "ab")
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--no-first-run", "--no-default-browser-check",
             "--hide-scrollbars", "--force-device-scale-factor=1",
             "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=False, preexec_fn=child_fds)
        log.close()
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._id = 0
        self.events = []
        self.send("Browser.getVersion", timeout=60)

    def _read_msg(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for Chromium")
            r, _, _ = select.select([self._from_r], [], [], left)
            if not r:
                continue
            d = os.read(self._from_r, 1 << 16)
            if not d:
                raise CDPError("Chromium closed the pipe (exit %s)" % self.proc.poll())
            self._buf += d
        m, self._buf = self._buf.split(b"\0", 1)
        return json.loads(m)

    def send(self, method, params=None, session=None, timeout=30):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_msg(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise CDPError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self.events.append(m)

    def pump(self, seconds=0.0):
        """Read the events that arrived (console messages, exceptions)."""
        deadline = time.monotonic() + seconds
        while True:
            r, _, _ = select.select([self._from_r], [], [], max(0.0, deadline - time.monotonic()))
            if not r:
                return
            d = os.read(self._from_r, 1 << 16)
            if not d:
                return
            self._buf += d
            while b"\0" in self._buf:
                m, self._buf = self._buf.split(b"\0", 1)
                self.events.append(json.loads(m))

    def new_page(self, url):
        t = self.send("Target.createTarget", {"url": "about:blank"})
        s = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
        page = Page(self, s)
        self.send("Runtime.enable", session=s)
        self.send("Page.enable", session=s)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False}, session=s)
        page.goto(url)
        return page

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_w, self._from_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    def __init__(self, browser, session):
        self.b = browser
        self.s = session

    def goto(self, url, timeout=30):
        self.b.send("Page.navigate", {"url": url}, session=self.s)
        self.wait_for("document.readyState === 'complete'", timeout, "page load of " + url)

    def reload(self, timeout=30):
        self.b.send("Page.reload", {}, session=self.s)
        time.sleep(0.2)
        self.wait_for("document.readyState === 'complete'", timeout, "page reload")

    def eval(self, expr, timeout=30):
        """The value of a JavaScript expression (promises awaited), as JSON."""
        r = self.b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                        session=self.s, timeout=timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CDPError("javascript: %s: %s" % (d.get("text"), d.get("exception", {}).get("description", "")))
        return r["result"].get("value")

    def wait_for(self, expr, timeout, what):
        """Poll a JavaScript expression until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        last_err = None
        while time.monotonic() < deadline:
            try:
                v = self.eval("(() => { const v = (%s); return v ? [typeof v === 'object' ? true : v] : null; })()"
                              % expr)
                if v:
                    return v[0]
            except CDPError as e:
                last_err = e
            time.sleep(0.2)
        raise CDPError("timed out after %g s waiting for %s%s" % (timeout, what, (": %s" % last_err) if last_err else ""))

    def text(self, selector):
        return self.eval("(() => { const e = document.querySelector(%s); return e ? e.textContent : null; })()"
                         % json.dumps(selector))

    def click(self, selector):
        ok = self.eval("(() => { const e = document.querySelector(%s); if (!e) return false; e.click(); return true; })()"
                       % json.dumps(selector))
        if not ok:
            raise CDPError("nothing to click at " + selector)

    def fill(self, selector, value):
        ok = self.eval("(() => { const e = document.querySelector(%s); if (!e) return false; e.value = %s;"
                       " e.dispatchEvent(new Event('input', {bubbles: true}));"
                       " e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()"
                       % (json.dumps(selector), json.dumps(value)))
        if not ok:
            raise CDPError("nothing to fill at " + selector)

    def errors(self):
        """Uncaught exceptions and console.error messages seen so far."""
        self.b.pump(0.1)
        out = []
        for m in self.b.events:
            if m.get("sessionId") != self.s:
                continue
            if m.get("method") == "Runtime.exceptionThrown":
                d = m["params"]["exceptionDetails"]
                out.append("exception: %s %s" % (d.get("text"), d.get("exception", {}).get("description", "")))
            elif m.get("method") == "Runtime.consoleAPICalled" and m["params"].get("type") == "error":
                out.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                        for a in m["params"].get("args", [])))
        return out

    def screenshot(self, path, full_page=True):
        """A PNG of the page (its whole height when full_page); returns (width, height)."""
        params = {"format": "png"}
        if full_page:
            w, h = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}
            params["captureBeyondViewport"] = True
        import base64
        data = base64.b64decode(self.b.send("Page.captureScreenshot", params, session=self.s, timeout=60)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return png_size(data)


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])


class PngStats:
    def __init__(self, width, height, hist, sampled):
        self.width, self.height = width, height
        self.colours = len(hist)                                # distinct colours sampled
        self.commonest = max(hist.values()) / max(1, sampled)   # share of the commonest one
        self.white = hist.get(b"\xff\xff\xff", 0) / max(1, sampled)


def png_stats(path, step=4):
    """PngStats of an 8-bit RGB(A) PNG (no interlace), sampling every step-th row and column."""
    b = open(path, "rb").read()
    w, h = png_size(b)
    pos, idat = 8, b""
    depth = ctype = inter = None
    while pos < len(b):
        n, typ = struct.unpack(">I4s", b[pos:pos + 8])
        data = b[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            _, _, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", data)
        elif typ == b"IDAT":
            idat += data
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6) or inter != 0:
        raise ValueError("unexpected PNG format depth %s type %s interlace %s" % (depth, ctype, inter))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours, sampled, p = {}, 0, 0
    for y in range(h):
        f = raw[p]
        line = bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + (a + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                c = prev[i - bpp] if i >= bpp else 0
                up = prev[i]
                pa, pb, pc = abs(up - c), abs(a - c), abs(a + up - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else (up if pb <= pc else c))) & 255
        if y % step == 0:
            for x in range(0, stride, bpp * step):
                px = bytes(line[x:x + 3])
                colours[px] = colours.get(px, 0) + 1
                sampled += 1
        prev = line
    return PngStats(w, h, colours, sampled)
