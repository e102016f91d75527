"""The load and kill -9 scripts as tests: a quick kill -9 recovery check in the
default run; the full scripts are marked ``slow`` (``pytest -m slow``)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))


def test_kill_minus_9_during_saves_loses_nothing():
    import killtest
    f = killtest.run(kills=3, workers=3, seed=7, run_min=0.3, run_max=0.8)
    assert f["problems"] == []
    assert f["games_lost"] == 0 and f["hands_lost"] == 0
    assert f["integrity_check"] == "ok"
    assert f["saves_acknowledged"] >= 6 and f["games_saved"] >= 1 and f["kills"] == 3


@pytest.mark.slow
def test_killtest_script():
    res = subprocess.run([sys.executable, "scripts/killtest.py", "--kills", "10"], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    print(res.stdout)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "games lost: 0" in res.stdout


@pytest.mark.slow
@pytest.mark.parametrize("reader", ["stub", "auto"])
def test_loadtest_script(reader):
    res = subprocess.run([sys.executable, "scripts/loadtest.py", "--reader", reader], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    print(res.stdout)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "errors: 0" in res.stdout and "timeouts: 0" in res.stdout
