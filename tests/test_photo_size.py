"""The working size a photo is decoded to (vision.photo).

Scripted: a 12 MP JPEG is decoded at half scale by the JPEG decoder itself
(no resize afterwards), portrait or landscape; a photo whose half would be
too small is shrunk to the full working size instead; small photos stay as
they are.  Boxes map back to the photo's pixels through ``scale``.
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.photo import MIN_DRAFT_FRACTION, WORK_LONG_SIDE, load_photo


def _jpeg(w: int, h: int) -> bytes:
    rng = np.random.default_rng(0)
    small = rng.integers(0, 255, (h // 50 + 1, w // 50 + 1, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(small).resize((w, h)).save(buf, "JPEG", quality=85)
    return buf.getvalue()


@pytest.mark.parametrize("size, work", [
    ((4000, 3000), (2000, 1500)),   # 12 MP: half scale in the decoder
    ((3000, 4000), (1500, 2000)),   # portrait, same
    ((4032, 3024), (2016, 1512)),   # an iPhone's 12 MP
    ((3264, 2448), (2048, 1536)),   # 8 MP: half would be 1632 px, too small, so a full shrink
    ((1200, 900), (1200, 900)),     # small photos are not enlarged
])
def test_working_size(size, work):
    photo = load_photo(_jpeg(*size))
    assert (photo.image.shape[1], photo.image.shape[0]) == work
    assert (photo.width, photo.height) == size
    assert photo.scale == pytest.approx(work[0] / size[0])
    assert max(work) <= WORK_LONG_SIDE
    assert max(work) >= min(max(size), WORK_LONG_SIDE * MIN_DRAFT_FRACTION)
