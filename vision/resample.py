"""Cut a scaled, axis-aligned window out of a photo without aliasing.

``cv2.warpAffine`` has no area filter: asked for ``INTER_AREA`` it samples
bilinearly, so shrinking a 200 px corner index to a 32 px crop picks every
sixth pixel and the thin strokes of a rank break up into noise (on random
pixels the result differed from a proper area resize by 64 grey levels on
average).  Phone photos hold indices of 60-200 px, so most crops the reader
cuts shrink that much.  Here the part of the photo a window covers is first
shrunk with ``cv2.resize(INTER_AREA)`` (a true box filter) to about the
window's scale, and only the small leftover scale and the sub-pixel offset
go through ``warpAffine``.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

# Shrinking by more than this goes through an area resize first; below it a
# bilinear warp loses nothing that matters.
AREA_FIRST_BELOW = 0.67


def warp_window(image: np.ndarray, sx: float, sy: float, tx: float, ty: float, size: tuple[int, int],
                border_mode: int = cv2.BORDER_REPLICATE, border_value=0) -> np.ndarray:
    """The window ``size`` (w, h) where output pixel (u, v) shows photo point ((u - tx) / sx, (v - ty) / sy)."""
    if min(sx, sy) < AREA_FIRST_BELOW:
        image, sx, sy, tx, ty = _area_shrunk(image, sx, sy, tx, ty, size)
    m = np.float32([[sx, 0, tx], [0, sy, ty]])
    return cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR, borderMode=border_mode, borderValue=border_value)


def _area_shrunk(image: np.ndarray, sx: float, sy: float, tx: float, ty: float, size: tuple[int, int]):
    """The part of ``image`` the window covers, area-shrunk to about its scale, and the warp left to do.

    A window (almost) wholly outside the photo gets the photo back unchanged:
    the warp then fills it by the border rule alone.
    """
    out_w, out_h = size
    h, w = image.shape[:2]
    # the photo rectangle the window covers, with two shrunk pixels to spare, clipped to the photo
    mx, my = math.ceil(2 / sx), math.ceil(2 / sy)
    x0 = max(0, math.floor(-tx / sx) - mx)
    y0 = max(0, math.floor(-ty / sy) - my)
    x1 = min(w, math.ceil((out_w - tx) / sx) + mx)
    y1 = min(h, math.ceil((out_h - ty) / sy) + my)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return image, sx, sy, tx, ty
    small_w = max(2, round((x1 - x0) * sx))
    small_h = max(2, round((y1 - y0) * sy))
    small = cv2.resize(image[y0:y1, x0:x1], (small_w, small_h), interpolation=cv2.INTER_AREA)
    kx, ky = small_w / (x1 - x0), small_h / (y1 - y0)
    # pixel p of ``small`` is centred on photo x = x0 + (p + 0.5) / kx - 0.5, shown at output u = sx * x + tx
    return (small, sx / kx, sy / ky, sx * (x0 + 0.5 / kx - 0.5) + tx, sy * (y0 + 0.5 / ky - 0.5) + ty)
