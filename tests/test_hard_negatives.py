"""Mining hard examples with the shipped detector: what becomes JUNK and what a positive.

Runs the real reader over a few synthetic scenes made on the spot, so it
needs no training extra (onnxruntime and the shipped models only).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.index_crops import JUNK, RANK_LABELS, STORE_SIZE, SUIT_LABELS, code_to_targets

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not (ROOT / "models" / "corner_detector.onnx").exists(),
                                reason="shipped models missing")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    out = tmp_path_factory.mktemp("scenes")
    subprocess.run([sys.executable, "-m", "vision", "synth", "--out", str(out), "--count", "3", "--seed", "31337"],
                   check=True, cwd=ROOT, capture_output=True)
    return out


def test_detections_on_labelled_indices_become_positives_of_their_code(scenes, tmp_path):
    from vision.hard_negatives import mine
    from vision.yolo_data import dataset_images, label_path, read_rows

    bank = tmp_path / "mined.npz"
    stats = mine([(scenes / "data.yaml", "train")], bank)
    data = np.load(bank)
    assert data["crops"].shape[1:] == (STORE_SIZE, STORE_SIZE, 3)
    assert len(data["crops"]) == len(data["rank"]) == len(data["suit"]) == stats["positives"] + stats["junk"]
    assert stats["positives"] > 0 and stats["images"] == 3
    assert data["rank"].max() < len(RANK_LABELS) and data["suit"].max() < len(SUIT_LABELS)
    # every positive is one of the codes labelled in these scenes
    images, names = dataset_images(scenes / "data.yaml", "train")
    labelled = {code_to_targets(names[cls]) for img in images for cls, _ in read_rows(label_path(img))
                if names[cls] != "CARD"}
    junk = code_to_targets(JUNK)
    pairs = set(zip(data["rank"].tolist(), data["suit"].tolist()))
    assert pairs - {junk} <= labelled


def test_with_no_labels_every_detection_is_junk(scenes, tmp_path):
    import shutil

    from vision.hard_negatives import mine

    bare = tmp_path / "bare"
    shutil.copytree(scenes / "images", bare / "images")
    (bare / "labels").mkdir()
    (bare / "data.yaml").write_text(f"path: {bare}\ntrain: images\nnames: ['AS']\n")
    bank = tmp_path / "junk.npz"
    stats = mine([(bare / "data.yaml", "train")], bank)
    data = np.load(bank)
    assert stats["positives"] == 0 and stats["junk"] > 0
    r, s = code_to_targets(JUNK)
    assert (data["rank"] == r).all() and (data["suit"] == s).all()


def test_refuses_to_mine_the_real_validation_photos(scenes, tmp_path, monkeypatch):
    import shutil

    from vision import hard_negatives, realphotos

    leaked = tmp_path / "leaked"
    shutil.copytree(scenes, leaked)
    stem = sorted(p.stem for p in (leaked / "images").glob("*"))[0]
    monkeypatch.setattr(realphotos, "split_names", lambda root=None: {"train": [], "val": [stem]})
    monkeypatch.setattr(hard_negatives, "SHARED_REAL", tmp_path)
    (tmp_path / "images").mkdir()
    with pytest.raises(ValueError, match="validation split"):
        hard_negatives.mine([(leaked / "data.yaml", "train")], tmp_path / "x.npz")


def test_candidate_detector_weights_mine_like_the_shipped_ones(scenes, tmp_path):
    import shutil

    from vision.hard_negatives import mine
    from vision.reader import DETECTOR_PATH

    candidate = tmp_path / "candidate.onnx"
    shutil.copyfile(DETECTOR_PATH, candidate)
    shipped = mine([(scenes / "data.yaml", "train")], tmp_path / "a.npz")
    assert mine([(scenes / "data.yaml", "train")], tmp_path / "b.npz", detector=candidate) == shipped
    candidate.write_bytes(b"not a model")  # the candidate file is what gets loaded
    with pytest.raises(Exception, match="(?i)protobuf|parse|invalid|load"):
        mine([(scenes / "data.yaml", "train")], tmp_path / "c.npz", detector=candidate)
