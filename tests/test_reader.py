"""The shipped card reader on committed photos: exact cards, JSON shape, warnings.

Fixtures (tests/fixtures/photos, listed in expected.json with the cards
their labels say are visible): synthetic scenes from a held-out seed that
training never saw, and real photos from the validation split of
../shared/realphotos ("card-detection" dataset by cadyzedevelopmenthub on
Roboflow Universe, CC BY 4.0).
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "tests" / "fixtures" / "photos"
EXPECTED = json.loads((PHOTOS / "expected.json").read_text()) if (PHOTOS / "expected.json").exists() else {}
HAVE_MODELS = (ROOT / "models" / "corner_detector.onnx").exists() and (ROOT / "models" / "index_classifier.onnx").exists()

pytestmark = pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")


@pytest.fixture(scope="module")
def reader():
    from vision.reader import get_reader
    return get_reader()


def test_fixtures_are_listed():
    assert len(EXPECTED) >= 3
    assert any(v["source"] == "realphotos" for v in EXPECTED.values())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reads_the_exact_cards(reader, name):
    reading = reader.read((PHOTOS / name).read_bytes())
    assert Counter(reading.codes) == Counter(EXPECTED[name]["cards"]), reading.to_json()
    for card in reading.cards:
        x1, y1, x2, y2 = card.box
        assert 0 <= x1 < x2 <= reading.width and 0 <= y1 < y2 <= reading.height
        assert 0.0 < card.confidence <= 1.0


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reads_the_exact_cards_from_a_12_megapixel_photo(reader, name):
    # a phone sends 4000x3000 JPEGs: the same scene enlarged, as `python -m vision bench` reads it,
    # must give the same cards (a corner threshold of 0.4 once added a WILD and an 8H here)
    from vision.bench import _twelve_mp
    reading = reader.read(_twelve_mp(PHOTOS / name))
    assert (reading.width, reading.height) == (4000, 3000)
    assert Counter(reading.codes) == Counter(EXPECTED[name]["cards"]), reading.to_json()


def test_boxes_are_in_the_photos_own_pixels(reader):
    name = sorted(EXPECTED)[0]
    img = cv2.imread(str(PHOTOS / name))
    big = cv2.resize(img, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)
    ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 92])
    small = reader.read((PHOTOS / name).read_bytes())
    large = reader.read(buf.tobytes())
    assert (large.width, large.height) == (big.shape[1], big.shape[0])
    for a in small.cards:
        match = [b for b in large.cards if b.code == a.code]
        if match:
            cx_small = (a.box[0] + a.box[2]) / 2 / small.width
            cx_large = (match[0].box[0] + match[0].box[2]) / 2 / large.width
            assert abs(cx_small - cx_large) < 0.05


def test_empty_table_warns_no_cards(reader):
    img = np.full((600, 800, 3), (40, 110, 40), np.uint8)
    ok, buf = cv2.imencode(".png", img)
    reading = reader.read(buf.tobytes())
    assert reading.cards == ()
    assert any("no cards found" in w for w in reading.warnings)


def test_dark_photo_warns(reader):
    img = (cv2.imread(str(PHOTOS / sorted(EXPECTED)[0])) * 0.12).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    reading = reader.read(buf.tobytes())
    assert any("too dark" in w for w in reading.warnings)


def test_detect_command_json_contract(tmp_path):
    names = sorted(EXPECTED)[:2]
    args = [str(PHOTOS / n) for n in names] + [str(tmp_path / "missing.jpg")]
    res = subprocess.run([sys.executable, "-m", "vision", "detect", "--json", "--annotate", str(tmp_path / "ann"),
                          *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = json.loads(res.stdout)
    assert res.returncode == 1  # one image failed: the others are still read
    assert [o["image"] for o in out] == args
    for o, n in zip(out, names):
        assert Counter(c["card"] for c in o["cards"]) == Counter(EXPECTED[n]["cards"])
        assert set(o) >= {"image", "cards", "warnings"}
        for c in o["cards"]:
            assert set(c) == {"card", "confidence", "box"} and len(c["box"]) == 4
    assert "error" in out[-1]
    assert len(list((tmp_path / "ann").glob("*.jpg"))) == 2


def _read_corner(code: str, height: float, prob: float = 0.9):
    from vision.merge import ReadCorner
    return ReadCorner((10.0, 10.0, 10.0 + height * 0.6, 10.0 + height), code, prob)


def test_second_look_runs_for_huge_or_no_indices_only():
    from vision.reader import DETECT_SIZE, SECOND_LOOK_INDEX_PX, CardReader

    photo = np.zeros((2048, 1536, 3), np.uint8)
    to_photo = 2048 / DETECT_SIZE  # an index this many photo pixels tall is 1 px at the detector's size
    tall = (SECOND_LOOK_INDEX_PX + 10) * to_photo
    short = (SECOND_LOOK_INDEX_PX - 10) * to_photo
    assert CardReader._wants_second_look(photo, [])                                   # nothing read at all
    assert CardReader._wants_second_look(photo, [_read_corner("JUNK", tall)])         # only junk
    assert CardReader._wants_second_look(photo, [_read_corner("7H", short, 0.3)])     # only unsure reads
    assert CardReader._wants_second_look(photo, [_read_corner("7H", tall), _read_corner("KS", tall)])
    assert not CardReader._wants_second_look(photo, [_read_corner("7H", short), _read_corner("KS", short)])
    assert not CardReader._wants_second_look(np.zeros((300, 300, 3), np.uint8), [])  # too small to shrink


def test_second_look_keeps_first_pass_corners(reader, monkeypatch):
    """Corners the second look finds again are not read twice (one card, no 'seen twice' warning)."""
    import vision.reader as R

    name = "realphotos_IMG_20220921_194151_jpg.jpg"
    monkeypatch.setattr(R, "SECOND_LOOK_INDEX_PX", 0.0)  # force it on
    reading = reader.read((PHOTOS / name).read_bytes())
    assert sorted(reading.codes) == sorted(EXPECTED[name]["cards"]), reading.to_json()
    assert not any("appears" in w for w in reading.warnings), reading.warnings


def test_bench_photos_are_committed_fixtures():
    from vision.bench import BENCH_FIXTURES, FIXTURES

    assert all((FIXTURES / name).is_file() for name in BENCH_FIXTURES)


@pytest.mark.parametrize("factor", [2, 3, 4])
def test_tiles_cover_the_photo_and_grow_with_the_tile_factor(factor):
    """Every pixel of the photo lies in some tile; a larger factor means smaller tiles, so larger indices."""
    from vision.reader import TILE_OVERLAP, CardReader, _tile_starts

    seen = []
    tiler = CardReader.__new__(CardReader)
    tiler.detector = type("Recorder", (), {"detect_many": lambda self, crops, size: [
        seen.append(crop.shape[:2]) or [] for crop in crops]})()
    image = np.zeros((1536, 2048, 3), np.uint8)
    CardReader._tiled(tiler, image, factor)
    side = int(2048 / factor * (1 + TILE_OVERLAP))
    assert seen and all(shape == (min(side, 1536), side) for shape in seen)
    for length in (1536, 2048):
        origins = _tile_starts(length, side)
        assert origins[0] == 0 and origins[-1] + side >= length
        assert all(b - a <= side for a, b in zip(origins, origins[1:]))  # no gap between neighbours


def test_a_tile_factor_outside_two_to_six_is_refused():
    from vision.reader import CardReader

    with pytest.raises(ValueError, match="tile_factor 1: choose 2 to 6 tiles per side"):
        CardReader(tile_factor=1)
    with pytest.raises(ValueError, match="tile_factor 7: choose 2 to 6 tiles per side"):
        CardReader(tile_factor=7)


def test_only_large_photos_with_small_or_mid_sized_indices_are_tiled():
    """Tiles enlarge indices up to 2.5x: a 24 px index (at DETECT_SIZE) becomes 60 px, the top of the
    detector's training range, so mid-sized indices are tiled too; larger ones and small photos are not."""
    from vision.reader import DETECT_SIZE, MAX_TILE_FACTOR, SMALL_INDEX_PX, TILE_OVERLAP, wants_tiles

    assert SMALL_INDEX_PX * MAX_TILE_FACTOR / (1 + TILE_OVERLAP) <= 60
    assert wants_tiles(2048, 8.0, True)
    assert wants_tiles(2048, 20.0, True)      # mid-sized: tiled since the threshold went from 12 to 24
    assert not wants_tiles(2048, 30.0, True)
    assert wants_tiles(2048, 0.0, False)      # nothing found: look closer
    assert not wants_tiles(int(DETECT_SIZE * 1.5), 8.0, True)   # tiles would hold no more detail
    assert wants_tiles(640, 20.0, True)


