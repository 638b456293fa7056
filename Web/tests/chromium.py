"""Headless Chromium over the DevTools protocol, for the page's tests and benchmark.

Chromium(url) starts Debian's chromium headless (a fresh profile in a temporary folder, the
DevTools port the browser picks), connects to its page with websocket-client, and keeps every
console message and exception the page reports. call(method, **params) sends one protocol command
and returns its result; evaluate(expression) runs JavaScript in the page (promises awaited) and
returns its value.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import websocket


class ProtocolError(Exception):
    pass


class Chromium:
    def __init__(self, width=1100, height=640, arguments=()):
        self.profile = tempfile.mkdtemp(prefix="web-test-chromium-")
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
             "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height), "--hide-scrollbars",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio", *arguments, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if time.time() > deadline or self.process.poll() is not None:
                raise RuntimeError("chromium did not start")
            time.sleep(0.05)
        port = int(open(port_file).read().split("\n")[0])
        self.version = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/version" % port))["Browser"]
        pages = [t for t in json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port)) if t["type"] == "page"]
        self.socket = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=600, suppress_origin=True)
        self.next_id = 0
        self.console = []      # (level, text)
        self.exceptions = []   # text
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")
        # The viewport itself this size (the window's size is not the page's in headless mode).
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _event(self, message):
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.console.append((params.get("type"), text))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.exceptions.append(details.get("exception", {}).get("description") or details.get("text"))
        elif method == "Log.entryAdded":
            entry = params["entry"]
            self.console.append((entry["level"], entry.get("text", "")))

    def call(self, method, **params):
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise ProtocolError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            self._event(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise ProtocolError("%s: %s" % (expression[:80], details.get("exception", {}).get("description") or details.get("text")))
        return result["result"].get("value")

    def navigate(self, url, ready="window.springKernelDemo !== undefined"):
        self.call("Page.navigate", url=url)
        deadline = time.time() + 30
        while not self.evaluate("(() => { try { return %s; } catch (e) { return false; } })()" % ready):
            if time.time() > deadline:
                raise RuntimeError("the page did not become ready: console %s, exceptions %s" % (self.console, self.exceptions))
            time.sleep(0.05)

    def mouse(self, kind, x, y, buttons=1):
        """One real mouse event (Input.dispatchMouseEvent): kind 'mousePressed', 'mouseMoved' or 'mouseReleased'."""
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left" if kind != "mouseMoved" or buttons else "none",
                  buttons=buttons if kind != "mouseReleased" else 0, clickCount=1 if kind != "mouseMoved" else 0, pointerType="mouse")

    def touch(self, kind, x=None, y=None):
        """One real touch event (Input.dispatchTouchEvent): kind 'touchStart', 'touchMove' or 'touchEnd'."""
        self.call("Input.dispatchTouchEvent", type=kind, touchPoints=[] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}])

    def close(self):
        try:
            self.socket.close()
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
