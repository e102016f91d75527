"""Rebuild every training input from seeds: the exact recipe behind models/.

Generated images are git-ignored; this module (``python -m vision train
recipe``) regenerates them, exports the real photos' split, makes the
detector's one-class views and crop banks, and writes the combined data
files the training commands read.  Nothing here is downloaded.  The seeds,
counts and banks are data, not code: ``datasets/recipe.json``.
"""
from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "datasets" / "generated"
WORK = REPO / "datasets" / "work"

RECIPE_FILE = REPO / "datasets" / "recipe.json"


def load_recipe(path: Path = RECIPE_FILE) -> dict:
    """The tracked dataset config (``datasets/recipe.json``), checked so a bad edit fails loudly.

    The seeds there produced the shipped models; neither a held-out set nor a
    tuning set may share a seed (and so scenes) with a set that is trained on:
    a candidate judged on scenes it trained on would look better than it reads.
    """
    recipe = json.loads(Path(path).read_text())
    recipe.setdefault("classifier_sets", ["synth_hr_c"])  # recipes before synth_hr_d named no such list
    sets = recipe["synthetic_sets"]
    # recipes before synth_hr_tune named no tuning list: their tuning sets were the "*val" ones
    recipe.setdefault("tuning_sets", [n for n in sets if n.endswith("val")])
    named = (recipe["train_sets"] + recipe["detector_views"] + recipe["held_out"] + recipe["classifier_sets"]
             + recipe["tuning_sets"])
    for name in named:
        if name not in sets:
            raise ValueError(f"{path}: {name!r} is not in synthetic_sets")
    judged = set(recipe["held_out"]) | set(recipe["tuning_sets"])
    trained = {sets[n]["seed"] for n in sets if n not in judged}
    held_out = {sets[n]["seed"] for n in recipe["held_out"]}
    # (kind, its sets, seeds they must avoid, whose): tuning on held-out scenes would leak them into every choice
    for kind, names, seeds, whose in (("held-out", recipe["held_out"], trained, "a training set"),
                                      ("tuning", recipe["tuning_sets"], trained, "a training set"),
                                      ("tuning", recipe["tuning_sets"], held_out, "a held-out set")):
        for name in names:
            if sets[name]["seed"] in seeds:
                raise ValueError(f"{path}: {kind} set {name!r} shares seed {sets[name]['seed']} with {whose}")
    return recipe


_RECIPE = load_recipe()
# name -> (seed, count, file prefix, image size).  The 2048 px sets are the
# same kind of scene at the size the reader works at (``vision.photo``: a
# phone photo is decoded to 2048 px), so their indices are as legible as in
# a real photo; at 640 px a third of the indices are under 12 px tall.
SYNTH_SETS = {name: (s["seed"], s["count"], s["prefix"], s["imgsz"])
              for name, s in _RECIPE["synthetic_sets"].items()}
HELD_OUT = tuple(_RECIPE["held_out"])    # only `python -m vision eval` reads these
TUNING_SETS = tuple(_RECIPE["tuning_sets"])  # candidates are chosen on these (and the real training photos)
TRAIN_SETS = tuple(_RECIPE["train_sets"])
DETECTOR_VIEWS = tuple(_RECIPE["detector_views"])
# 2048 px sets cut into labelled classifier banks (not trained on by the detector)
CLASSIFIER_SETS = tuple(_RECIPE["classifier_sets"])
# hard examples cut with the reader shipped at the time (vision.hard_negatives):
# bank -> (training sets as data.yaml paths under datasets/, at most this many images from each,
#          boxes from the refining second look, seed of the random pick of images)
MINED_BANKS = {name: (tuple(b["sources"]), b["limit"], b["refine"], b.get("seed", 0))
               for name, b in _RECIPE["mined_banks"].items()}


def mixed_yaml(name: str, synth_sets: tuple[str, ...]) -> Path:
    # The order does not matter: Ultralytics sorts every image path, and its own
    # ``fraction`` kept the head of that sorted list (real_corner, then synth_a),
    # so `python -m vision train detector --fraction` samples each folder instead
    # (vision.detector_data.sample_yaml).
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
    for name, (seed, count, prefix, imgsz) in SYNTH_SETS.items():
        out = GENERATED / name
        if not (out / "data.yaml").exists() or len(list((out / "images").glob("*"))) < count:
            synth_main(["--out", str(out), "--count", str(count), "--seed", str(seed), "--imgsz", str(imgsz),
                        "--workers", str(workers), "--prefix", prefix])
        if name in DETECTOR_VIEWS:
            detector_view(out / "data.yaml", WORK / f"{name}_det")
    banks = WORK / "crop_banks"
    for name in TRAIN_SETS + CLASSIFIER_SETS:
        if not (banks / f"{name}.npz").exists():
            build_bank([(GENERATED / name / "data.yaml", "train")], banks / f"{name}.npz", junk_per_image=3)
    if not (banks / "real_train.npz").exists():
        build_bank([(real_codes, "train")], banks / "real_train.npz", junk_per_image=3)
    if not (banks / "real_val.npz").exists():
        build_bank([(real_codes, "val")], banks / "real_val.npz", junk_per_image=1)
    from vision.hard_negatives import mine
    for name, (sources, limit, refine, seed) in MINED_BANKS.items():
        if not (banks / f"{name}.npz").exists():
            mine([(REPO / "datasets" / s, "train") for s in sources], banks / f"{name}.npz", limit, seed, refine)
    # runs 2-3 of the detector, and run 4 on: the same folders (the order meant to put
    # synth_b or synth_a first, which Ultralytics' sorting undid)
    print(mixed_yaml("mixed_b", TRAIN_SETS))
    print(mixed_yaml("mixed_c", tuple(reversed(TRAIN_SETS))))
