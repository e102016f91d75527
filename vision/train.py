"""``python -m vision train``: train the corner detector and the index classifier.

The reader is two small models because telling 64 kinds of card apart is what
a from-scratch detector fails to learn in a CPU budget, while *finding* corner
indices (one class) is learnt quickly; a tiny classifier then reads each
index crop and trains on hundreds of thousands of crops per hour.

Both commands resume from the weights under ``models/`` when they exist, so
every run continues the last one.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from vision import ultra_offline

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"
DETECTOR_CFG = Path(__file__).resolve().parent / "assets" / "model_cfg" / "corner-detector.yaml"
DETECTOR_PT = MODELS / "corner_detector.pt"
DETECTOR_ONNX = MODELS / "corner_detector.onnx"
WORK = REPO / "datasets" / "work"


def train_detector(data: str, epochs: int, imgsz: int, batch: int, name: str, fresh: bool,
                   fraction: float = 1.0, workers: int = 2, lr0: float | None = None,
                   warmup_epochs: float = 3.0, close_mosaic: int = 0, optimizer: str = "auto",
                   sample_seed: int = 0) -> Path:
    """Train (resume) the corner detector; ``lr0`` only counts with a named optimizer.

    ``fraction`` under 1 trains on a random sample of every training folder
    (``vision.detector_data.sample_yaml``, drawn with ``sample_seed``), not on
    Ultralytics' first images in sorted order, which left whole folders unseen.

    Ultralytics' ``optimizer="auto"`` picks AdamW at lr 0.002 for short runs
    and silently ignores ``lr0``; a resumed run that should start lower than
    that (the weights are already trained) has to name the optimizer.
    """
    ultra_offline.configure()
    from ultralytics import YOLO

    from vision.detector_data import sample_yaml

    trained_on = data
    if fraction < 1:
        data = str(sample_yaml(Path(data), fraction, sample_seed, WORK / "runs" / f"{name}_data"))
    start = DETECTOR_PT if DETECTOR_PT.exists() and not fresh else DETECTOR_CFG
    print(f"detector: starting from {start.relative_to(REPO)}", flush=True)
    model = YOLO(str(start), task="detect")
    extra = {"optimizer": optimizer} if lr0 is None else {"lr0": lr0, "optimizer": optimizer}
    t0 = time.time()
    model.train(
        data=data, epochs=epochs, imgsz=imgsz, batch=batch, device="cpu", workers=workers,
        # Ultralytics drops the loaded weights when pretrained=False: keep them when resuming.
        pretrained=start == DETECTOR_PT, amp=False, plots=False, project=str(WORK / "runs"), name=name,
        exist_ok=True, cache=False, single_cls=True,
        degrees=0.0, fliplr=0.0, flipud=0.0, mosaic=1.0, close_mosaic=close_mosaic, scale=0.5,
        warmup_epochs=warmup_epochs,
        hsv_h=0.1, hsv_s=0.7, hsv_v=0.5, patience=0, val=True, verbose=False, **extra,
    )
    run_dir = WORK / "runs" / name
    last = run_dir / "weights" / "last.pt"
    MODELS.mkdir(exist_ok=True)
    shutil.copyfile(last, DETECTOR_PT)
    log = {"data": trained_on, "epochs": epochs, "imgsz": imgsz, "fraction": fraction,
           **({"sample_seed": sample_seed} if fraction < 1 else {}), "optimizer": optimizer,
           **({} if lr0 is None else {"lr0": lr0}), "seconds": round(time.time() - t0),
           "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
    with open(MODELS / "training_log.jsonl", "a") as fh:
        fh.write(json.dumps({"model": "corner_detector", **log}) + "\n")
    return DETECTOR_PT


def detector_view(src_yaml: Path, out: Path, splits: tuple[str, ...] = ("train", "val")) -> Path:
    """A one-class copy of a code-labelled dataset for the detector: images hard-linked, CARD boxes dropped.

    ``single_cls`` alone would turn the whole-card outline boxes into 'index'
    boxes, so the detector gets its own label files instead.
    """
    import os

    import yaml

    from vision.yolo_data import dataset_images, label_path, read_rows

    out = Path(out)
    entries = {}
    for split in splits:
        images, names = dataset_images(Path(src_yaml), split)
        if not images:
            continue
        (out / split / "images").mkdir(parents=True, exist_ok=True)
        (out / split / "labels").mkdir(parents=True, exist_ok=True)
        for img in images:
            dst = out / split / "images" / img.name
            if not dst.exists():
                try:
                    os.link(img, dst)
                except OSError:
                    shutil.copyfile(img, dst)
            rows = [f"0 {rest}" for cls, rest in read_rows(label_path(img)) if names[cls] != "CARD"]
            (out / split / "labels" / f"{img.stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
        entries[split] = f"{split}/images"
    data = out / "data.yaml"
    data.write_text(yaml.safe_dump({"path": str(out.resolve()), **entries, "names": {0: "index"}}))
    return data


def export_detector(imgsz: int) -> Path:
    ultra_offline.configure()
    from ultralytics import YOLO

    model = YOLO(str(DETECTOR_PT), task="detect")
    out = model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False, opset=17, device="cpu")
    shutil.move(out, DETECTOR_ONNX)
    return DETECTOR_ONNX


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision train")
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("recipe", help="regenerate every training input from seeds (datasets/work, generated)")
    r.add_argument("--workers", type=int, default=1)
    p = sub.add_parser("real-data", help="export the real photos as a YOLO dataset (one class, or card codes)")
    p.add_argument("--out", default=None, help="default datasets/work/real_corner (real_codes with --codes)")
    p.add_argument("--codes", action="store_true", help="label card codes, not one 'index' class")
    p.add_argument("--as-published", action="store_true",
                   help="leave out the corrections in datasets/realphotos-amendments.json")
    d = sub.add_parser("detector", help="train (resume) the corner detector")
    d.add_argument("--data", required=True, help="data.yaml (one class or many: trained as one class)")
    d.add_argument("--epochs", type=int, default=10)
    d.add_argument("--imgsz", type=int, default=320)
    d.add_argument("--batch", type=int, default=16)
    d.add_argument("--fraction", type=float, default=1.0,
                   help="train on this random share of each training folder (a new --sample-seed sees others)")
    d.add_argument("--sample-seed", type=int, default=0)
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--lr0", type=float, default=None, help="only used with a named --optimizer")
    d.add_argument("--optimizer", default="auto", help="auto (AdamW at 0.002 for short runs), AdamW, SGD")
    d.add_argument("--warmup-epochs", type=float, default=3.0)
    d.add_argument("--close-mosaic", type=int, default=0)
    d.add_argument("--name", default="detector")
    d.add_argument("--fresh", action="store_true", help="start from the yaml, not models/corner_detector.pt")
    v = sub.add_parser("detector-view", help="one-class copy of a code-labelled dataset for the detector")
    v.add_argument("data")
    v.add_argument("--out", required=True)
    t = sub.add_parser("tile-view", help="one-class detector data: random reader tiles of high-resolution scenes")
    t.add_argument("data", nargs="+", help="data.yaml of code-labelled scenes (e.g. the 2048 px synth_hr_* sets)")
    t.add_argument("--out", required=True)
    t.add_argument("--per-scene", type=int, default=2, help="tiles drawn from each scene (a 2048 px one has 9)")
    t.add_argument("--seed", type=int, default=0)
    e = sub.add_parser("export", help="export the detector to ONNX")
    e.add_argument("--imgsz", type=int, default=640)
    c = sub.add_parser("classifier", help="train (resume) the index classifier")
    c.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)

    if args.what == "recipe":
        from vision.recipe import build
        build(args.workers)
    elif args.what == "real-data":
        from vision.realphotos import export_corner_dataset
        out = Path(args.out) if args.out else WORK / ("real_codes" if args.codes else "real_corner")
        print(export_corner_dataset(out, one_class=not args.codes, amended=not args.as_published))
    elif args.what == "detector":
        print(train_detector(args.data, args.epochs, args.imgsz, args.batch, args.name, args.fresh,
                             args.fraction, args.workers, args.lr0, args.warmup_epochs,
                             args.close_mosaic, args.optimizer, args.sample_seed))
    elif args.what == "detector-view":
        print(detector_view(Path(args.data), Path(args.out)))
    elif args.what == "tile-view":
        from vision.detector_data import tile_view
        print(tile_view([Path(d) for d in args.data], Path(args.out), args.per_scene, args.seed))
    elif args.what == "export":
        print(export_detector(args.imgsz))
    elif args.what == "classifier":
        from vision.classifier_train import main as cls_main
        return cls_main(args.rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
