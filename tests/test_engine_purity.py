"""The scoring engine is pure Python: importing it (and running the command
line) must not pull in the image or web stacks."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ("companion", "companion.errors", "companion.cards", "companion.melds",
          "companion.solver", "companion.judge", "companion.match", "companion.preliminary",
          "companion.contract", "companion.cli", "companion.bench", "companion.__main__")
HEAVY = ("cv2", "torch", "numpy", "flask", "onnxruntime", "PIL", "ultralytics", "werkzeug")


def test_engine_imports_nothing_heavy():
    code = (
        "import sys, importlib\n"
        f"for m in {ENGINE!r}: importlib.import_module(m)\n"
        "from companion.cli import main\n"
        "import io\n"
        "main(['score', '--json', '2H', '3H', '4H'], stdout=io.StringIO())\n"
        f"print(','.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_engine_sources_do_not_mention_heavy_imports():
    for name in ENGINE:
        path = ROOT / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / name.replace(".", "/") / "__init__.py"
        text = path.read_text()
        for heavy in ("cv2", "torch", "numpy", "flask"):
            assert f"import {heavy}" not in text, (path, heavy)
            assert f"from {heavy}" not in text, (path, heavy)
