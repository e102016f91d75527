"""The close second look at each corner (vision.refine) with the shipped detector.

Scripted: a detector box knocked off its index comes back onto it; a box on
empty table stays as it was; batching does not change the answer.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detector import Corner
from vision.yolo_data import box_iou

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "fixtures" / "photos" / "synthetic_hr_ts4242_0000109.jpg"
HAVE_MODELS = (ROOT / "models" / "corner_detector.onnx").exists()

pytestmark = pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")


@pytest.fixture(scope="module")
def reader():
    """A reader without the second look, so ``found`` holds the detector's first-pass boxes."""
    from vision.reader import CardReader
    return CardReader(refine=False)


@pytest.fixture(scope="module")
def image():
    return cv2.imread(str(PHOTO))


@pytest.fixture(scope="module")
def found(reader, image):
    corners = reader.find_corners(image)
    assert len(corners) >= 10  # a 20-card spread at phone resolution
    return corners


def _knock(box, dx, dy, grow):
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    cx, cy = (x1 + x2) / 2 + dx * w, (y1 + y2) / 2 + dy * h
    return (cx - w * grow / 2, cy - h * grow / 2, cx + w * grow / 2, cy + h * grow / 2)


def test_a_displaced_box_comes_back_onto_its_index(reader, image, found):
    from vision.refine import refine_corners

    # true indices (not the faint proposals around them), as the second look places them undisturbed
    sure = refine_corners(reader.detector, image, [c for c in found if c.score >= 0.3])
    rng = np.random.default_rng(0)
    knocked = [Corner(_knock(c.box, *rng.uniform(-0.25, 0.25, 2), rng.uniform(1.1, 1.4)), c.score) for c in sure]
    before = [box_iou(k.box, c.box) for k, c in zip(knocked, sure)]
    after = [box_iou(r.box, c.box) for r, c in zip(refine_corners(reader.detector, image, knocked), sure)]
    assert len(sure) >= 10
    assert np.median(before) < 0.6
    assert np.median(after) > 0.75, (np.median(before), np.median(after))
    assert sum(a > b for a, b in zip(after, before)) >= 0.8 * len(sure)


def test_refined_corners_keep_their_order_and_scores(reader, image, found):
    from vision.refine import refine_corners

    refined = refine_corners(reader.detector, image, found)
    assert len(refined) == len(found)
    assert [r.score for r in refined] == [c.score for c in found]
    # each refined box stays on the index it started from
    assert all(box_iou(r.box, c.box) > 0.3 for r, c in zip(refined, found))


def test_a_box_on_empty_table_is_left_alone(reader):
    from vision.refine import refine_corners

    table = np.full((600, 800, 3), (40, 110, 40), np.uint8)
    corner = Corner((300.0, 200.0, 330.0, 245.0), 0.1)
    assert refine_corners(reader.detector, table, [corner]) == [corner]


def test_batching_gives_the_same_boxes(reader, image, found, monkeypatch):
    from vision import refine

    whole = refine.refine_corners(reader.detector, image, found)
    monkeypatch.setattr(refine, "BATCH", 3)
    batched = refine.refine_corners(reader.detector, image, found)
    assert [r.box for r in batched] == pytest.approx([r.box for r in whole], abs=0.05)


def test_the_reader_refines_by_default_and_can_be_told_not_to(reader, image, found):
    from vision.reader import REFINE_BOXES, CardReader
    from vision.refine import refine_corners

    assert REFINE_BOXES and CardReader().refine  # on by default: see vision.reader.REFINE_BOXES
    assert [c.box for c in CardReader().find_corners(image)] == \
        [c.box for c in refine_corners(reader.detector, image, found)]
    assert not reader.refine and [c.box for c in reader.find_corners(image)] == [c.box for c in found]
