"""Hard examples for the index classifier, mined with the shipped detector.

Random background crops teach the classifier little about what the detector
actually confuses with an index: a joker's "Joker" lettering, a court card's
robe, a pip near the card's edge.  So we run the detector over *training*
photos and keep

* every detection that matches no labelled index as a ``JUNK`` crop, and
  every box labelled as a joker or card back (not cards of this game);
* every detection that does match a labelled index as a crop of that code,
  cut from the detector's own box, so the classifier learns to read the
  slightly shifted boxes it will get at run time.

The bank has the same format as ``classifier_train.build_bank``'s.  Only
training splits may be mined: the evaluation photos must stay unseen.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.classes import CARD_CODES
from vision.index_crops import JUNK, STORE_EXPAND, STORE_SIZE, code_to_targets, cut_crop
from vision import realphotos
from vision.realphotos import NOT_OUR_CARDS, REAL_NAMES, SHARED_REAL
from vision.yolo_data import box_iou, dataset_images, label_path, read_boxes

MATCH_IOU = 0.3      # a detection this close to a labelled index reads that index
JUNK_MAX_IOU = 0.1   # ... and one this far from every labelled box is a false alarm
# between the two: a partial or badly placed box, too ambiguous to teach either way


def _not_ours(img_path: Path, w: int, h: int) -> list[tuple[float, float, float, float]]:
    """Joker and card-back boxes, which the real photos' own labels keep but our datasets drop."""
    raw = SHARED_REAL / "labels" / f"{img_path.stem}.txt"
    if not raw.exists():
        return []
    return [box for name, box in read_boxes(raw, REAL_NAMES, w, h) if name in NOT_OUR_CARDS]


def mine(sources: list[tuple[Path, str]], out: Path, limit: int | None = None, seed: int = 0,
         refine: bool = False, detector: Path | None = None) -> dict:
    """Mine ``sources`` into the bank ``out``; ``detector`` swaps in candidate weights (the false
    alarms worth teaching are those of the detector that will be shipped)."""
    from vision.reader import reader_with

    # every view, as when the recipe's banks were mined (before SURE_UNSHIFTED), so they rebuild the same
    reader = reader_with(refine=refine, detector=detector, every_view=True)
    rng = np.random.default_rng(seed)
    crops, ranks, suits = [], [], []
    stats = {"images": 0, "junk": 0, "not_ours": 0, "positives": 0, "ambiguous": 0}

    def add(img, box, code):
        r, s = code_to_targets(code)
        crops.append(cut_crop(img, box, STORE_EXPAND, STORE_SIZE))
        ranks.append(r)
        suits.append(s)

    held_out = set(realphotos.split_names()["val"]) if (SHARED_REAL / "images").is_dir() else set()
    for data_yaml, split in sources:
        images, names = dataset_images(Path(data_yaml), split)
        leaked = sorted(p.name for p in images if p.stem in held_out)
        if leaked:
            raise ValueError(f"{data_yaml}:{split} holds {len(leaked)} photos of the real validation split "
                             f"(e.g. {leaked[0]}): mining them would train on the evaluation set")
        if limit and len(images) > limit:
            images = [images[i] for i in sorted(rng.choice(len(images), limit, replace=False))]
        for img_path in images:
            img = cv2.imread(str(img_path))
            if img is None:
                continue
            h, w = img.shape[:2]
            stats["images"] += 1
            labelled = [(n, b) for n, b in read_boxes(label_path(img_path), names, w, h) if n in CARD_CODES]
            not_ours = _not_ours(img_path, w, h)
            for box in not_ours:
                add(img, box, JUNK)
                stats["not_ours"] += 1
            for corner in reader.find_corners(img):
                best, best_iou = None, 0.0
                for code, box in labelled:
                    iou = box_iou(corner.box, box)
                    if iou > best_iou:
                        best, best_iou = code, iou
                near_not_ours = max((box_iou(corner.box, b) for b in not_ours), default=0.0)
                if best_iou >= MATCH_IOU:
                    add(img, corner.box, best)
                    stats["positives"] += 1
                elif best_iou <= JUNK_MAX_IOU:
                    add(img, corner.box, JUNK)
                    stats["junk" if near_not_ours < MATCH_IOU else "not_ours"] += 1
                else:
                    stats["ambiguous"] += 1
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, crops=np.stack(crops), rank=np.array(ranks, np.int64), suit=np.array(suits, np.int64))
    print(f"bank {out.name}: {len(crops)} crops {stats}", flush=True)
    return stats
