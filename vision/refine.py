"""A second, close look at each corner the detector found, to tighten its box.

The first pass sees the whole photo shrunk to ``DETECT_SIZE`` (or tiles of
it), so a 40 px index in a phone photo is 8 px there and its box, scaled back
up, is off by several photo pixels: the median overlap with the true index
was only 0.7 on the tuning scenes.  The classifier reads a crop cut from that
box, and a crop that misses part of the rank or holds a neighbour's pip is
read wrong or called junk far more often than a crop of the true box.

So each corner gets a small window of the photo around it, scaled so the
index is about as tall as the detector saw indices in training, and all the
windows go through the detector in one batch.  The detection in the window
that best overlaps the first box (weighted by its score) replaces it.  On the
tuning sets, with the current classifier, this raises card-level F1 from
0.890 to 0.925 (synthetic scenes at phone resolution) and 0.975 to 0.977
(real training photos), for about 2-3 ms per corner.  The reader uses it by
default (``vision.reader.REFINE_BOXES``; ``eval --no-refine`` measures without).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.detector import PAD_GREY, Corner, CornerDetector
from vision.resample import warp_window
from vision.yolo_data import box_iou

WINDOW_PX = 128        # the window fed to the detector: an index lands at ~WINDOW_PX / WINDOW_SPAN tall
WINDOW_SPAN = 2.5      # the window covers this many times the first box's longer side
MIN_OVERLAP = 0.3      # a window detection must overlap the first box this much to replace it
BATCH = 64             # windows per detector call (bounds memory for photos with many corners)


def refine_corners(detector: CornerDetector, image: np.ndarray, corners: list[Corner]) -> list[Corner]:
    """Each corner with its box re-detected in a close window; corners keep their first-pass score."""
    out: list[Corner] = []
    for start in range(0, len(corners), BATCH):
        out.extend(_refine_batch(detector, image, corners[start:start + BATCH]))
    return out


def _refine_batch(detector: CornerDetector, image: np.ndarray, corners: list[Corner]) -> list[Corner]:
    if not corners:
        return []
    h, w = image.shape[:2]
    windows, frames = [], []
    for c in corners:
        x1, y1, x2, y2 = c.box
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        scale = WINDOW_PX / (max(x2 - x1, y2 - y1) * WINDOW_SPAN)
        patch = warp_window(image, scale, scale, WINDOW_PX / 2 - scale * cx, WINDOW_PX / 2 - scale * cy,
                            (WINDOW_PX, WINDOW_PX), cv2.BORDER_CONSTANT, PAD_GREY)
        windows.append(patch)
        frames.append((scale, cx, cy))
    raw = detector.run(np.stack(windows))  # [N, 5, anchors]
    refined = []
    for c, out, (scale, cx, cy) in zip(corners, raw, frames):
        def to_window(b):
            return tuple((v - (cx if i % 2 == 0 else cy)) * scale + WINDOW_PX / 2 for i, v in enumerate(b))

        first = to_window(c.box)
        best, best_key = None, 0.0
        for x, y, bw, bh, score in out[:, out[4] >= detector.conf].T:  # the first pass's proposal threshold
            b = (x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2)
            iou = box_iou(b, first)
            if iou >= MIN_OVERLAP and iou * score > best_key:
                best, best_key = b, iou * score
        if best is None:
            refined.append(c)
            continue
        x1, y1, x2, y2 = ((v - WINDOW_PX / 2) / scale + (cx if i % 2 == 0 else cy) for i, v in enumerate(best))
        box = (max(0.0, float(x1)), max(0.0, float(y1)), min(float(w), float(x2)), min(float(h), float(y2)))
        refined.append(Corner(box, c.score) if box[2] - box[0] >= 2 and box[3] - box[1] >= 2 else c)
    return refined