def test_the_tiles_find_turned_and_dark_indices_the_whole_photo_pass_misses(reader):
    # a 2048 px scene (synth_hr_val, a tuning scene, seed 7) whose indices are mid-sized (~20 px at
    # DETECT_SIZE): the whole-photo pass alone found none of these four cards' corners
    reading = reader.read((PHOTOS / "synthetic_hr_vs7_0000069.jpg").read_bytes())
    assert {"2D", "6H", "QD", "4C"} <= set(reading.codes), reading.to_json()


def test_the_fine_tiles_find_far_away_dark_cards_the_3_by_3_tiles_miss():
    # a 2048 px tuning scene (synth_hr_val, seed 7): a dark-faced J of spades and 4 of diamonds lie
    # far from the camera, indices ~20 px tall in the photo, ~4 px at DETECT_SIZE
    from vision.reader import reader_with

    data = (PHOTOS / "synthetic_hr_vs7_0000109.jpg").read_bytes()
    assert sorted(reader_with(fine_tiles=True).read(data).codes) == ["4D", "JS"]
    assert reader_with(fine_tiles=False).read(data).codes == []


def test_fine_tiles_per_side_follow_the_photo_size():
    """The fine pass only for photos with room for more than 3 x 3 tiles DETECT_SIZE across (not 640 px ones)."""
    from vision.reader import DETECT_SIZE, MAX_FORCED_TILE_FACTOR, MAX_TILE_FACTOR, TILE_OVERLAP, fine_tile_factor_for

    assert fine_tile_factor_for(640) is None      # the real photos and 640 px scenes never take it
    assert fine_tile_factor_for(1386) is None     # 4 tiles would be under DETECT_SIZE across
    assert fine_tile_factor_for(1387) == 4
    assert fine_tile_factor_for(2048) == 5        # every phone photo, decoded at 2048 px
    assert fine_tile_factor_for(4032) == MAX_FORCED_TILE_FACTOR
    for side in range(300, 5000, 37):
        factor = fine_tile_factor_for(side)
        if factor is not None:
            assert MAX_TILE_FACTOR < factor <= MAX_FORCED_TILE_FACTOR
            assert side / factor * (1 + TILE_OVERLAP) >= DETECT_SIZE


