"""Headless Chromium driven over the DevTools protocol (a websocket), for the tests that use the
service's pages as a person does: type into a form, click, wait for a page to change, take a
screenshot. The same /usr/bin/chromium as tests/browser.py (need_chromium skips locally, fails in CI)."""
from __future__ import annotations

import base64
import json
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.browser import CHROMIUM


class Chromium:
    """One headless Chromium with one page: ``goto``, ``js``, ``wait``, ``screenshot``."""

    def __init__(self, work: Path, width: int = 1200, height: int = 900, chromium: Path = CHROMIUM):
        import websocket

        self.work = Path(work)
        profile = self.work / "profile"
        profile.mkdir(parents=True, exist_ok=True)
        (profile / "DevToolsActivePort").unlink(missing_ok=True)  # a reused profile's is stale
        self.proc = subprocess.Popen(
            [str(chromium), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={profile}",
             "--hide-scrollbars", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.time() + 60
        while not (port_file.is_file() and port_file.read_text().strip()):
            if time.time() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        page = None
        while page is None and time.time() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                page = next((t for t in json.load(r) if t.get("type") == "page"), None)
            if page is None:
                time.sleep(0.05)
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self.next_id = 0
        self.console: list[str] = []
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params):
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("method") == "Runtime.consoleAPICalled":
                args = message["params"].get("args") or []
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
            elif message.get("method") == "Runtime.exceptionThrown":
                self.console.append("exception: " + json.dumps(message["params"]["exceptionDetails"])[:500])
            if message.get("id") == mine:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails'].get('text')} "
                               f"{result['exceptionDetails'].get('exception', {}).get('description', '')}")
        return result.get("result", {}).get("value")

    def wait(self, expression: str, timeout: float = 60.0, every: float = 0.1):
        """Until the expression is truthy; its value."""
        deadline = time.time() + timeout
        while True:
            try:
                value = self.js(expression)
            except RuntimeError:  # the page is being replaced
                value = None
            if value:
                return value
            if time.time() > deadline:
                raise TimeoutError(f"waited {timeout:g} s for {expression}; page: {self.text()[:1500]}")
            time.sleep(every)

    def goto(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.loaded(url)

    def loaded(self, url_part: str = "") -> None:
        self.wait(f"document.readyState === 'complete' && location.href.indexOf({json.dumps(url_part)}) >= 0")

    def text(self) -> str:
        try:
            return self.js("document.body ? document.body.innerText : ''") or ""
        except RuntimeError:
            return ""

    def screenshot(self, path: Path, full: bool = True) -> Path:
        params = {"format": "png"}
        if full:
            size = self.js("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size[0], "height": min(size[1], 6000), "scale": 1})
        data = self.call("Page.captureScreenshot", **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                try:
                    self.call("Browser.close")
                except Exception:  # noqa: BLE001 - the browser may already be gone
                    pass
                self.ws.close()
        finally:
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
