"""How far the reader's corner boxes stray from the labelled indices.

For each labelled index with a found corner overlapping it (IoU >= 0.3):
the centre offset as a fraction of the true box's width/height, the log
ratio of the sizes, and the IoU; percentiles, with and without the refining
second look.  The classifier's training wobble (``BOX_SHIFT_STD``,
``BOX_LOG_SCALE_STD`` in vision/classifier_train.py) was set from this.
Use tuning sets only.

    python scripts/box_errors.py datasets/generated/synth_hr_val/data.yaml --limit 60 [--detector ONNX]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.classes import CARD_CODES  # noqa: E402
from vision.reader import reader_with  # noqa: E402
from vision.refine import refine_corners  # noqa: E402
from vision.yolo_data import box_iou, dataset_images, label_path, read_boxes  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--split", default="train")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--detector", type=Path, default=None, help="candidate detector weights (ONNX)")
    a = ap.parse_args()
    reader = reader_with(refine=False, detector=a.detector)
    images, names = dataset_images(Path(a.data), a.split)
    for refine in (False, True):
        rows = []
        for path in images[:a.limit]:
            img = cv2.imread(str(path))
            h, w = img.shape[:2]
            labelled = [b for n, b in read_boxes(label_path(path), names, w, h) if n in CARD_CODES]
            corners = reader.find_corners(img)
            if refine:
                corners = refine_corners(reader.detector, img, corners)
            for b in labelled:
                best = max(corners, key=lambda c: box_iou(c.box, b), default=None)
                if best is None or box_iou(best.box, b) < 0.3:
                    continue
                d, bw, bh = best.box, b[2] - b[0], b[3] - b[1]
                rows.append(((d[0] + d[2] - b[0] - b[2]) / 2 / bw, (d[1] + d[3] - b[1] - b[3]) / 2 / bh,
                             np.log((d[2] - d[0]) / bw), np.log((d[3] - d[1]) / bh), box_iou(d, b)))
        arr = np.array(rows).reshape(-1, 5)
        print(f"{'refined' if refine else 'first pass'}: {len(arr)} matched indices")
        for i, name in enumerate(["dx / width", "dy / height", "log w ratio", "log h ratio", "IoU"]):
            q = np.percentile(arr[:, i], [5, 25, 50, 75, 95]) if len(arr) else [np.nan] * 5
            print(f"  {name:<12} p5 {q[0]:+.3f}  p25 {q[1]:+.3f}  median {q[2]:+.3f}  p75 {q[3]:+.3f}  "
                  f"p95 {q[4]:+.3f}  std {arr[:, i].std() if len(arr) else float('nan'):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
