"""The detector's training inputs: random samples that see every folder, and the reader's own tiles."""
from __future__ import annotations

from pathlib import Path

import pytest

from vision.detector_data import clip_boxes, sample_yaml, tile_view
from vision.reader import tile_factor_for, tile_windows

yaml = pytest.importorskip("yaml")  # PyYAML comes with the training extra, as do these commands
cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")


def _folders(root: Path, sizes: dict[str, int]) -> Path:
    for name, n in sizes.items():
        (root / name / "images").mkdir(parents=True)
        for i in range(n):
            (root / name / "images" / f"{name}_{i:03d}.jpg").write_bytes(b"")
    data = root / "data.yaml"
    data.write_text(yaml.safe_dump({"path": str(root), "train": [f"{n}/images" for n in sizes],
                                    "val": "a/images", "names": {0: "index"}}))
    return data


def test_a_sample_takes_its_share_of_every_folder_not_the_first_in_sorted_order(tmp_path):
    data = _folders(tmp_path / "d", {"a": 40, "b": 100})
    out = sample_yaml(data, 0.25, 0, tmp_path / "out")
    cfg = yaml.safe_load(out.read_text())
    chosen = Path(cfg["train"]).read_text().split()
    assert sum("/a/" in p for p in chosen) == 10 and sum("/b/" in p for p in chosen) == 25
    assert cfg["val"] == [str((tmp_path / "d" / "a" / "images").resolve())]  # validation stays whole


def test_a_sample_is_reproducible_from_its_seed_and_another_seed_sees_others(tmp_path):
    data = _folders(tmp_path / "d", {"a": 200})

    def chosen(seed, where):
        return set(Path(yaml.safe_load(sample_yaml(data, 0.2, seed, tmp_path / where).read_text())["train"])
                   .read_text().split())
    assert chosen(3, "x") == chosen(3, "y")
    assert len(chosen(3, "x") & chosen(4, "x")) < 20  # two 40-image samples of 200 share ~8


@pytest.mark.parametrize("fraction", [0, 1.5])
def test_a_fraction_outside_zero_to_one_is_refused(tmp_path, fraction):
    with pytest.raises(ValueError, match=f"fraction {fraction}"):
        sample_yaml(_folders(tmp_path / "d", {"a": 3}), fraction, 0, tmp_path / "out")


def test_a_training_folder_without_images_is_named(tmp_path):
    data = _folders(tmp_path / "d", {"a": 3, "empty": 0})
    with pytest.raises(ValueError, match="training folder .*empty/images holds no images"):
        sample_yaml(data, 0.5, 0, tmp_path / "out")


def test_a_box_cut_by_the_tile_edge_is_kept_only_when_mostly_inside():
    boxes = [(10, 10, 30, 30),      # inside
             (90, 10, 110, 30),     # half inside: kept, clipped
             (95, 10, 115, 30),     # a quarter inside: dropped
             (200, 200, 220, 220)]  # outside
    assert clip_boxes(boxes, 0, 0, 100) == [(10, 10, 30, 30), (90, 10, 100, 30)]
    assert clip_boxes([(110, 60, 130, 80)], 100, 50, 100) == [(10, 10, 30, 30)]  # in window pixels


def test_tiles_are_the_readers_windows_with_the_boxes_that_fall_in_them(tmp_path):
    src = tmp_path / "scene"
    (src / "images").mkdir(parents=True)
    (src / "labels").mkdir()
    img = np.full((1200, 1600, 3), 90, np.uint8)
    cv2.imwrite(str(src / "images" / "s.jpg"), img)
    # one index near the top-left, one card outline (never a detector label)
    (src / "labels" / "s.txt").write_text("0 0.05 0.05 0.02 0.03\n1 0.5 0.5 0.4 0.6\n")
    (src / "data.yaml").write_text(yaml.safe_dump({"path": str(src), "train": "images", "names": ["7H", "CARD"]}))
    out = tile_view([src / "data.yaml"], tmp_path / "tiles", per_scene=99, seed=0, size=416)
    side, origins = tile_windows(1200, 1600, tile_factor_for(1600))
    images = sorted((out.parent / "train" / "images").glob("*.jpg"))
    assert [p.stem for p in images] == sorted(f"s_t{x}_{y}" for x, y in origins)
    assert cv2.imread(str(images[0])).shape[:2] == (416, 416)
    labelled = {p.stem: (out.parent / "train" / "labels" / f"{p.stem}.txt").read_text().split() for p in images}
    assert [stem for stem, rows in labelled.items() if rows] == ["s_t0_0"]
    cls, cx, cy, w, h = (float(v) for v in labelled["s_t0_0"])
    assert cls == 0 and cx == pytest.approx(0.05 * 1600 / side, abs=1e-4) and h == pytest.approx(0.03 * 1200 / side, abs=1e-4)


@pytest.mark.parametrize("path_line", ["", "path: .\n", "path: ../d\n"])
def test_a_data_yaml_named_by_a_relative_path_finds_its_own_folders(tmp_path, monkeypatch, path_line):
    import yaml

    from vision.yolo_data import dataset_images, dataset_root

    (tmp_path / "d" / "images").mkdir(parents=True)
    (tmp_path / "d" / "images" / "x.jpg").write_bytes(b"")
    (tmp_path / "d" / "data.yaml").write_text(f"{path_line}train: images\nnames: [index]\n")
    monkeypatch.chdir(tmp_path)
    cfg = yaml.safe_load(Path("d/data.yaml").read_text())
    assert dataset_root(cfg, Path("d/data.yaml")) == (tmp_path / "d").resolve()
    images, _ = dataset_images(Path("d/data.yaml"), "train")
    assert [p.name for p in images] == ["x.jpg"]
