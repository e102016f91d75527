"""Photo checks: the 'cards look small' warning's threshold, and the reader giving it on a far-away photo."""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.quality import SMALL_INDEX_WARN_PX, small_cards_warning

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "fixtures" / "photos" / "realphotos_IMG_20220921_195411_jpg.jpg"
HAVE_MODELS = (ROOT / "models" / "corner_detector.onnx").exists() and (ROOT / "models" / "index_classifier.onnx").exists()


def test_no_read_corners_no_size_warning():
    """Nothing read: the 'no cards found' warning speaks for the photo, not this one."""
    assert small_cards_warning([]) is None


def test_the_median_index_decides_not_the_smallest_one():
    t = SMALL_INDEX_WARN_PX
    assert small_cards_warning([t - 10, t, t + 5]) is None           # median at the threshold: fine
    assert small_cards_warning([t - 10, t - 1, t + 40]) is not None  # median just under: warned
    assert small_cards_warning([t - 1]) is not None


def test_the_warning_says_what_it_saw_in_the_photos_own_pixels_and_what_to_do():
    """The reader works on a copy of at most 2048 px; the message scales back to the photo (to_photo)."""
    w = small_cards_warning([14.0, 15.0, 16.0], to_photo=2.0)
    assert "corner indices about 30 px tall" in w
    assert "take the photo from closer" in w


@pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")
def test_a_photo_from_far_away_is_read_with_the_warning_and_the_same_photo_close_without():
    from vision.evaluate import photo_bytes
    from vision.reader import CardReader

    reader = CardReader()
    close = reader.read(PHOTO.read_bytes())
    far = reader.read(photo_bytes(PHOTO, shrink=8))  # as from eight times farther away: ~12 px indices
    assert sorted(close.codes) == ["6H", "7D"]
    assert not any("look small" in w for w in close.warnings)
    assert far.cards, "the far photo must still be read for the size to be judged"
    assert any("the cards look small in this photo" in w for w in far.warnings), far.warnings
