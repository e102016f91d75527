"""``python -m vision contact DIR --out sheet.png [--n 16]``: a grid of dataset images with their labels drawn.

``DIR`` is a YOLO dataset folder (``images/`` + ``labels/``, optional
``data.yaml`` for the class names; defaults to ``vision.classes.LABEL_NAMES``).
Corner-index boxes are drawn in colour with the class name; whole-card
``CARD`` boxes thin and grey.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import cv2
import numpy as np

from vision.classes import LABEL_NAMES


def read_names(root: Path) -> list[str]:
    y = root / "data.yaml"
    if y.exists():
        m = re.search(r"^names:\s*\[(.*)\]\s*$", y.read_text(), re.M)
        if m:
            return [s.strip().strip("'\"") for s in m.group(1).split(",")]
    return list(LABEL_NAMES)


def draw_labels(img: np.ndarray, lines: list[str], names: list[str]) -> np.ndarray:
    h, w = img.shape[:2]
    out = img.copy()
    for line in lines:
        p = line.split()
        if len(p) != 5:
            continue
        c = int(p[0])
        x, y, bw, bh = map(float, p[1:])
        x0, y0 = int(round((x - bw / 2) * w)), int(round((y - bh / 2) * h))
        x1, y1 = int(round((x + bw / 2) * w)), int(round((y + bh / 2) * h))
        name = names[c] if c < len(names) else str(c)
        if name == "CARD":
            cv2.rectangle(out, (x0, y0), (x1, y1), (160, 160, 160), 1)
            continue
        hue = (c * 37) % 180
        col = cv2.cvtColor(np.uint8([[[hue, 255, 255]]]), cv2.COLOR_HSV2BGR)[0, 0].tolist()
        cv2.rectangle(out, (x0, y0), (x1, y1), col, 1)
        (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, 0.35, 1)
        ty = y0 - 2 if y0 - th - 3 > 0 else y1 + th + 2
        cv2.rectangle(out, (x0, ty - th - 1), (x0 + tw + 1, ty + 2), (0, 0, 0), -1)
        cv2.putText(out, name, (x0 + 1, ty), cv2.FONT_HERSHEY_SIMPLEX, 0.35, col, 1, cv2.LINE_AA)
    return out


def contact_sheet(root: Path, n: int = 16, tile: int = 400, cols: int | None = None, start: int = 0) -> np.ndarray:
    root = Path(root)
    names = read_names(root)
    imgs = sorted(p for p in (root / "images").iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"})
    imgs = imgs[start:start + n]
    if not imgs:
        raise SystemExit(f"no images in {root / 'images'}")
    cols = cols or int(np.ceil(np.sqrt(len(imgs))))
    rows = int(np.ceil(len(imgs) / cols))
    sheet = np.full((rows * tile, cols * tile, 3), 40, np.uint8)
    for k, p in enumerate(imgs):
        img = cv2.imread(str(p))
        lab = root / "labels" / (p.stem + ".txt")
        lines = lab.read_text().splitlines() if lab.exists() else []
        s = tile / max(img.shape[:2])
        # draw at tile resolution so text stays legible
        img = cv2.resize(img, (int(img.shape[1] * s), int(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
        img = draw_labels(img, lines, names)
        r, c = divmod(k, cols)
        sheet[r * tile:r * tile + img.shape[0], c * tile:c * tile + img.shape[1]] = img
    return sheet


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision contact", description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="dataset folder with images/ and labels/")
    ap.add_argument("--out", required=True, help="PNG (or JPEG) to write")
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--tile", type=int, default=400)
    ap.add_argument("--start", type=int, default=0)
    a = ap.parse_args(argv)
    sheet = contact_sheet(Path(a.dir), a.n, a.tile, start=a.start)
    if not cv2.imwrite(a.out, sheet):
        raise SystemExit(f"cannot write {a.out}")
    print(f"wrote {a.out} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
