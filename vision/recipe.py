"""Rebuild every training input from seeds: the exact recipe behind models/.

Generated images are git-ignored; this module (``python -m vision train
recipe``) regenerates them, exports the real photos' split, makes the
detector's one-class views and crop banks, and writes the combined data
files the training commands read.  Nothing here is downloaded.
"""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "datasets" / "generated"
WORK = REPO / "datasets" / "work"

# name -> (seed, count, file prefix); the same seeds produced the shipped models
SYNTH_SETS = {
    "synth_a": (100, 6000, "s100"),
    "synth_b": (200, 8000, "b"),
    "synth_val": (7, 300, "v"),      # validation during detector training
    "synth_test": (4242, 300, "t"),  # held out: only `python -m vision eval` reads it
}
TRAIN_SETS = ("synth_a", "synth_b")


def mixed_yaml(name: str, synth_sets: tuple[str, ...]) -> Path:
    # real photos first: Ultralytics' ``fraction`` keeps the head of this list
    train = ["real_corner/train/images"] + [f"{s}_det/train/images" for s in reversed(synth_sets)]
    text = (f"path: {WORK}\ntrain: {train}\n"
            "val: [real_corner/val/images, synth_val_det/train/images]\nnames: {0: index}\n")
    path = WORK / f"{name}.yaml"
    path.write_text(text)
    return path


def build(workers: int = 1) -> None:
    from vision.classifier_train import build_bank
    from vision.realphotos import export_corner_dataset
    from vision.synth.cli import main as synth_main
    from vision.train import detector_view

    export_corner_dataset(WORK / "real_corner", one_class=True)
    real_codes = export_corner_dataset(WORK / "real_codes", one_class=False)
    for name, (seed, count, prefix) in SYNTH_SETS.items():
        out = GENERATED / name
        if not (out / "data.yaml").exists() or len(list((out / "images").glob("*"))) < count:
            synth_main(["--out", str(out), "--count", str(count), "--seed", str(seed), "--imgsz", "640",
                        "--workers", str(workers), "--prefix", prefix])
        if name != "synth_test":
            detector_view(out / "data.yaml", WORK / f"{name}_det")
    banks = WORK / "crop_banks"
    for name in TRAIN_SETS:
        if not (banks / f"{name}.npz").exists():
            build_bank([(GENERATED / name / "data.yaml", "train")], banks / f"{name}.npz", junk_per_image=3)
    if not (banks / "real_train.npz").exists():
        build_bank([(real_codes, "train")], banks / "real_train.npz", junk_per_image=3)
    if not (banks / "real_val.npz").exists():
        build_bank([(real_codes, "val")], banks / "real_val.npz", junk_per_image=1)
    print(mixed_yaml("mixed_b", TRAIN_SETS))            # runs 2-3 of the detector (synth_b first)
    print(mixed_yaml("mixed_c", tuple(reversed(TRAIN_SETS))))  # run 4 (synth_a first)
