"""scripts/int8_models.py: the 8-bit classifier it writes still reads the fixtures' exact cards.

The model card quotes what the 8-bit models read on the tuning views; this
holds the tool to producing a model the reader can use, calibrated on what
the reader really feeds it.  Needs the training extra (``onnx``).
"""
from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "tests" / "fixtures" / "photos"
EXPECTED = json.loads((PHOTOS / "expected.json").read_text())


def _script():
    spec = importlib.util.spec_from_file_location("int8_models", ROOT / "scripts" / "int8_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_calibration_keeps_what_the_reader_feeds_each_model():
    tool = _script()
    det, cls = tool.calibration_inputs([PHOTOS / sorted(EXPECTED)[0]])
    assert det and cls
    assert all(x.dtype == np.float32 and 1 <= len(x) <= tool.CHUNK for x in det + cls)
    assert {x.shape[1:] for x in cls} == {(3, 32, 32)}  # the shipped classifier's input side
    assert {x.shape[1] for x in det} == {3}


def test_detector_decoding_is_left_float():
    from vision.reader import DETECTOR_PATH

    kept = _script().detector_decoding(DETECTOR_PATH)
    assert any("/dfl/" in n for n in kept)  # the distribution-to-box step
    assert not any("/cv2." in n or "/cv3." in n for n in kept)  # the head's convolutions are quantized


def test_int8_classifier_reads_the_exact_cards(tmp_path):
    from vision.reader import CLASSIFIER_PATH, DETECTOR_PATH, CardReader

    tool = _script()
    names = sorted(EXPECTED)
    _, cls = tool.calibration_inputs([PHOTOS / n for n in names[:2]])
    out = tmp_path / "index_classifier_int8.onnx"
    tool.quantize(CLASSIFIER_PATH, out, cls, [])
    assert out.stat().st_size < CLASSIFIER_PATH.stat().st_size / 2  # 8-bit weights
    reader = CardReader(DETECTOR_PATH, out)
    for name in names:
        reading = reader.read((PHOTOS / name).read_bytes())
        assert Counter(reading.codes) == Counter(EXPECTED[name]["cards"]), (name, reading.codes)
