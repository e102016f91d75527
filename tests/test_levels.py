"""Dim photos are brightened before they are read (vision/levels.py)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import levels

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "tests" / "fixtures" / "photos"
EXPECTED = json.loads((PHOTOS / "expected.json").read_text())
HAVE_MODELS = (ROOT / "models" / "corner_detector.onnx").exists()
DIM_FIXTURE = "realphotos_IMG_20220921_195411_jpg.jpg"  # not in expected.json
DIM_EXPOSURE = 0.25  # a room dim enough for the "too dark" warning (the model card's stress view is 0.3)


def darkened(image: np.ndarray, exposure: float = DIM_EXPOSURE) -> np.ndarray:
    return (image.astype(np.float32) * exposure).astype(np.uint8)


def fixture(name: str) -> np.ndarray:
    return cv2.imread(str(PHOTOS / name))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_photo_taken_in_good_light_is_left_as_it_is(name):
    image = fixture(name)
    assert levels.dim_gain(image) == 1.0
    assert levels.brightened(image) is image


def test_a_dim_photo_gets_its_paper_back_to_white():
    image = darkened(fixture(DIM_FIXTURE))
    assert levels.white_level(image) < levels.DIM_WHITE_LEVEL
    out = levels.brightened(image)
    assert out.dtype == np.uint8 and out.shape == image.shape
    gain = levels.dim_gain(image)
    assert 1.0 < gain <= levels.DIM_MAX_GAIN
    # the paper comes back to white, up to the cap on the gain and the rounding of the darkening
    assert levels.white_level(out) == pytest.approx(min(levels.DIM_TARGET_WHITE, levels.white_level(image) * gain), abs=4)
    assert levels.white_level(out) > 200


def test_the_gain_is_capped_so_a_black_photo_is_not_blown_into_noise():
    black = np.zeros((200, 300, 3), np.uint8)
    assert levels.dim_gain(black) == levels.DIM_MAX_GAIN
    assert not levels.brightened(black).any()
    faint = np.full((200, 300, 3), 20, np.uint8)
    assert levels.dim_gain(faint) == levels.DIM_MAX_GAIN


@pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")
def test_cards_in_a_dim_photo_are_read_and_the_photo_still_called_dark(monkeypatch):
    from vision.reader import get_reader
    reader = get_reader()
    # a real validation photo (see NOTICE.md) of the 7 of diamonds and the 6 of hearts, its labels' cards
    image = darkened(fixture(DIM_FIXTURE))
    reading = reader.read_image(image)
    assert sorted(reading.codes) == ["6H", "7D"], reading.to_json()
    assert any("too dark" in w for w in reading.warnings)
    # without the gain neither card is read: the test holds the rule, not the photo
    monkeypatch.setattr("vision.reader.BRIGHTEN_DIM_PHOTOS", False)
    assert sorted(reader.read_image(image).codes) != ["6H", "7D"]