def test_only_tiny_or_no_indices_take_the_fine_pass():
    from vision.reader import DETECT_SIZE, FINE_TILE_INDEX_PX, wants_fine_tiles

    to_photo = 2048 / DETECT_SIZE
    tiny = (FINE_TILE_INDEX_PX - 2) * to_photo
    small = (FINE_TILE_INDEX_PX + 2) * to_photo
    assert wants_fine_tiles([], 2048)                                           # nothing read at all
    assert wants_fine_tiles([_read_corner("JUNK", small)], 2048)                # only junk
    assert wants_fine_tiles([_read_corner("7H", tiny), _read_corner("KS", tiny)], 2048)
    assert not wants_fine_tiles([_read_corner("7H", small), _read_corner("KS", small)], 2048)
    assert not wants_fine_tiles([_read_corner("7H", tiny), _read_corner("KS", small),
                                 _read_corner("2C", small)], 2048)             # the median decides


def test_fine_tile_corners_need_a_sure_reading_and_a_new_place(reader, monkeypatch):
    """Corners of the fine pass that overlap a corner already read, or read unsurely, are dropped."""
    import vision.reader as R
    from vision.detector import Corner

    image = np.full((2048, 2048, 3), 128, np.uint8)
    old = _read_corner("7H", 40.0)
    same = Corner(old.box, 0.9)
    new_sure, new_unsure = Corner((500.0, 500.0, 524.0, 540.0), 0.9), Corner((900.0, 900.0, 924.0, 940.0), 0.9)
    asked_near = []
    monkeypatch.setattr(R.CardReader, "_tiled", lambda self, img, factor, near=None: asked_near.append(near) or [
        same, new_sure, new_unsure])
    monkeypatch.setattr(R, "refine_corners", lambda detector, img, corners: corners)
    read_as = {new_sure.box: ("KS", R.FINE_TILE_MIN_PROB), new_unsure.box: ("QD", R.FINE_TILE_MIN_PROB - 0.01)}
    classified = []
    monkeypatch.setattr(R.CardReader, "classify", lambda self, img, corners: classified.append(corners) or [
        R.ReadCorner(c.box, *read_as[c.box]) for c in corners])
    kept = reader._fine_corners(image, 5, [old])
    assert classified == [[new_sure, new_unsure]]       # the corner already read is not read again
    assert asked_near == [[old.box]]                     # only the tiles around what was proposed before
    assert [(c.code, c.box) for c in kept] == [("KS", new_sure.box)]


