"""``python -m vision synth --out DIR --count N --seed S [--imgsz 640] [--workers K]``.

Writes ``DIR/images/*.jpg``, ``DIR/labels/*.txt`` (Ultralytics YOLO),
``DIR/data.yaml`` whose ``names`` are ``vision.classes.LABEL_NAMES`` (62
corner-index classes plus ``CARD``, the whole-card outline), and
``DIR/visibility.jsonl``: for every image, each labelled index with the share
of it in sight, so ``python -m vision eval`` can tell the misses of cards in
full view from those of cards mostly hidden under others (a label file
cannot say how much of an index shows).  Image ``i`` is
made from ``numpy.random.default_rng([seed, i])`` alone, so a seed gives the
same bytes however the work is split between workers.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classes import LABEL_NAMES
from vision.yolo_data import VISIBILITY_FILE, visibility_rows

_GEN = None


def _init_worker(gen):
    global _GEN
    _GEN = gen
    cv2.setNumThreads(1)


def encode(gen, index: int) -> tuple[bytes, str]:
    """Make image ``index``: (JPEG bytes, label file text)."""
    return encode_with_info(gen, index)[:2]


def encode_with_info(gen, index: int) -> tuple[bytes, str, dict]:
    """Make image ``index``: (JPEG bytes, label file text, the generator's info)."""
    img, labels, info = gen.generate(index)
    q = int(np.random.default_rng([gen.seed, int(index), 1]).integers(55, 96))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    text = "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in labels)
    return buf.tobytes(), text, info


def _work(args):
    index, img_dir, lab_dir, name = args
    data, text, info = encode_with_info(_GEN, index)
    (Path(img_dir) / f"{name}.jpg").write_bytes(data)
    (Path(lab_dir) / f"{name}.txt").write_text(text)
    return name, (info["indices"], info.get("hidden", []))


def write_visibility(out: Path, rows: dict[str, tuple[list, list]]) -> None:
    """Merge ``rows`` into ``out/visibility.jsonl``, one line per image, sorted.

    ``rows``: image name -> (its labelled indices, its hidden cards: those in
    the scene whose every index fails the labelling rule, yet shows in part).
    Lines already there for other images are kept as they are, so ``--start``
    extends a dataset's file the way it extends its images.
    """
    merged = {d["image"]: d for d in visibility_rows(out)}
    merged.update({k: {"image": k, "indices": indices, "hidden": hidden} for k, (indices, hidden) in rows.items()})
    (out / VISIBILITY_FILE).write_text("".join(json.dumps(merged[k]) + "\n" for k in sorted(merged)))



def write_data_yaml(out: Path) -> None:
    names = ", ".join(f"'{n}'" for n in LABEL_NAMES)
    (out / "data.yaml").write_text(
        "# Synthetic table photos from `python -m vision synth` (vision/synth).\n"
        "# Classes 0-61: corner indices (rank/value glyph + the pip under it) per card code;\n"
        "# 62 CARD: the axis-aligned box of a card with at least one labelled corner.\n"
        f"path: {out.resolve()}\ntrain: images\nval: images\nnc: {len(LABEL_NAMES)}\nnames: [{names}]\n")


def make_generator(seed: int, imgsz: int, cardart=None, procedural: bool = True):
    from vision.synth.scene import SceneGenerator

    return SceneGenerator(seed=seed, imgsz=imgsz, cardart=cardart, procedural=procedural)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision synth", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output folder (images/, labels/, data.yaml)")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first image index (to extend a dataset)")
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cardart", default=None, help="folder of art decks (default ../shared/cardart)")
    ap.add_argument("--no-procedural", action="store_true", help="only the art decks and optional faces")
    ap.add_argument("--prefix", default="", help="file name prefix")
    a = ap.parse_args(argv)

    # one thread per process: fair per-core speed, and no OpenCV thread pool to
    # inherit (and deadlock on) in the forked workers
    cv2.setNumThreads(1)
    out = Path(a.out)
    img_dir, lab_dir = out / "images", out / "labels"
    img_dir.mkdir(parents=True, exist_ok=True)
    lab_dir.mkdir(parents=True, exist_ok=True)
    write_data_yaml(out)

    t_load = time.perf_counter()
    gen = make_generator(a.seed, a.imgsz, a.cardart, not a.no_procedural)
    t0 = time.perf_counter()
    print(f"loaded faces in {t0 - t_load:.1f} s", flush=True)
    jobs = [(i, str(img_dir), str(lab_dir), f"{a.prefix}s{a.seed}_{i:07d}") for i in range(a.start, a.start + a.count)]
    workers = max(1, int(a.workers))
    done = 0
    visible = {}
    if workers == 1:
        _init_worker(gen)
        for j in jobs:
            name, indices = _work(j)
            visible[name] = indices
            done += 1
            if done % 500 == 0:
                print(f"{done}/{a.count}", flush=True)
    else:
        ctx = mp.get_context("fork")
        with ctx.Pool(workers, initializer=_init_worker, initargs=(gen,)) as pool:
            for name, indices in pool.imap_unordered(_work, jobs, chunksize=8):
                visible[name] = indices
                done += 1
                if done % 500 == 0:
                    print(f"{done}/{a.count}", flush=True)
    write_visibility(out, visible)
    dt = time.perf_counter() - t0
    rate = a.count / dt if dt > 0 else float("inf")
    print(f"wrote {a.count} images to {out} in {dt:.1f} s: {rate:.1f} images/s "
          f"({rate / workers:.1f} per worker, {workers} worker(s), imgsz {a.imgsz})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
