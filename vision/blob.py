"""uint8 BGR images to the float input both models take, in one place.

Both models were trained on RGB in 0..1, channels first.  The channel flip
and the transpose are done on the uint8 pixels, before the float copy, and
the scaling in place: one float pass instead of three.  That made the 3 x 3
tiles of a 12 MP photo ~24 ms faster to prepare, with bit-identical input
(``tests/test_blob.py``).
"""
from __future__ import annotations

import numpy as np


def to_blob(images: np.ndarray) -> np.ndarray:
    """uint8 BGR images [N, H, W, 3] -> contiguous float32 RGB [N, 3, H, W] in 0..1."""
    blob = np.ascontiguousarray(images.transpose(0, 3, 1, 2)[:, ::-1]).astype(np.float32)
    blob /= 255.0
    return blob
