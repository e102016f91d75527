"""Reading YOLO-format datasets: which images a split holds, and their labelled boxes.

One place for what the crop banks, the detector's one-class views and the
evaluation all read, so they agree on paths, class names and box geometry.
"""
from __future__ import annotations

import json
from pathlib import Path

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}


def dataset_images(data_yaml: Path, split: str) -> tuple[list[Path], list[str]]:
    """Sorted image paths of ``split`` (falling back to 'train') and the class names."""
    import yaml  # PyYAML comes with the training extra; the reader (box_iou, read_boxes) must not need it

    cfg = yaml.safe_load(Path(data_yaml).read_text())
    root = dataset_root(cfg, Path(data_yaml))
    names = cfg["names"]
    names = [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)
    img_dir = root / (cfg.get(split) or cfg.get("train"))
    images = sorted(p for p in img_dir.glob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    return images, names


def dataset_root(cfg: dict, data_yaml: Path) -> Path:
    """The folder a data.yaml's splits are relative to: its ``path``, itself relative to the yaml.

    With no ``path`` it is the yaml's own folder; only a given relative ``path``
    is joined to that folder (joining the folder to itself doubled a relative one).
    """
    if not cfg.get("path"):
        return data_yaml.parent.resolve()
    root = Path(cfg["path"])
    return root if root.is_absolute() else (data_yaml.parent / root).resolve()


def label_path(img: Path) -> Path:
    """The label file of an image: the last 'images' folder in its path becomes 'labels'."""
    parts = list(img.parts)
    idx = len(parts) - 1 - parts[::-1].index("images")
    parts[idx] = "labels"
    return Path(*parts).with_suffix(".txt")


def read_rows(path: Path) -> list[tuple[int, str]]:
    """(class index, the rest of the line) for each well-formed label line."""
    rows = []
    for line in path.read_text().splitlines() if path.exists() else []:
        parts = line.split()
        if len(parts) == 5:
            rows.append((int(parts[0]), " ".join(parts[1:])))
    return rows


def read_boxes(path: Path, names: list[str], w: int, h: int) -> list[tuple[str, tuple[float, float, float, float]]]:
    """(class name, (x1, y1, x2, y2) in pixels of a w x h image) for each label."""
    out = []
    for cls, rest in read_rows(path):
        cx, cy, bw, bh = (float(v) for v in rest.split())
        out.append((names[cls], ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)))
    return out


def box_iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two (x1, y1, x2, y2) boxes; 0 for empty boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


VISIBILITY_FILE = "visibility.jsonl"  # written by `python -m vision synth` beside data.yaml


def visibility_rows(root: Path) -> list[dict]:
    """The lines of ``root/visibility.jsonl``, parsed ([] when the dataset has none)."""
    path = Path(root) / VISIBILITY_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def read_hidden(root: Path) -> dict[str, list]:
    """``root/visibility.jsonl``'s hidden cards, image name -> [{card, card_index, fraction}].

    The cards in a synthetic scene that no label names because no index of
    theirs passes the labelling rule (``vision.synth.scene.MIN_VISIBLE_FRACTION``),
    though part of one is in sight.  Only images written since the generator
    recorded them have an entry.
    """
    return {d["image"]: d["hidden"] for d in visibility_rows(root) if "hidden" in d}


def read_visibility(root: Path) -> dict[str, list]:
    """``root/visibility.jsonl`` as image name -> labelled indices ({} when the dataset has none)."""
    return {d["image"]: d["indices"] for d in visibility_rows(root)}
