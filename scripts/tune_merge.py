"""Sweep the reader's merge thresholds on the *tuning* photos (never the evaluation sets).

Reads each photo once (detector + classifier), keeps the classified corners,
then re-runs only the cheap merge step for every threshold combination and
prints card-level precision/recall/F1 per setting, best first.

    python scripts/tune_merge.py datasets/generated/synth_val/data.yaml:train \
        datasets/work/real_codes/data.yaml:train --limit 150
"""
from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from vision import merge  # noqa: E402
from vision.evaluate import truth_for  # noqa: E402
from vision.reader import reader_with  # noqa: E402
from vision.yolo_data import dataset_images, label_path  # noqa: E402


SHIPPED_MIN_CORNER_PROB = merge.MIN_CORNER_PROB


def collect(sources: list[str], limit: int | None, refine: bool | None = None):
    reader = reader_with(refine)
    rows = []
    for src in sources:
        data_yaml, split = src.rsplit(":", 1) if ":" in src else (src, "train")
        images, names = dataset_images(Path(data_yaml), split)
        step = max(1, len(images) // limit) if limit else 1
        for img_path in images[::step][:limit]:
            img = cv2.imread(str(img_path))
            h, w = img.shape[:2]
            truth = truth_for(label_path(img_path), names, w, h)
            corners = reader.classify(img, reader.find_corners(img))
            rows.append((src, truth, corners))
    return rows


def score(rows, min_prob: float, min_card: float, single_min: float) -> dict:
    merge.MIN_CORNER_PROB = min_prob
    out = {}
    for src in sorted({r[0] for r in rows}) + ["all"]:
        tp = fp = fn = 0
        for s, truth, corners in rows:
            if src != "all" and s != src:
                continue
            cards, _ = merge.merge_corners(list(corners))
            got = Counter(c.code for c in cards if c.confidence >= min_card
                          and (len(c.corners) > 1 or c.confidence >= single_min))
            tp += sum((got & truth).values())
            fp += sum((got - truth).values())
            fn += sum((truth - got).values())
        p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
        out[src] = (p, r, 2 * p * r / max(p + r, 1e-9))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("sources", nargs="+", help="DATA.yaml:split (tuning splits only)")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--refine", action=argparse.BooleanOptionalAction, default=None,
                    help="force the refining second look on or off (default: the reader's)")
    a = ap.parse_args()
    rows = collect(a.sources, a.limit, a.refine)
    results = []
    for mp, mc, sm in itertools.product([0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7], [0.0, 0.3, 0.4, 0.5, 0.6],
                                        [0.0, 0.5, 0.6, 0.7, 0.8]):
        results.append(((mp, mc, sm), score(rows, mp, mc, sm)))
    results.sort(key=lambda x: -sum(v[2] for k, v in x[1].items() if k != "all"))
    for params, res in results[:15]:
        print(f"corner>={params[0]} card>={params[1]} single>={params[2]}: " +
              "  ".join(f"{Path(k.split(':')[0]).parent.name or k} P{v[0]:.3f} R{v[1]:.3f} F{v[2]:.3f}"
                        for k, v in res.items()))
    base = score(rows, SHIPPED_MIN_CORNER_PROB, 0.0, 0.0)
    print(f"shipped ({SHIPPED_MIN_CORNER_PROB}, 0, 0): " + "  ".join(f"{k} F{v[2]:.3f}" for k, v in base.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
