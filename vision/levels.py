"""Brighten a dim photo before it is read.

A photo taken in a dim room has no pixel near white: the paper of every card
is grey. The detector and classifier were trained on photos whose paper is
bright: the real validation photos read at 30 % of their light
(`python -m vision eval datasets/work/real_codes/data.yaml --split val
--exposure 0.3`) scored F1 0.9186 (13 % of the cards missed); with the gain
restored first, 0.9890, as in full light (models/README.md). The gate is
strict on purpose: only a photo whose brightest 0.5 % of pixels stay under
``DIM_WHITE_LEVEL`` is touched. On the real training photos a gate of 120 or
170 also brightened photos that read fine as they were and cost a false
card; at 90 they tie.

A gain and not a full levels stretch: lifting the black point too (for a
washed-out photo) did not help overexposed photos and turned black ink red
on warm-lit ones.
"""

from __future__ import annotations

import numpy as np

BRIGHTEN_DIM_PHOTOS = True
DIM_WHITE_LEVEL = 90.0   # 99.5th percentile of grey (0-255) below which a photo counts as dim
DIM_TARGET_WHITE = 235.0  # where that percentile is brought to
DIM_MAX_GAIN = 4.0        # a darker photo is brightened this much and no more (noise grows with it)
WHITE_PERCENTILE = 99.5


def white_level(image: np.ndarray) -> float:
    """The grey level of the photo's brightest pixels (its 99.5th percentile), from a subsample."""
    small = image[::4, ::4]
    grey = small[..., 0] * 0.114 + small[..., 1] * 0.587 + small[..., 2] * 0.299
    return float(np.percentile(grey, WHITE_PERCENTILE))


def dim_gain(image: np.ndarray) -> float:
    """The gain that brings a dim photo's paper back to white; 1.0 for a photo that is not dim."""
    level = white_level(image)
    if level >= DIM_WHITE_LEVEL:
        return 1.0
    return min(DIM_MAX_GAIN, DIM_TARGET_WHITE / max(level, 1.0))


def brightened(image: np.ndarray) -> np.ndarray:
    """The BGR photo with its gain restored when it is dim (see the module's docstring), else itself."""
    gain = dim_gain(image)
    if gain == 1.0:
        return image
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
