"""The detector's training inputs: random samples of a dataset, and tile windows.

Two things the detector's runs got wrong until 2026-12-02:

* ``--fraction``.  Ultralytics sorts every training image path and keeps the
  *first* fraction, so ``mixed_c`` at fraction 0.4 (real + synth_a + synth_b,
  sorted by folder) was the real photos and the first 5.4 k synth_a scenes
  in every run: synth_b's 8000 scenes were never seen by runs at 0.4, and
  each further epoch repeated the same images.  ``sample_yaml`` writes a
  seeded random sample as an image list instead, so a run at fraction 0.4
  sees 40 % of *every* folder, and a run with another seed sees others.
* Scale.  The reader cuts photos with small indices into 3 x 3 tiles and
  detects each at 416 px, but the detector only ever trained on whole 640 px
  scenes shrunk to 416.  ``tile_view`` cuts the 2048 px scenes into exactly
  the windows the reader's tiles see (``vision.reader.tile_windows``), shrunk
  to the detector's input size, with the index boxes clipped to each window.
"""
from __future__ import annotations

import random
from pathlib import Path

# An index cut by a tile's edge is labelled when at least this share of its
# box is inside the tile (a neighbouring tile, 20 % overlap, sees it whole);
# a sliver under it is left unlabelled rather than taught as an index.
MIN_VISIBLE = 0.5


def sample_yaml(data_yaml: Path, fraction: float, seed: int, out: Path) -> Path:
    """A copy of ``data_yaml`` whose train split is a seeded random ``fraction`` of its images.

    The sample is drawn from each training folder separately, so every
    source keeps its share; validation is left whole.
    """
    import yaml

    from vision.yolo_data import IMAGE_SUFFIXES, dataset_root

    if not 0 < fraction <= 1:
        raise ValueError(f"fraction {fraction}: choose a share of the training images in (0, 1]")
    cfg = yaml.safe_load(Path(data_yaml).read_text())
    root = dataset_root(cfg, Path(data_yaml))
    train = cfg["train"] if isinstance(cfg["train"], list) else [cfg["train"]]
    rng = random.Random(seed)
    chosen: list[str] = []
    for folder in train:
        images = sorted(str(p) for p in (root / folder).rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        if not images:  # a typo or an unbuilt view would otherwise just drop out of the run
            raise ValueError(f"{data_yaml}: training folder {root / folder} holds no images")
        chosen += rng.sample(images, max(1, round(len(images) * fraction)))
    rng.shuffle(chosen)
    out.mkdir(parents=True, exist_ok=True)
    listing = out / f"train_sample_seed{seed}.txt"
    listing.write_text("\n".join(chosen) + "\n")
    val = cfg["val"] if isinstance(cfg["val"], list) else [cfg["val"]]
    sampled = {**cfg, "path": str(root.resolve()), "train": str(listing.resolve()),
               "val": [str((root / v).resolve()) for v in val]}
    dst = out / f"data_sample_seed{seed}.yaml"
    dst.write_text(yaml.safe_dump(sampled))
    print(f"detector data: {len(chosen)} training images, a seed-{seed} sample of {fraction:g} of each folder")
    return dst


def clip_boxes(boxes: list[tuple[float, float, float, float]], x0: int, y0: int, side: int,
               min_visible: float = MIN_VISIBLE) -> list[tuple[float, float, float, float]]:
    """Boxes (image pixels) clipped to the square window at (x0, y0), in window pixels.

    A box is kept when at least ``min_visible`` of its area lies inside.
    """
    out = []
    for x1, y1, x2, y2 in boxes:
        area = max(x2 - x1, 0.0) * max(y2 - y1, 0.0)
        cx1, cy1 = max(x1, x0), max(y1, y0)
        cx2, cy2 = min(x2, x0 + side), min(y2, y0 + side)
        if area <= 0 or cx2 <= cx1 or cy2 <= cy1:
            continue
        if (cx2 - cx1) * (cy2 - cy1) >= min_visible * area:
            out.append((cx1 - x0, cy1 - y0, cx2 - x0, cy2 - y0))
    return out


def tile_view(src_yamls: list[Path], out: Path, per_scene: int, seed: int, size: int | None = None,
              factor: int | None = None) -> Path:
    """A one-class detector dataset of ``per_scene`` random reader tiles of each scene, at ``size`` px.

    Tiles are the reader's own (``tile_windows``: same side, same origins), so
    indices land at the scale the tiled pass detects them at.  Empty tiles
    are kept: table and clutter the detector must learn to leave alone.
    """
    import cv2
    import yaml

    from vision.reader import DETECT_SIZE, tile_factor_for, tile_windows
    from vision.yolo_data import dataset_images, label_path, read_boxes

    size = size or DETECT_SIZE
    rng = random.Random(seed)
    (out / "train" / "images").mkdir(parents=True, exist_ok=True)
    (out / "train" / "labels").mkdir(parents=True, exist_ok=True)
    written = 0
    for src in src_yamls:
        images, names = dataset_images(Path(src), "train")
        for img_path in images:
            img = cv2.imread(str(img_path))
            if img is None:
                raise ValueError(f"{img_path}: not a readable image")
            h, w = img.shape[:2]
            side, origins = tile_windows(h, w, factor or tile_factor_for(max(h, w)))
            boxes = [b for name, b in read_boxes(label_path(img_path), names, w, h) if name != "CARD"]
            for x0, y0 in rng.sample(origins, min(per_scene, len(origins))):
                crop = img[y0:y0 + side, x0:x0 + side]
                ch, cw = crop.shape[:2]
                k = size / side  # the reader's letterbox scale: a short edge tile keeps it
                stem = f"{img_path.stem}_t{x0}_{y0}"
                cv2.imwrite(str(out / "train" / "images" / f"{stem}.jpg"),
                            cv2.resize(crop, (max(1, round(cw * k)), max(1, round(ch * k))),
                                       interpolation=cv2.INTER_AREA),
                            [cv2.IMWRITE_JPEG_QUALITY, 92])
                rows = [f"0 {(a + c) / 2 / cw:.6f} {(b + d) / 2 / ch:.6f} {(c - a) / cw:.6f} {(d - b) / ch:.6f}"
                        for a, b, c, d in clip_boxes(boxes, x0, y0, side) if (d - b) * k >= 2]
                (out / "train" / "labels" / f"{stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
                written += 1
    data = out / "data.yaml"
    data.write_text(yaml.safe_dump({"path": str(out.resolve()), "train": "train/images", "val": "train/images",
                                    "names": {0: "index"}}))
    print(f"tile view: {written} tiles of {size} px in {out}")
    return data
