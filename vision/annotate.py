"""Draw a reading on the photo: each card outlined and labelled with its confidence."""
from __future__ import annotations

import cv2
import numpy as np

from vision.reader import LOW_CONFIDENCE, Reading


def annotate(image: np.ndarray, reading: Reading, to_image: float = 1.0) -> np.ndarray:
    """A copy of ``image`` with the reading drawn; ``to_image`` maps photo pixels to ``image`` pixels."""
    out = image.copy()
    thick = max(2, int(round(max(out.shape[:2]) / 500)))
    font_scale = max(0.5, max(out.shape[:2]) / 1400)
    for corner in reading.corners:
        x1, y1, x2, y2 = (int(round(v * to_image)) for v in corner.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), (200, 200, 200), 1)
    for card in reading.cards:
        x1, y1, x2, y2 = (int(round(v * to_image)) for v in card.box)
        colour = (40, 170, 40) if card.confidence >= LOW_CONFIDENCE else (0, 140, 255)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick)
        label = f"{card.code} {card.confidence:.2f}"
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thick)
        ty = max(th + 4, y1 - 4)
        cv2.rectangle(out, (x1, ty - th - 4), (x1 + tw + 4, ty + 4), colour, -1)
        cv2.putText(out, label, (x1 + 2, ty), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (255, 255, 255), thick,
                    cv2.LINE_AA)
    return out
