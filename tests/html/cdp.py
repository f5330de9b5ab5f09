"""A small Chrome DevTools Protocol client over a WebSocket, standard library only: starts
headless Chromium, loads pages, presses keys, evaluates script, takes screenshots."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, width, height, env=None):
        self.profile = tempfile.mkdtemp(prefix="ttrace-cdp-")
        args = [find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--remote-debugging-port=0", "--user-data-dir=" + self.profile,
                "--window-size=%d,%d" % (width, height), "--force-device-scale-factor=1", "about:blank"]
        self.proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
        url = None
        deadline = time.time() + 60
        while time.time() < deadline and not url:
            line = self.proc.stderr.readline().decode("utf-8", "replace")
            if not line and self.proc.poll() is not None:
                raise RuntimeError("chromium exited before it listened")
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m.group(1)
        port = int(re.search(r":(\d+)/", url).group(1))
        pages = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
        ws = [p for p in pages if p["type"] == "page"][0]["webSocketDebuggerUrl"]
        self.sock = self._connect(ws)
        self.next_id = 0
        self.events = []
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _connect(self, url):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        s = socket.create_connection((m.group(1), int(m.group(2))), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                   % (m.group(3), m.group(1), m.group(2), key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("websocket handshake failed: %r" % head)
        return s

    def _recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise RuntimeError("websocket closed")
            buf += chunk
        return buf

    def _send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _recv(self):
        message = b""
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            message += self._recv_exact(n)
            if b0 & 0x80:
                return json.loads(message.decode())

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = self._recv()
            if "method" in msg:
                self.events.append(msg["method"])
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("script error in %s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def load(self, url):
        """Opens url afresh (a page already open is left first, so a #hash loads it anew)."""
        if url != "about:blank":
            self.load("about:blank")
        self.events = []
        self.call("Page.navigate", url=url)
        while "Page.loadEventFired" not in self.events:
            msg = self._recv()
            if "method" in msg:
                self.events.append(msg["method"])
        self.eval("document.fonts.ready.then(function () { return document.fonts.size; })")

    KEYS = {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35, "PageDown": 34, "PageUp": 33, "l": 76}

    def key(self, name):
        code = self.KEYS[name]
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=name, code=name if len(name) > 1 else "KeyL",
                      windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)
        self.eval("document.fonts.ready.then(function () { return 1; })")

    def screenshot(self, x, y, w, h):
        r = self.call("Page.captureScreenshot", format="png",
                      clip={"x": x, "y": y, "width": w, "height": h, "scale": 1}, captureBeyondViewport=True)
        return base64.b64decode(r["data"])

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