def test_fine_tiles_are_detected_only_where_the_passes_before_proposed_something():
    """``_tiled(near=...)`` runs the detector on the tiles holding one of those boxes' centres only."""
    from vision.reader import CardReader, tile_windows

    shapes = []
    tiler = CardReader.__new__(CardReader)
    tiler.detector = type("Recorder", (), {"detect_many": lambda self, crops, size: [
        shapes.append(crop.shape[:2]) or [] for crop in crops]})()
    image = np.zeros((2048, 2048, 3), np.uint8)
    tile, origins = tile_windows(2048, 2048, 5)
    assert len(origins) == 25
    assert CardReader._tiled(tiler, image, 5, near=[]) == [] and shapes == []      # nothing proposed: no tile
    CardReader._tiled(tiler, image, 5, near=[(10.0, 10.0, 30.0, 40.0)])             # a corner in the top-left
    assert len(shapes) == 1
    shapes.clear()
    x = origins[1][0] + 5.0                                                        # in two tiles' overlap
    CardReader._tiled(tiler, image, 5, near=[(x, 10.0, x + 4.0, 16.0)])
    assert len(shapes) == 2
    shapes.clear()
    CardReader._tiled(tiler, image, 5)                                             # no filter: every tile
    assert len(shapes) == 25


def test_only_the_tiles_near_a_whole_photo_proposal_are_detected():
    """One faint proposal in a corner of the photo: the tiles holding it are detected, not the empty table."""
    import threading

    from vision.detector import Corner
    from vision.reader import CardReader

    tiles = []
    tiler = CardReader.__new__(CardReader)
    tiler._lock, tiler.refine, tiler.tile_factor = threading.Lock(), False, None
    whole = []  # what the whole-photo pass proposes
    tiler.detector = type("Fake", (), {
        "detect": lambda self, image, size: list(whole),
        "detect_many": lambda self, crops, size: [tiles.append(crop.shape) or [] for crop in crops]})()
    photo = np.zeros((2048, 2048, 3), np.uint8)
    whole.append(Corner((40.0, 40.0, 60.0, 70.0), 0.06))   # a 6 px index at DETECT_SIZE: small, so tiled
    tiler.find_corners(photo)
    assert len(tiles) == 1                                 # of 3 x 3
    tiles.clear()
    whole.clear()                                          # nothing proposed: every tile is looked at
    tiler.find_corners(photo)
    assert len(tiles) == 9


def test_tiles_per_side_follow_the_photo_size():
    """Tiles never shrink under the detector's input side, and stay within 2 to MAX_TILE_FACTOR per side."""
    from vision.reader import DETECT_SIZE, MAX_TILE_FACTOR, TILE_OVERLAP, tile_factor_for

    assert tile_factor_for(640) == 2          # the real photos and 640 px scenes: 2 x 2, as before
    assert tile_factor_for(1039) == 2
    assert tile_factor_for(1040) == 3         # 1040 / 3 * 1.2 = 416: a tile is just DETECT_SIZE across
    assert tile_factor_for(2048) == 3
    assert tile_factor_for(4032) == MAX_TILE_FACTOR == 3
    for side in range(300, 5000, 37):
        factor = tile_factor_for(side)
        assert 2 <= factor <= MAX_TILE_FACTOR
        assert factor == 2 or side / factor * (1 + TILE_OVERLAP) >= DETECT_SIZE


def test_reader_with_a_tile_factor_forces_it(reader, monkeypatch):
    import vision.reader as R
    from vision.reader import get_reader, reader_with

    assert reader_with().tile_factor is None  # the shipped reader picks per photo
    forced = reader_with(tile_factor=4)
    assert forced is not get_reader() and forced.tile_factor == 4
    factors = []
    monkeypatch.setattr(R.CardReader, "_tiled", lambda self, image, factor, near=None: factors.append(factor) or [])
    photo = np.full((2048, 1536, 3), 128, np.uint8)  # blank: nothing found, so it tiles
    forced.find_corners(photo)
    get_reader().find_corners(photo)
    assert factors == [4, 3]


def test_a_batch_of_tiles_finds_what_each_tile_finds_alone(reader):
    """The batched run (one call for a photo's tiles) gives the single runs' corners, photos of two shapes mixed."""
    image = cv2.imread(str(PHOTOS / "synthetic_hr_ts4242_0000109.jpg"))
    tiles = [image[:900, :900], image[700:1600, 600:1500], image[:500, :700], image[1100:, 1100:]]
    batched = reader.detector.detect_many(tiles, 416)
    alone = [reader.detector.detect(t, 416) for t in tiles]
    assert sum(map(len, alone)) >= 10
    for got, want in zip(batched, alone):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.box == pytest.approx(w.box, abs=0.05) and g.score == pytest.approx(w.score, abs=1e-4)
