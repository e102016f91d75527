"""The synthetic scene generator: labels on the drawn indices, hidden corners unlabelled, determinism, coverage."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.classes import CARD_OUTLINE_CLASS, CODE_TO_CLASS, LABEL_NAMES, OPTIONAL_CODES
from vision.synth import faces as facemod
from vision.synth.procedural import ProceduralDecks
from vision.synth.scene import (SceneGenerator, card_homography, color_look, deck_color_transform, deck_name,
                                index_visibility, index_visible_part)

cv2.setNumThreads(1)

HAVE_ART = (facemod.DEFAULT_CARDART / "knoll" / "AS.png").exists()


@pytest.fixture(scope="module")
def gen():
    art = facemod.load_art_decks(decks=("knoll", "saulspatz-vertical4")) if HAVE_ART else {}
    return SceneGenerator(seed=11, imgsz=320, art_decks=art)


def _ink_fraction(crop: np.ndarray, paper: np.ndarray) -> float:
    d = np.abs(crop.astype(np.int16) - paper.astype(np.int16)).max(2)
    return float((d > 60).mean())


def _boxes_px(labels, S):
    out = []
    for c, x, y, w, h in labels:
        out.append((c, (x - w / 2) * S, (y - h / 2) * S, (x + w / 2) * S, (y + h / 2) * S))
    return out


def _faces_to_check(gen):
    fs = [gen.optional[c] for c in OPTIONAL_CODES]
    fs += [gen.procedural.face(k, code) for k in (0, 1, 2, 3) for code in ("10H", "QS", "AD", "7C")]
    for deck in gen.art.values():
        fs += [deck[c] for c in ("10D", "KC", "AS") if c in deck]
    return fs


def test_index_outlines_cover_ink_in_the_corners(gen):
    """On each face the index outline sits in its corner and holds the index ink."""
    for f in _faces_to_check(gen):
        img = f.levels[0]
        fw, fh = f.size
        paper = img[fh // 2, max(3, int(fw * 0.012)), :3]
        assert len(f.polys) == 2, f.code
        for k, p in enumerate(f.polys):
            x0, y0 = np.floor(p.min(0)).astype(int)
            x1, y1 = np.ceil(p.max(0)).astype(int)
            cx, cy = (x0 + x1) / 2 / fw, (y0 + y1) / 2 / fh
            if k == 0:
                assert cx < 0.25 and cy < 0.25, (f.deck, f.code, cx, cy)
            else:
                assert cx > 0.75 and cy > 0.75, (f.deck, f.code, cx, cy)
            assert 0.03 < (y1 - y0) / fh < 0.45, (f.deck, f.code)
            frac = _ink_fraction(img[y0:y1, x0:x1, :3], paper)
            assert frac > 0.12, (f.deck, f.code, frac)


def test_label_boxes_fall_on_the_drawn_indices(gen):
    """Render a card alone, crop its labelled boxes: both hold ink and look alike when one is turned 180 degrees."""
    S = gen.imgsz
    bg = np.array([60, 110, 60], np.uint8)
    for f in _faces_to_check(gen)[::2]:
        H = card_homography(f, S / 2, S / 2, 0.8 * S, theta=0.3)
        img, labels, _ = gen.compose([(f, H)], background=tuple(int(v) for v in bg))
        boxes = _boxes_px(labels, S)
        idx = [b for b in boxes if b[0] == CODE_TO_CLASS[f.code]]
        outline = [b for b in boxes if b[0] == CARD_OUTLINE_CLASS]
        assert len(idx) == 2 and len(outline) == 1, (f.deck, f.code, labels)
        # the index box lies inside the card box
        _, ox0, oy0, ox1, oy1 = outline[0]
        crops = []
        for _, x0, y0, x1, y1 in idx:
            assert ox0 - 1 <= x0 and x1 <= ox1 + 1 and oy0 - 1 <= y0 and y1 <= oy1 + 1
            crop = img[int(y0):int(math.ceil(y1)), int(x0):int(math.ceil(x1))]
            fw, fh = f.size
            paper = f.levels[0][fh // 2, max(3, int(fw * 0.012)), :3]
            assert _ink_fraction(crop, paper) > 0.05, (f.deck, f.code)
            crops.append(cv2.resize(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (24, 32)).astype(np.float32))
        # the two corners carry the same index (one rotated by 180 degrees)
        a, b = crops
        b = b[::-1, ::-1]
        corr = np.corrcoef(a.ravel(), b.ravel())[0, 1]
        assert corr > 0.5, (f.deck, f.code, corr)


def test_hidden_corner_is_not_labelled(gen):
    """A card laid over another card's bottom-right corner hides that index: no label for it."""
    S = gen.imgsz
    a = gen.optional["COUNT7"]
    b = gen.optional["NOMELD2"]
    ha = card_homography(a, 130, 140, 180)
    # b sits lower right, covering a's bottom-right corner fully but not its top-left
    hb = card_homography(b, 200, 230, 180)
    img, labels, owner = gen.compose([(a, ha), (b, hb)])
    cls = [c for c, *_ in labels]
    assert cls.count(CODE_TO_CLASS["COUNT7"]) == 1  # only the top-left index of a
    assert cls.count(CODE_TO_CLASS["NOMELD2"]) == 2
    assert cls.count(CARD_OUTLINE_CLASS) == 2
    # the remaining COUNT7 label is the top-left one
    (_, x, y, w, h), = [l for l in labels if l[0] == CODE_TO_CLASS["COUNT7"]]
    assert x * S < 130 and y * S < 140
    # put b underneath instead: both of a's corners are labelled again
    _, labels2, _ = gen.compose([(b, hb), (a, ha)])
    assert [c for c, *_ in labels2].count(CODE_TO_CLASS["COUNT7"]) == 2


