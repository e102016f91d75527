"""One tiny training epoch end to end, offline, when the [train] extra is installed.

Proves the training command builds the model from yaml, needs no download,
and writes weights that export to ONNX and load in the reader's detector.
"""
import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.train,
              pytest.mark.skipif(importlib.util.find_spec("ultralytics") is None,
                                 reason="training extra (ultralytics, torch) not installed")]

REAL = Path(__file__).resolve().parent / "fixtures" / "photos"


def test_one_tiny_epoch_trains_and_exports_offline(tmp_path, monkeypatch):
    import cv2
    import numpy as np

    # a 4-image one-class dataset: white cards with a dark 'index' blob in the corner
    for split in ("train", "val"):
        (tmp_path / split / "images").mkdir(parents=True)
        (tmp_path / split / "labels").mkdir(parents=True)
        for i in range(2):
            img = np.full((96, 96, 3), 60, np.uint8)
            cv2.rectangle(img, (20, 10), (70, 85), (245, 245, 245), -1)
            cv2.putText(img, "7", (24, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 200), 2)
            cv2.imwrite(str(tmp_path / split / "images" / f"{i}.jpg"), img)
            (tmp_path / split / "labels" / f"{i}.txt").write_text("0 0.3 0.22 0.18 0.25\n")
    data = tmp_path / "data.yaml"
    data.write_text(f"path: {tmp_path}\ntrain: train/images\nval: val/images\nnames: {{0: index}}\n")

    from vision import train

    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setattr(train, "MODELS", models)
    monkeypatch.setattr(train, "DETECTOR_PT", models / "corner_detector.pt")
    monkeypatch.setattr(train, "DETECTOR_ONNX", models / "corner_detector.onnx")
    monkeypatch.setattr(train, "WORK", tmp_path / "work")
    pt = train.train_detector(str(data), epochs=1, imgsz=64, batch=2, name="smoke", fresh=True, workers=0)
    assert pt.exists() and pt.stat().st_size > 100_000
    onnx_path = train.export_detector(imgsz=64)
    assert onnx_path.exists()

    from vision.detector import CornerDetector

    det = CornerDetector(onnx_path, conf=0.0)
    corners = det.detect(np.full((100, 80, 3), 128, np.uint8), size=64)
    assert isinstance(corners, list)  # the untrained model runs; boxes stay inside the image
    for c in corners:
        assert 0 <= c.box[0] <= c.box[2] <= 80 and 0 <= c.box[1] <= c.box[3] <= 100
