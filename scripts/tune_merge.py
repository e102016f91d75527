"""Sweep the reader's merge thresholds on the *tuning* photos (never the evaluation sets).

Reads each photo once (detector + classifier), keeps the classified corners,
then re-runs only the cheap merge step for every threshold combination and
prints card-level precision/recall/F1 per setting, best first.

    python scripts/tune_merge.py datasets/generated/synth_val/data.yaml:train \
        datasets/generated/synth_hr_val/data.yaml:train datasets/work/real_codes/data.yaml:train
    python scripts/tune_merge.py datasets/work/real_codes/data.yaml:train --enlarge

``--enlarge`` reads the (640 px) real training photos as a phone's 4000 px
JPEGs: the reader tiles and refines those differently, and a threshold that
is safe on the small photos added false cards on the large ones.
``--detector`` / ``--classifier`` sweep candidate weights before shipping them.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image  # noqa: E402

from vision import merge  # noqa: E402
from vision.evaluate import PHONE_LONG_SIDE, enlarged, truth_for  # noqa: E402
from vision.reader import reader_with  # noqa: E402
from vision.yolo_data import dataset_images, label_path  # noqa: E402


SHIPPED_MIN_CORNER_PROB = merge.MIN_CORNER_PROB


def collect(sources: list[str], limit: int | None, refine: bool | None = None,
            detector: Path | None = None, classifier: Path | None = None, enlarge: bool = False):
    """Each photo's classified corners exactly as the reader gathers them (second look included)."""
    reader = reader_with(refine, None, detector, classifier)
    rows = []
    for src in sources:
        data_yaml, split = src.rsplit(":", 1) if ":" in src else (src, "train")
        images, names = dataset_images(Path(data_yaml), split)
        step = max(1, len(images) // limit) if limit else 1
        for img_path in images[::step][:limit]:
            with Image.open(img_path) as header:  # label coordinates are relative to the stored size
                w, h = header.size
            truth = truth_for(label_path(img_path), names, w, h)
            data = enlarged(img_path) if enlarge else img_path.read_bytes()
            rows.append((src, truth, list(reader.read(data).corners)))
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
    ap.add_argument("--detector", type=Path, help="candidate detector weights (ONNX) instead of the shipped ones")
    ap.add_argument("--classifier", type=Path, help="candidate classifier weights (ONNX) instead of the shipped ones")
    ap.add_argument("--enlarge", action="store_true",
                    help=f"read each photo enlarged to a {PHONE_LONG_SIDE} px long side (a phone's 12 MP)")
    a = ap.parse_args()
    rows = collect(a.sources, a.limit, a.refine, a.detector, a.classifier, a.enlarge)
    results = []
    for mp, mc, sm in itertools.product([0.3, 0.35, 0.37, 0.4, 0.45, 0.5, 0.6], [0.0, 0.3, 0.4, 0.5, 0.6],
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