def test_visibility_rule_threshold():
    """>= 60% of the index area visible and >= 6 px tall is labelled; less is not."""
    owner = np.zeros((100, 100), np.int16)
    poly = np.float32([[0, 0], [20, 0], [20, 20], [0, 20]])
    H = np.array([[1, 0, 40], [0, 1, 40], [0, 0, 1.0]])
    assert index_visibility(poly, H, owner, 0) is not None
    owner[40:60, 40:48] = 1  # 40% hidden
    assert index_visibility(poly, H, owner, 0) is not None
    owner[40:60, 40:50] = 1  # 50% hidden
    assert index_visibility(poly, H, owner, 0) is None
    owner[:] = 0
    small = np.float32([[0, 0], [5, 0], [5, 5], [0, 5]])
    assert index_visibility(small, H, owner, 0) is None  # too small
    # half outside the image
    Hout = np.array([[1, 0, -10], [0, 1, 40], [0, 0, 1.0]])
    assert index_visibility(poly, Hout, owner, 0) is None
    Hin = np.array([[1, 0, -5], [0, 1, 40], [0, 0, 1.0]])
    box = index_visibility(poly, Hin, owner, 0)
    assert box is not None and box[0] == 0.0  # clipped to the image


def test_the_share_in_sight_is_reported_with_the_box():
    owner = np.zeros((100, 100), np.int16)
    poly = np.float32([[0, 0], [20, 0], [20, 20], [0, 20]])
    H = np.array([[1, 0, 40], [0, 1, 40], [0, 0, 1.0]])
    owner[40:60, 40:46] = 1  # 30% under another card
    box, share = index_visible_part(poly, H, owner, 0)
    assert box is not None and share == pytest.approx(0.7, abs=0.05)  # of the rasterised outline
    owner[40:60, 40:50] = 1  # 50%: not labelled, but the share is still told
    box, share = index_visible_part(poly, H, owner, 0)
    assert box is None and share == pytest.approx(0.5, abs=0.05)


def test_seed_reproduces_the_same_bytes(gen):
    from vision.synth.cli import encode

    a = encode(gen, 5)
    fresh = SceneGenerator(seed=11, imgsz=320, art_decks=gen.art)
    # a different order of work (other images first) must not change image 5
    encode(fresh, 9)
    b = encode(fresh, 5)
    assert a == b
    assert encode(gen, 6)[0] != a[0]


def test_every_class_appears_over_a_modest_batch(gen):
    seen = set()
    n_labels = 0
    for i in range(160):
        _, labels, _ = gen.generate(i, effects=False)
        for c, x, y, w, h in labels:
            assert 0 <= x - w / 2 + 1e-6 and x + w / 2 <= 1 + 1e-6
            assert 0 <= y - h / 2 + 1e-6 and y + h / 2 <= 1 + 1e-6
            if c != CARD_OUTLINE_CLASS:
                assert h * gen.imgsz >= 6 - 1e-6
        seen.update(c for c, *_ in labels)
        n_labels += len(labels)
    missing = [LABEL_NAMES[c] for c in range(len(LABEL_NAMES)) if c not in seen]
    assert not missing, missing
    assert n_labels > 160 * 5


