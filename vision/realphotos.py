"""The real labelled photos in ``../shared/realphotos``: split, relabel, export.

File names sort by capture time and neighbouring shots are near-identical, so
the validation split takes whole blocks of consecutive names (every fifth
block of ``BLOCK`` photos), never random photos: a random split would put
near-twins on both sides and flatter the model.

The published labels leave out some cards a person reads for sure (cards
cut by the photo's edge) and name one card wrongly; the corrections are data,
``datasets/realphotos-amendments.json``, applied when the labels are read.
"""
from __future__ import annotations

import json
import os
import shutil
from functools import lru_cache
from pathlib import Path

SHARED_REAL = Path(os.environ.get("RUMMY_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "realphotos"
BLOCK = 15
VAL_EVERY = 5  # block index % VAL_EVERY == VAL_OFFSET -> validation
VAL_OFFSET = 2
AMENDMENTS = Path(__file__).resolve().parents[1] / "datasets" / "realphotos-amendments.json"

# Their data.yaml class names; BACK and jokers are not cards of this game.
REAL_NAMES = ['10C', '10D', '10H', '10S', '2C', '2D', '2H', '2S', '3C', '3D', '3H', '3S', '4C', '4D',
              '4H', '4S', '5C', '5D', '5H', '5S', '6C', '6D', '6H', '6S', '7C', '7D', '7H', '7S', '8C',
              '8D', '8H', '8S', '9C', '9D', '9H', '9S', 'AC', 'AD', 'AH', 'AS', 'BACK', 'BLACK JOKER',
              'JC', 'JD', 'JH', 'JS', 'KC', 'KD', 'KH', 'KS', 'QC', 'QD', 'QH', 'QS', 'RED JOKER']
NOT_OUR_CARDS = {"BACK", "BLACK JOKER", "RED JOKER"}


def split_names(root: Path = SHARED_REAL) -> dict[str, list[str]]:
    """Image stems for 'train' and 'val', by blocks of consecutive names."""
    stems = sorted(p.stem for p in (root / "images").glob("*.jpg"))
    out: dict[str, list[str]] = {"train": [], "val": []}
    for i, stem in enumerate(stems):
        side = "val" if (i // BLOCK) % VAL_EVERY == VAL_OFFSET else "train"
        out[side].append(stem)
    return out


@lru_cache(maxsize=4)
def load_amendments(path: Path = AMENDMENTS) -> dict:
    """The label corrections, checked: known card codes, boxes inside the photo."""
    from vision.classes import CARD_CODES

    doc = json.loads(Path(path).read_text())
    for stem, entries in doc.get("added", {}).items():
        for e in entries:
            if e["card"] not in CARD_CODES:
                raise ValueError(f"{path}: {stem}: unknown card {e['card']!r}")
            cx, cy, w, h = e["yolo"]
            if not (0 < w <= 1 and 0 < h <= 1 and 0 <= cx - w / 2 + 1e-6 and cx + w / 2 <= 1 + 1e-6
                    and 0 <= cy - h / 2 + 1e-6 and cy + h / 2 <= 1 + 1e-6):
                raise ValueError(f"{path}: {stem}: box {e['yolo']} is not inside the photo")
    for stem, e in doc.get("recoded", {}).items():
        for key in ("from", "to"):
            if e[key] not in CARD_CODES:
                raise ValueError(f"{path}: {stem}: unknown card {e[key]!r} in {key!r}")
    return doc


def read_labels(stem: str, root: Path = SHARED_REAL, amended: bool = True,
                amendments: Path = AMENDMENTS) -> list[tuple[str, float, float, float, float]]:
    """(code, cx, cy, w, h) normalised, jokers and backs dropped; corrected unless ``amended`` is False."""
    path = root / "labels" / f"{stem}.txt"
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) != 5:
                continue
            name = REAL_NAMES[int(parts[0])]
            if name in NOT_OUR_CARDS:
                continue
            rows.append((name, *map(float, parts[1:])))
    if amended:
        fixes = load_amendments(amendments)
        recode = fixes.get("recoded", {}).get(stem)
        if recode:
            rows = [(recode["to"] if name == recode["from"] else name, *box) for name, *box in rows]
        rows += [(e["card"], *e["yolo"]) for e in fixes.get("added", {}).get(stem, [])]
    return rows


def export_corner_dataset(out: Path, root: Path = SHARED_REAL, one_class: bool = True,
                          amended: bool = True) -> Path:
    """Write the real photos as a YOLO dataset (train/val); return its data.yaml.

    ``one_class``: every index is class 0 'index' (the detector's view);
    otherwise classes follow ``vision.classes.LABEL_NAMES`` (the classifier's).
    ``amended=False`` keeps the labels as published.
    """
    from vision.classes import CODE_TO_CLASS, LABEL_NAMES

    out = Path(out)
    for side, stems in split_names(root).items():
        (out / side / "images").mkdir(parents=True, exist_ok=True)
        (out / side / "labels").mkdir(parents=True, exist_ok=True)
        for stem in stems:
            src = root / "images" / f"{stem}.jpg"
            dst = out / side / "images" / f"{stem}.jpg"
            if not dst.exists():
                shutil.copyfile(src, dst)
            lines = [f"{0 if one_class else CODE_TO_CLASS[code]} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}"
                     for code, cx, cy, w, h in read_labels(stem, root, amended) if code in CODE_TO_CLASS]
            (out / side / "labels" / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    data = out / "data.yaml"
    names = ["index"] if one_class else list(LABEL_NAMES)
    data.write_text(f"path: {out.resolve()}\ntrain: train/images\nval: val/images\nnames: {names}\n")
    return data
