"""The companion runs on its declared dependencies alone.

`pip install -e .` installs numpy, opencv, onnxruntime, pillow, flask,
waitress and segno, nothing else.  PyYAML, torch and Ultralytics come with
the training extra, and the test tools with the test extra, so a module the
reader or the web app imports must not need them; this test reads a photo
through the real app with them blocked.  (A top-level ``import yaml`` in
vision/yolo_data.py once broke every photo upload on a fresh install.)
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOT_DECLARED = ("yaml", "torch", "torchvision", "ultralytics", "onnx", "pytest", "hypothesis",
                "playwright", "jsonschema")
PHOTO = ROOT / "tests" / "fixtures" / "photos" / "synthetic_ts4242_0000026.jpg"


def test_a_photo_is_read_through_the_app_without_training_or_test_packages(tmp_path):
    code = (
        "import sys, io, json\n"
        f"for name in {NOT_DECLARED!r}: sys.modules[name] = None  # importing them now fails\n"
        "from companion.web import create_app\n"
        f"app = create_app({{'TESTING': True}}, instance_path={str(tmp_path)!r})\n"
        f"photo = open({str(PHOTO)!r}, 'rb').read()\n"
        "r = app.test_client().post('/api/detect', data={'photo': (io.BytesIO(photo), 'p.jpg')})\n"
        "print(json.dumps({'status': r.status_code, 'cards': [c['card'] for c in r.get_json()['cards']]}))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    expected = json.loads((PHOTO.parent / "expected.json").read_text())[PHOTO.name]["cards"]
    assert result["status"] == 200 and sorted(result["cards"]) == sorted(expected), result
