"""Photo checks: the 'cards look small' and 'washed out' warnings' thresholds, and the reader giving them."""
from __future__ import annotations

from pathlib import Path

import pytest

import numpy as np

from vision.quality import SMALL_INDEX_WARN_PX, WASHED_OUT_INK, ink_level, small_cards_warning, washed_out_warning

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "fixtures" / "photos" / "realphotos_IMG_20220921_195411_jpg.jpg"
TWO_CARDS = ROOT / "tests" / "fixtures" / "photos" / "realphotos_IMG_20220921_194151_jpg.jpg"  # QH and KS
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


def _corner(ink_bgr: tuple[int, int, int], paper: int = 240) -> np.ndarray:
    """A 40 x 40 BGR patch of paper with a 10 px stroke of ink: a stand-in for one corner index."""
    img = np.full((40, 40, 3), paper, np.uint8)
    img[15:25, 5:35] = ink_bgr
    return img


def test_ink_level_takes_the_darkest_channel_so_red_ink_counts_as_dark():
    box = (0, 0, 40, 40)
    assert ink_level(_corner((20, 20, 20)), box) == 20          # black ink
    assert ink_level(_corner((40, 40, 200)), box) == 40         # red ink (BGR): dark in green and blue
    assert ink_level(_corner((200, 200, 255), paper=255), box) == 200  # red washed out to pink
    assert ink_level(_corner((20, 20, 20)), (38, 38, 40, 40)) is None  # 2 x 2 px: too small to judge
    assert ink_level(_corner((20, 20, 20)), (-10, -10, 400, 400)) == 20  # clipped to the photo


def test_washed_out_warning_judges_the_median_corner():
    dark, pale = _corner((30, 30, 30)), _corner((210, 210, 255), paper=255)
    img = np.concatenate([dark, pale, pale], axis=1)  # corners side by side, 40 px apart
    boxes = [(0, 0, 40, 40), (40, 0, 80, 40), (80, 0, 120, 40)]
    assert washed_out_warning(img, boxes) is not None                 # two of three pale: warned
    assert washed_out_warning(img, boxes[:1] + boxes[:1] + boxes[1:2]) is None  # one of three: fine
    assert washed_out_warning(img, []) is None                        # nothing read, nothing to judge
    just = _corner((int(WASHED_OUT_INK),) * 3, paper=255)
    w = washed_out_warning(just, [(0, 0, 40, 40)])
    assert w is not None and f"about {WASHED_OUT_INK:.0f}/255" in w and "overexposed" in w


@pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")
def test_an_overexposed_photo_is_read_with_the_washed_out_warning_and_as_taken_without():
    from vision.evaluate import photo_bytes
    from vision.reader import CardReader

    reader = CardReader()
    as_taken = reader.read(TWO_CARDS.read_bytes())
    bright = reader.read(photo_bytes(TWO_CARDS, exposure=2.0))  # twice the light, clipped at white
    assert sorted(as_taken.codes) == ["KS", "QH"]
    assert not any("washed out" in w for w in as_taken.warnings), as_taken.warnings
    assert bright.cards, "the bright photo must still be read for its ink to be judged"
    assert any("the card corners look washed out" in w for w in bright.warnings), bright.warnings
