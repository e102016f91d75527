"""Shared by scripts/loadtest.py and scripts/killtest.py: start the real server
(``python -m companion serve``) on a free loopback port with a temporary
instance folder, and talk to it like a browser does (session cookie, CSRF
token from the page, idempotency keys).  Loopback only; standard library only.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """``python -m companion serve`` as a child process that can be killed with SIGKILL."""

    def __init__(self, instance: Path, port: int | None = None, preload: bool = False,
                 threads: int | None = None, log: Path | None = None, extra: list[str] | None = None):
        self.instance = Path(instance)
        self.port = port or free_port()
        self.preload = preload
        self.threads = threads
        self.extra = list(extra or [])
        self.log_path = log or (self.instance.parent / f"server-{self.port}.log")
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def cmd(self) -> list[str]:
        cmd = [sys.executable, "-m", "companion", "serve", "--host", HOST, "--port", str(self.port),
               "--instance", str(self.instance)]
        if not self.preload:
            cmd.append("--no-preload")
        if self.threads:
            cmd += ["--threads", str(self.threads)]
        return cmd + self.extra

    def start(self, timeout: float = 90.0) -> float:
        """Start and wait until it answers; returns the seconds it took."""
        t0 = time.monotonic()
        log = open(self.log_path, "ab")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(self.cmd(), stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                     env=env, stdin=subprocess.DEVNULL)
        log.close()
        self.starts += 1
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}); see {self.log_path}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/static/favicon.svg")
                ok = conn.getresponse().status == 200
                conn.close()
                if ok:
                    return time.monotonic() - t0
            except OSError:
                pass
            if time.monotonic() - t0 > timeout:
                self.kill()
                raise RuntimeError(f"the server did not answer within {timeout:.0f} s; see {self.log_path}")
            time.sleep(0.1)

    def kill(self) -> None:
        """kill -9: no shutdown code runs."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class Unreachable(Exception):
    """The request did not get an answer (server down or killed mid-request)."""


class Browser:
    """One player's browser: a cookie jar, the page's CSRF token, fresh idempotency keys."""

    def __init__(self, port: int, timeout: float = 60.0):
        self.port = port
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self.token: str | None = None
        self.requests = 0

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> tuple[int, dict, bytes]:
        h = dict(headers or {})
        if self.cookies:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method != "GET" and self.token:
            h.setdefault("X-CSRF-Token", self.token)
        self.requests += 1
        try:
            conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            conn.request(method, path, body=body, headers=h)
            resp = conn.getresponse()
            data = resp.read()
            conn.close()
        except (OSError, http.client.HTTPException) as exc:
            raise Unreachable(str(exc)) from None
        for value in resp.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = rest.strip()
        return resp.status, dict(resp.headers), data

    def open(self) -> None:
        """Load the home page: the session cookie and the CSRF token."""
        status, _, data = self.request("GET", "/")
        if status != 200:
            raise RuntimeError(f"GET / answered {status}")
        m = re.search(rb'name="csrf-token" content="([^"]+)"', data)
        if not m:
            raise RuntimeError("no CSRF token on the home page")
        self.token = m.group(1).decode()

    def post_form(self, path: str, fields: dict) -> tuple[int, dict, bytes]:
        return self.request("POST", path, urlencode(fields).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})

    def post_json(self, path: str, obj, key: str | None = None) -> tuple[int, dict, bytes]:
        h = {"Content-Type": "application/json", "X-Requested-With": "fetch",
             "Accept": "application/json"}
        if key:
            h["Idempotency-Key"] = key
        return self.request("POST", path, json.dumps(obj).encode(), h)

    def post_file(self, path: str, field: str, filename: str, data: bytes,
                  key: str | None = None) -> tuple[int, dict, bytes]:
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; "
                f"filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
        body += data + f"\r\n--{boundary}--\r\n".encode()
        h = {"Content-Type": f"multipart/form-data; boundary={boundary}",
             "X-Requested-With": "fetch", "Accept": "application/json"}
        if key:
            h["Idempotency-Key"] = key
        return self.request("POST", path, body, h)

    def create_table(self, players: list[str], cards_dealt: int = 3) -> int:
        fields = {f"seat_{i}": p for i, p in enumerate(players)}
        fields.update({"dealer": "0", "cards_dealt": str(cards_dealt), "going_out": "standard",
                       "client_token": new_key()})
        status, headers, data = self.post_form("/tables", fields)
        if status != 303:
            raise RuntimeError(f"creating a table answered {status}: {data[:300]!r}")
        return int(headers["Location"].rstrip("/").rsplit("/", 1)[-1])


def new_key() -> str:
    return secrets.token_hex(16)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)
