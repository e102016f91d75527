"""``companion.web.server``: options, and the real thing on waitress."""
from __future__ import annotations

import subprocess
import sys
import time
import urllib.request

from companion.web.server import build_parser

from .conftest import free_port


def test_defaults():
    args = build_parser().parse_args([])
    assert (args.host, args.port, args.instance) == ("127.0.0.1", 5000, None)
    args = build_parser().parse_args(["--host", "0.0.0.0", "--port", "8080", "--instance", "x"])
    assert (args.host, args.port, args.instance) == ("0.0.0.0", 8080, "x")


def test_serves_with_waitress(tmp_path):
    port = free_port()
    inst = tmp_path / "inst"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from companion.web.server import main; "
         "sys.exit(main(sys.argv[1:]))", "--port", str(port), "--instance", str(inst),
         "--no-preload"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    assert r.status == 200
                    assert r.headers["Server"] == "companion"
                    break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.3)
        assert (inst / "companion.sqlite3").exists()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
