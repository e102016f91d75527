"""Photo checks that explain a poor reading: too dark, blurred, nothing found, cards too small.

The light and blur thresholds are on a grey copy at a fixed width so they
mean the same thing for any camera resolution.  The size check is on the
corner indices the reader read, in the pixels it reads them from.
"""
from __future__ import annotations

import cv2
import numpy as np

DARK_MEAN = 45          # mean grey level (0-255) below which a photo is too dark
BLUR_VARIANCE = 25.0    # variance of the Laplacian at 800 px wide below which it is blurred
# (judged on the whole photo, background included, so it is given only when no card was read: beside
# read cards it would flag 130 of the 438 labelled real photos, which read at recall 0.99-1.00)
CHECK_WIDTH = 800
# Median long side (px, in the reader's working copy: photos over 2048 px are
# read shrunk to that) of the corner indices read, below which the photo is
# flagged as taken from too far away.  The labelled real validation photos,
# read shrunk as from farther away (`python -m vision eval ... --shrink F`),
# hold F1 0.9890 down to a median index of 35 px (1/3), then 0.9834 at 26 px
# (1/4), 0.9778 at 22 px (1/5), 0.9545 at 18 px (1/6), 0.8675 at 14 px (1/8);
# on the 640 px synthetic scenes (synth_test) fully visible cards are read at
# recall 0.75 for 18-22 px indices, 0.58 at 15-18 px, 0.48 at 12-15 px.  At
# 20 (2026-12-06, the shipped models) it fires on none of the 438 real photos
# as taken nor of the 2048 px scenes (synth_hr_test 0 of 300, synth_hr_val 1 of
# 150); on the 640 px scenes on synth_test 61 of 300 (recall there 0.61, the
# rest 0.77) and synth_val 83 of 300 (0.61 against 0.75); on the real
# validation photos shrunk 1/6, on 45 of 90 (recall 0.96; the rest 0.88), at
# 1/8 on 65 (0.93; of the other 25, most had no card read at all, which the
# no-cards warning speaks for).  It says "may": the real deck's sharp indices
# are often still read at that size.
SMALL_INDEX_WARN_PX = 20.0


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


def small_cards_warning(index_sides: list[float], to_photo: float = 1.0) -> str | None:
    """A warning when the median read index is under SMALL_INDEX_WARN_PX, else None.

    ``index_sides``: each read corner's long side in the reader's pixels (the
    long side, so a card lying sideways counts the same); ``to_photo`` scales
    them to the photo's own pixels for the message.  Cards read from far away
    are the ones the reader misses and misreads most, and a player cannot
    tell that from a list of the cards it did read: this says why, and what
    to do.  Nothing read, nothing to judge: the no-cards warning covers that.
    """
    if not index_sides:
        return None
    sides = sorted(index_sides)
    median = sides[len(sides) // 2]
    if median >= SMALL_INDEX_WARN_PX:
        return None
    return (f"the cards look small in this photo (corner indices about {median * to_photo:.0f} px tall), "
            "so some may be missed or misread: take the photo from closer, with the cards filling the frame")
