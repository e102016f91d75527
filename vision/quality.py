"""Photo checks that explain a poor reading: too dark, blurred, nothing found.

Thresholds are on a grey copy at a fixed width so they mean the same thing
for any camera resolution.
"""
from __future__ import annotations

import cv2
import numpy as np

DARK_MEAN = 45          # mean grey level (0-255) below which a photo is too dark
BLUR_VARIANCE = 25.0    # variance of the Laplacian at 800 px wide below which it is blurred
CHECK_WIDTH = 800


def photo_warnings(image: np.ndarray) -> list[str]:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    scale = CHECK_WIDTH / max(grey.shape[1], 1)
    if scale < 1:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    out = []
    mean = float(grey.mean())
    if mean < DARK_MEAN:
        out.append(f"the photo is too dark (average brightness {mean:.0f}/255): turn on a light or use the flash")
    sharpness = float(cv2.Laplacian(grey, cv2.CV_64F).var())
    if sharpness < BLUR_VARIANCE:
        out.append(f"the photo looks blurred (sharpness {sharpness:.0f}, want {BLUR_VARIANCE:.0f}+): "
                   "hold the phone still and tap the cards to focus")
    return out