def test_cli_writes_a_dataset(tmp_path, monkeypatch, gen):
    from vision.synth import cli

    monkeypatch.setattr(cli, "make_generator", lambda *a, **k: gen)
    assert cli.main(["--out", str(tmp_path), "--count", "3", "--seed", "11", "--imgsz", "320"]) == 0
    imgs = sorted((tmp_path / "images").glob("*.jpg"))
    labs = sorted((tmp_path / "labels").glob("*.txt"))
    assert len(imgs) == 3 and len(labs) == 3
    text = (tmp_path / "data.yaml").read_text()
    assert "nc: 63" in text and "'CARD'" in text and "'COUNT12'" in text
    from vision.synth.contact import contact_sheet

    sheet = contact_sheet(tmp_path, n=3, tile=160)
    # visibility.jsonl: one line per image, one entry per labelled index, each at least 60 % in sight
    from vision.yolo_data import read_visibility

    vis = read_visibility(tmp_path)
    assert sorted(vis) == [p.stem for p in imgs]
    for lab in labs:
        indices = [row for row in lab.read_text().splitlines() if int(row.split()[0]) != CARD_OUTLINE_CLASS]
        assert len(vis[lab.stem]) == len(indices)
        assert all(0.6 <= ix["fraction"] <= 1.0 and ix["card"] in LABEL_NAMES for ix in vis[lab.stem])
        assert all(ix["look"] in LOOKS and ix["deck"] for ix in vis[lab.stem])
    # and the cards in the scene that no label names, as their indices are mostly covered
    from vision.yolo_data import read_hidden

    hidden = read_hidden(tmp_path)
    assert sorted(hidden) == sorted(vis)
    for stem, cards in hidden.items():
        labelled = {ix["card_index"] for ix in vis[stem]}
        assert all(0.0 < h["fraction"] < 0.6 and h["card_index"] not in labelled for h in cards)
    # extending the dataset (--start) keeps the lines of the images already there
    assert cli.main(["--out", str(tmp_path), "--count", "1", "--start", "3", "--seed", "11", "--imgsz", "320"]) == 0
    assert sorted(read_visibility(tmp_path)) == sorted(vis) + ["s11_0000003"]
    assert read_hidden(tmp_path).items() >= hidden.items()
    assert sheet.shape[0] >= 160


LOOKS = {"plain", "tinted", "permuted", "grey", "dark"}


def test_every_deck_colour_transform_is_named_by_what_it_does():
    rng = np.random.default_rng(3)
    looks = [color_look(deck_color_transform(rng)) for _ in range(400)]
    assert set(looks) == LOOKS
    assert looks.count("plain") > 200  # 58 % untouched, plus the permutations that change nothing
    swap = np.hstack([np.eye(3)[[2, 1, 0]], np.zeros((3, 1))])
    assert color_look(None) == "plain" and color_look(swap) == "permuted"
    assert color_look(np.hstack([np.eye(3), np.zeros((3, 1))])) == "plain"
    assert color_look(np.hstack([np.diag([0.9, 0.95, 1.0]), np.zeros((3, 1))])) == "tinted"
    assert color_look(np.hstack([-np.eye(3), np.full((3, 1), 250.0)])) == "dark"
    assert color_look(np.hstack([np.tile([[0.114, 0.587, 0.299]], (3, 1)), np.zeros((3, 1))])) == "grey"


def test_a_face_is_named_by_its_deck():
    face = facemod.Face("7H", "knoll", [], [], "art")
    assert deck_name(face) == "knoll"
    assert deck_name(facemod.Face("7H", "proc12", [], [], "procedural")) == "procedural"
    assert deck_name(facemod.Face("COUNT3", "optional-cut", [], [], "optional")) == "optional"


def test_procedural_styles_are_seeded():
    a = ProceduralDecks(3).face(17, "QH").levels[0]
    b = ProceduralDecks(3).face(17, "QH").levels[0]
    assert np.array_equal(a, b)


def test_cards_whose_indices_are_all_mostly_covered_are_recorded_as_hidden(gen):
    """A card in the scene with no labelled index, but part of one in sight, is listed (not labelled)."""
    seen = 0
    for i in range(40):
        _, labels, info = gen.generate(i)
        labelled = {ix["card_index"] for ix in info["indices"]}
        for h in info["hidden"]:
            assert 0.0 < h["fraction"] < 0.6 and h["card_index"] not in labelled and h["card"] in LABEL_NAMES
        seen += len(info["hidden"])
    assert seen > 0  # cascades and fans cover some cards' indices on most tables
