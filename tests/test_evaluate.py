"""The evaluation command's yardstick (vision.evaluate).

Scripted: truth counts WILDs from the labelled card outlines, falls back to
pairing WILD corners when there are none, and honours a sidecar; and an end
to end run of ``evaluate`` on a small dataset made of the committed fixtures
scores the shipped reader exactly, then counts one false positive and one
false negative when a label is changed to a card that is not there.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vision.classes import LABEL_NAMES
from vision.evaluate import evaluate, truth_for

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
HAVE_MODELS = (ROOT / "models" / "corner_detector.onnx").exists()
NAMES = list(LABEL_NAMES)


def _row(code, x, y, w=0.03, h=0.04):
    return f"{NAMES.index(code)} {x} {y} {w} {h}\n"


def test_wilds_are_counted_from_card_outlines(tmp_path):
    # two WILD cards in a tight cascade: only their top corners show, side by side
    label = tmp_path / "a.txt"
    label.write_text(_row("WILD", 0.10, 0.10) + _row("CARD", 0.2, 0.2, 0.2, 0.3)
                     + _row("WILD", 0.13, 0.10) + _row("CARD", 0.23, 0.2, 0.2, 0.3)
                     + _row("7H", 0.5, 0.5) + _row("7H", 0.6, 0.7) + _row("CARD", 0.55, 0.6, 0.2, 0.3))
    assert truth_for(label, NAMES, 1000, 1000) == {"WILD": 2, "7H": 1}


def test_without_outlines_wild_corners_are_paired(tmp_path):
    label = tmp_path / "a.txt"
    label.write_text(_row("WILD", 0.10, 0.10) + _row("WILD", 0.16, 0.19)   # one card's two ends
                     + _row("WILD", 0.70, 0.10) + _row("KS", 0.4, 0.4))
    assert truth_for(label, NAMES, 1000, 1000) == {"WILD": 2, "KS": 1}


def test_a_sidecar_overrides_the_labels(tmp_path):
    label = tmp_path / "a.txt"
    label.write_text(_row("WILD", 0.10, 0.10))
    label.with_suffix(".json").write_text(json.dumps({"cards": ["WILD", "WILD", "QC"]}))
    assert truth_for(label, NAMES, 1000, 1000) == {"WILD": 2, "QC": 1}


@pytest.fixture()
def dataset(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    for label in sorted((FIXTURES / "labels").glob("synthetic_ts4242_*.txt")):
        shutil.copy(FIXTURES / "photos" / f"{label.stem}.jpg", tmp_path / "images")
        shutil.copy(label, tmp_path / "labels")
    names = ", ".join(f"'{n}'" for n in NAMES)
    (tmp_path / "data.yaml").write_text(f"path: {tmp_path}\ntrain: images\nnames: [{names}]\n")
    return tmp_path


@pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")
def test_evaluate_scores_the_fixtures_and_counts_a_wrong_label(dataset):
    expected = json.loads((FIXTURES / "photos" / "expected.json").read_text())
    n_cards = sum(len(expected[p.name]["cards"]) for p in (dataset / "images").iterdir())
    r = evaluate(dataset / "data.yaml", "train")
    assert (r["images"], r["tp"], r["fp"], r["fn"], r["f1"], r["exact_photos"]) == (4, n_cards, 0, 0, 1.0, 1.0)

    # relabel one card as a card that is not in the photo: the reader's read is now extra, the label missed
    label = dataset / "labels" / "synthetic_ts4242_0000026.txt"
    in_fixtures = {c for p in (dataset / "images").iterdir() for c in expected[p.name]["cards"]}
    absent = next(c for c in NAMES if c not in in_fixtures)
    old, new = NAMES.index("5C"), NAMES.index(absent)
    label.write_text("".join(f"{new}{line[len(str(old)):]}" if line.split()[0] == str(old) else line
                             for line in label.read_text().splitlines(keepends=True)))
    r = evaluate(dataset / "data.yaml", "train", show_errors=5)
    assert (r["tp"], r["fp"], r["fn"], r["exact_photos"]) == (n_cards - 1, 1, 1, 0.75)
    assert r["per_class"][absent] == {"precision": 0.0, "recall": 0.0, "support": 1}  # never read
    assert r["per_class"]["5C"]["precision"] < 1.0
    assert r["errors"] == [f"synthetic_ts4242_0000026.jpg: missed ['{absent}'] extra ['5C']"]


@pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing")
def test_candidate_weights_are_scored_in_place_of_the_shipped_ones(dataset, tmp_path):
    from vision.reader import CLASSIFIER_PATH, DETECTOR_PATH

    candidate = tmp_path / "candidate.onnx"
    shutil.copyfile(DETECTOR_PATH, candidate)
    r = evaluate(dataset / "data.yaml", "train", detector=candidate, classifier=CLASSIFIER_PATH)
    assert (r["fp"], r["fn"], r["f1"]) == (0, 0, 1.0)
    candidate.write_bytes(b"not a model")  # the candidate file is what gets loaded
    with pytest.raises(Exception, match="(?i)protobuf|parse|invalid|load"):
        evaluate(dataset / "data.yaml", "train", detector=candidate)


def test_eval_names_a_missing_candidate_file(capsys, tmp_path):
    from vision.evaluate import main

    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "data.yaml"), "--detector", str(tmp_path / "nope.onnx")])
    assert exit_.value.code == 2
    assert f"--detector {tmp_path / 'nope.onnx'}: no such file" in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [("1", "tile_factor 1: choose 2 to 6 tiles per side"),
                                           ("7", "tile_factor 7: choose 2 to 6 tiles per side"),
                                           ("three", "'three' is not a whole number of tiles per side")])
def test_eval_refuses_a_bad_tile_factor(capsys, tmp_path, text, message):
    from vision.evaluate import main

    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "data.yaml"), "--tile-factor", text])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
