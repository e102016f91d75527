"""Where the reader loses cards: detector or classifier, by index height.

For each labelled corner index of a dataset, was a corner found near it
(IoU >= 0.3), and was the found corner read as the right code (probability
>= the merge threshold)?  Then the classifier alone on the labelled boxes.
Use tuning sets (synth_val, real training photos), not the evaluation sets.

    python scripts/reader_breakdown.py datasets/generated/synth_val/data.yaml --limit 100
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from classifier_on_labels import labelled_indices, name_boxes  # noqa: E402
from vision.hard_negatives import MATCH_IOU  # noqa: E402
from vision.merge import MIN_CORNER_PROB  # noqa: E402
from vision.reader import get_reader  # noqa: E402
from vision.yolo_data import box_iou, dataset_images  # noqa: E402

BUCKETS = ((0, 8), (8, 12), (12, 16), (16, 24), (24, 36), (36, 60), (60, 10_000))


def bucket(height: float) -> str:
    for lo, hi in BUCKETS:
        if lo <= height < hi:
            return f"{lo}-{hi}px" if hi < 10_000 else f"{lo}px+"
    return "?"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--split", default="train")
    ap.add_argument("--limit", type=int, default=100)
    a = ap.parse_args()
    reader = get_reader()
    images, names = dataset_images(Path(a.data), a.split)
    found = defaultdict(lambda: [0, 0, 0])     # labelled, found, read right
    on_labels = defaultdict(lambda: [0, 0, 0])  # labelled, right, JUNK
    confusions: Counter = Counter()
    for img_path in images[:a.limit]:
        img, labelled = labelled_indices(img_path, names)
        if not labelled:
            continue
        read = reader.classify(img, reader.find_corners(img))
        for code, box in labelled:
            row = found[bucket(box[3] - box[1])]
            row[0] += 1
            best = max(read, key=lambda c: box_iou(c.box, box), default=None)
            if best is not None and box_iou(best.box, box) >= MATCH_IOU:
                row[1] += 1
                row[2] += best.code == code and best.prob >= MIN_CORNER_PROB
        named = name_boxes(reader.classifier, reader.input_size, img, [b for _, b in labelled])
        for (code, box), top in zip(labelled, named):
            row = on_labels[bucket(box[3] - box[1])]
            row[0] += 1
            row[1] += top == code
            row[2] += top == "JUNK"
            if top != code:
                confusions[(code, top)] += 1
    print("index height   labelled  found  read right  (of found)   | classifier on labelled boxes: right  JUNK")
    for lo, hi in BUCKETS:
        k = bucket(lo)
        n, f, ok = found[k]
        m, right, junk = on_labels[k]
        if n:
            print(f"{k:>12}  {n:9d}  {f / n:5.2f}  {ok / n:10.2f}  ({ok / max(f, 1):.2f})       "
                  f"| {right / max(m, 1):.2f}  {junk / max(m, 1):.2f}")
    print("commonest misreads on labelled boxes:",
          ", ".join(f"{a}->{b} x{n}" for (a, b), n in confusions.most_common(12)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
