"""Reading each corner from several slightly shifted views (vision.reader.VIEW_SHIFTS)
and a wider one (vision.reader.WIDE_VIEW_EXPANDS).

Scripted: the joint code probabilities are a proper distribution; one view
reads exactly as the single crop did; averaging views is the mean of the
single-view readings; the shifted views are cut only for corners the
unshifted ones leave unsure (vision.reader.SURE_UNSHIFTED); and a box knocked
off its index is read right more often with the views than without (on the
20-card phone-resolution fixture).
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.index_crops import ALL_OUTPUTS, INPUT_EXPAND, joint_probs, shifted_box, top_codes

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "fixtures" / "photos" / "synthetic_hr_ts4242_0000109.jpg"
HAVE_MODELS = (ROOT / "models" / "index_classifier.onnx").exists()


def test_joint_probabilities_cover_every_code_and_sum_to_at_most_one():
    rng = np.random.default_rng(0)
    probs = joint_probs(rng.normal(size=(7, 24)), rng.normal(size=(7, 5)))
    assert probs.shape == (7, len(ALL_OUTPUTS))
    assert np.all(probs >= 0) and np.all(probs.sum(axis=1) <= 1 + 1e-9)


def test_top_codes_are_best_first():
    probs = np.zeros((1, len(ALL_OUTPUTS)))
    probs[0, ALL_OUTPUTS.index("7H")] = 0.6
    probs[0, ALL_OUTPUTS.index("WILD")] = 0.3
    assert top_codes(probs, 2) == [[("7H", 0.6), ("WILD", 0.3)]]


def test_shifted_box_moves_by_a_share_of_its_own_size():
    assert shifted_box((10, 20, 30, 60), 0.1, -0.25) == pytest.approx((12, 10, 32, 50))
    assert shifted_box((10, 20, 30, 60), 0, 0) == (10, 20, 30, 60)


needs_models = pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")


@pytest.fixture(scope="module")
def image():
    return cv2.imread(str(PHOTO))


@pytest.fixture(scope="module")
def readers():
    from vision.reader import CardReader, VIEW_SHIFTS
    assert len(VIEW_SHIFTS) > 1 and VIEW_SHIFTS[0] == (0.0, 0.0)
    return CardReader(views=((0.0, 0.0),)), CardReader(sure_unshifted=None)


@needs_models
def test_views_average_the_single_view_readings(readers, image):
    from vision.detector import Corner
    from vision.reader import VIEW_SHIFTS, WIDE_VIEW_EXPANDS, CardReader
    single, multi = readers
    assert multi.view_windows()[len(VIEW_SHIFTS):] == [(0.0, 0.0, e) for e in WIDE_VIEW_EXPANDS]
    corners = single.find_corners(image)[:6]
    alone = [single.classify(image, [Corner(shifted_box(c.box, dx, dy), c.score)]) for dx, dy in VIEW_SHIFTS
             for c in corners]
    for e in WIDE_VIEW_EXPANDS:  # a reader of that wide view alone
        wide = CardReader(views=(), wide_views=(e,))
        assert wide.view_windows() == [(0.0, 0.0, e)]
        alone += [wide.classify(image, [c]) for c in corners]
    together = multi.classify(image, corners)
    n_views = len(VIEW_SHIFTS) + len(WIDE_VIEW_EXPANDS)
    for i, read in enumerate(together):
        expected = np.mean([alone[v * len(corners) + i][0].prob_of(read.code) or 0.0
                            for v in range(n_views)])
        # a view whose top five lacks the code contributes under its fifth-best probability
        assert read.prob == pytest.approx(expected, abs=0.02)


@needs_models
def test_views_read_knocked_boxes_at_least_as_well(readers, image):
    single, multi = readers
    truth = {c.box: c.code for c in multi.classify(image, multi.find_corners(image)) if c.prob > 0.9}
    assert len(truth) >= 10
    from vision.detector import Corner
    knocked = [Corner(shifted_box(b, dx, dy), 1.0) for b in truth for dx, dy in ((0.15, 0.1), (-0.12, 0.12))]
    codes = [truth[b] for b in truth for _ in range(2)]

    def right(reader):
        return sum(r.code == code for r, code in zip(reader.classify(image, knocked), codes))

    assert right(multi) >= right(single)


@needs_models
def test_reader_with_forces_only_what_it_is_told():
    from vision.reader import REFINE_BOXES, VIEW_SHIFTS, WIDE_VIEW_EXPANDS, get_reader, reader_with
    assert reader_with() is get_reader()
    single = reader_with(views=False)
    assert single.views == ((0.0, 0.0),) and single.refine == REFINE_BOXES
    assert single.view_windows() == [(0.0, 0.0, INPUT_EXPAND)]
    plain = reader_with(refine=not REFINE_BOXES)
    assert plain.refine != REFINE_BOXES and plain.views == VIEW_SHIFTS
    assert plain.wide_views == WIDE_VIEW_EXPANDS
    from vision.reader import SURE_UNSHIFTED
    assert get_reader().sure_unshifted == SURE_UNSHIFTED and plain.sure_unshifted == SURE_UNSHIFTED
    assert reader_with(every_view=True).sure_unshifted is None


@needs_models
def test_shifted_views_only_for_corners_the_unshifted_ones_leave_unsure(readers, image, monkeypatch):
    from vision.reader import SURE_UNSHIFTED, VIEW_SHIFTS, WIDE_VIEW_EXPANDS, CardReader
    _, every = readers
    quick = CardReader()
    assert quick.sure_unshifted == SURE_UNSHIFTED and every.sure_unshifted is None
    corners = every.find_corners(image)
    unshifted = CardReader(views=((0.0, 0.0),), wide_views=WIDE_VIEW_EXPANDS).classify(image, corners)
    full = every.classify(image, corners)
    cut = []
    real_run = quick.classifier.run
    monkeypatch.setattr(quick.classifier, "run", lambda out, feed: cut.append(len(feed["crops"])) or
                        real_run(out, feed))
    read = quick.classify(image, corners)
    sure = [u.prob >= SURE_UNSHIFTED for u in unshifted]
    assert 0 < sum(sure) < len(corners)  # the fixture has both kinds, so both paths are tested
    n_first = 1 + len(WIDE_VIEW_EXPANDS)
    assert cut == [n_first * len(corners), (len(VIEW_SHIFTS) - 1) * (len(corners) - sum(sure))]
    for r, u, f, s in zip(read, unshifted, full, sure):
        want = u if s else f
        assert [c for c, _ in r.top] == [c for c, _ in want.top]
        assert [p for _, p in r.top] == pytest.approx([p for _, p in want.top], abs=1e-6)
