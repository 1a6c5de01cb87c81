"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
no port, no websocket), for the tests that check a report renders in a real browser.

``ZEROE_CHROMIUM`` names the browser binary; else the first of ``chromium``, ``chromium-browser``,
``google-chrome`` on the PATH (``make test`` installs Debian's ``chromium`` where it can).
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH, HEIGHT = 1280, 800


def find_chromium() -> str | None:
    chosen = os.environ.get("ZEROE_CHROMIUM")
    if chosen:
        return shutil.which(chosen) or (chosen if os.access(chosen, os.X_OK) else None)
    return next((shutil.which(n) for n in NAMES if shutil.which(n)), None)


class Browser:
    """One headless browser with one page, 1280×800; every event it sends is kept in
    ``events`` (console messages, exceptions, requests)."""

    def __init__(self, binary: str, timeout: float = 30.0):
        self.timeout, self.events, self._next, self._buffer = timeout, [], 0, b""
        self.profile = tempfile.mkdtemp(prefix="zeroe-chromium-")
        to_browser, self._in = os.pipe()  # the browser reads commands on its fd 3
        self._out, from_browser = os.pipe()  # and writes answers on its fd 4

        def wire():  # in the child: the two ends to fds 3 and 4, by way of free fds (≥ 10)
            read, write = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser))
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--mute-audio", f"--window-size={WIDTH},{HEIGHT}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, close_fds=False)
        os.close(to_browser)
        os.close(from_browser)
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=self.session)
        self.call("Emulation.setDeviceMetricsOverride", session=self.session, width=WIDTH,
                  height=HEIGHT, deviceScaleFactor=1, mobile=False)

    def _read(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, session: str | None = None, **params) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._in, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def wait_for(self, event: str) -> dict:
        for seen in self.events:
            if seen["method"] == event:
                self.events.remove(seen)
                return seen
        while True:
            answer = self._read()
            self.events.append(answer)
            if answer.get("method") == event:
                self.events.remove(answer)
                return answer

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event (images decoded, scripts run)."""
        self.events.clear()
        self.call("Page.navigate", session=self.session, url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", session=self.session, expression=expression,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        """The first 1280×800 of the page, as PNG."""
        return base64.b64decode(self.call("Page.captureScreenshot", session=self.session,
                                          format="png")["data"])

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and log errors (a blocked request) so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("text", "exception"))
            elif e.get("method") == "Runtime.consoleAPICalled" and p["type"] in ("error",
                                                                                 "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif e.get("method") == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(p["entry"]["text"])
        return out

    def requests(self) -> list[str]:
        """The URLs the page asked for (its own file and data: URIs included)."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._in)
        os.close(self._out)
        shutil.rmtree(self.profile, ignore_errors=True)
