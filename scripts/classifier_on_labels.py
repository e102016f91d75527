"""The classifier alone: how often it names the labelled corner indices right.

Cuts every labelled index of a dataset the way the reader cuts a corner (no
detector, no merging) and counts the top code right, by index height.  Use it
to compare classifier weights quickly on tuning sets before a full
``python -m vision eval`` (which also measures the detector and the merge).

    python scripts/classifier_on_labels.py datasets/generated/synth_val/data.yaml --limit 150 \\
        --classifier datasets/work/candidates/index_classifier_minedf.onnx

``--exposure 2`` reads each photo as if taken with twice the light, clipped at
white (``python -m vision eval --exposure``'s transform): the classifier alone
on overexposed indices.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.classes import CARD_CODES  # noqa: E402
from vision.cli_args import checked  # noqa: E402
from vision.detector import make_session  # noqa: E402
from vision.evaluate import check_exposure, exposed  # noqa: E402
from vision.index_crops import INPUT_EXPAND, cut_crop, decode_topk, input_size, to_input  # noqa: E402
from vision.reader import CLASSIFIER_PATH  # noqa: E402
from vision.yolo_data import dataset_images, label_path, read_boxes  # noqa: E402

BUCKETS = (("under 12 px", 0, 12), ("12-24 px", 12, 24), ("24 px+", 24, 1e9))


def labelled_indices(img_path: Path, names, exposure: float = 1.0) -> tuple[np.ndarray, list[tuple[str, tuple]]]:
    """The image (``exposed``) and its labelled corner indices [(code, box)] (card outlines and other labels dropped)."""
    img = exposed(cv2.imread(str(img_path)), exposure)
    h, w = img.shape[:2]
    return img, [(n, b) for n, b in read_boxes(label_path(img_path), names, w, h) if n in CARD_CODES]


def name_boxes(session, side: int, img: np.ndarray, boxes) -> list[str]:
    """The classifier's top code for each box, cut the way the reader cuts a corner (one view)."""
    crops = np.stack([cut_crop(img, b, INPUT_EXPAND, side) for b in boxes])
    rank, suit = session.run(None, {"crops": to_input(crops)})
    return [top[0][0] for top in decode_topk(rank, suit, 1)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--split", default="train")
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--classifier", type=Path, default=CLASSIFIER_PATH)
    ap.add_argument("--exposure", type=checked(float, check_exposure, "{text!r} is not a number"), default=1.0,
                    help="times the light (clipped at white), as eval's")
    a = ap.parse_args()
    session = make_session(a.classifier, 0)
    side = input_size(session)
    images, names = dataset_images(Path(a.data), a.split)
    right, total = Counter(), Counter()
    for img_path in images[:a.limit]:
        img, labelled = labelled_indices(img_path, names, a.exposure)
        if not labelled:
            continue
        for (code, box), named in zip(labelled, name_boxes(session, side, img, [b for _, b in labelled])):
            bucket = next(n for n, lo, hi in BUCKETS if lo <= box[3] - box[1] < hi)
            total[bucket] += 1
            right[bucket] += named == code
    light = f" at {a.exposure:g}x the light" if a.exposure != 1.0 else ""
    print(f"{a.classifier.name} ({side} px input), {sum(total.values())} labelled indices{light}:")
    for name, _, _ in BUCKETS:
        if total[name]:
            print(f"  {name:>12}: {right[name] / total[name]:.3f} of {total[name]}")
    print(f"  {'all':>12}: {sum(right.values()) / max(sum(total.values()), 1):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
