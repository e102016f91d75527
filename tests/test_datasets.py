"""The tracked dataset configs in datasets/: the recipe loads, held-out sets stay held out, the real split holds."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision import recipe
from vision.realphotos import SHARED_REAL, split_names

DATASETS = Path(__file__).resolve().parents[1] / "datasets"


def test_recipe_loads_with_the_seeds_of_the_shipped_models():
    assert recipe.SYNTH_SETS["synth_test"] == (4242, 300, "t", 640)
    assert recipe.SYNTH_SETS["synth_hr_test"] == (4242, 300, "t", 2048)
    assert set(recipe.HELD_OUT) == {"synth_test", "synth_hr_test"}
    assert not set(recipe.HELD_OUT) & set(recipe.TRAIN_SETS + recipe.DETECTOR_VIEWS)
    assert recipe.CLASSIFIER_SETS == ("synth_hr_c", "synth_hr_d", "synth_hr_e", "synth_hr_f", "synth_g")
    assert not set(recipe.HELD_OUT) & set(recipe.CLASSIFIER_SETS)


def _load_edited(tmp_path, edit):
    """Load a copy of the tracked recipe after ``edit(cfg)`` changed it."""
    cfg = json.loads(recipe.RECIPE_FILE.read_text())
    edit(cfg)
    bad = tmp_path / "recipe.json"
    bad.write_text(json.dumps(cfg))
    return recipe.load_recipe(bad)


@pytest.mark.parametrize("held_out, trained, seed", [("synth_test", "synth_a", 100),       # a detector training set
                                                     ("synth_hr_test", "synth_hr_d", 500)])  # a classifier set
def test_a_held_out_set_sharing_a_trained_set_seed_is_refused(tmp_path, held_out, trained, seed):
    def share_seed(cfg):
        cfg["synthetic_sets"][held_out]["seed"] = cfg["synthetic_sets"][trained]["seed"]
    with pytest.raises(ValueError, match=f"held-out set '{held_out}' shares seed {seed}"):
        _load_edited(tmp_path, share_seed)


def test_the_tuning_sets_are_named_and_never_trained_on():
    assert recipe.TUNING_SETS == ("synth_val", "synth_hr_val", "synth_hr_tune")
    assert recipe.SYNTH_SETS["synth_hr_tune"] == (77, 300, "u", 2048)
    judged = set(recipe.TUNING_SETS) | set(recipe.HELD_OUT)
    trained = set(recipe.TRAIN_SETS + recipe.CLASSIFIER_SETS)
    assert not judged & trained
    assert not {recipe.SYNTH_SETS[n][0] for n in recipe.TUNING_SETS} & {recipe.SYNTH_SETS[n][0] for n in trained}


def test_a_tuning_set_sharing_a_trained_set_seed_is_refused(tmp_path):
    def share_seed(cfg):
        cfg["synthetic_sets"]["synth_hr_tune"]["seed"] = cfg["synthetic_sets"]["synth_hr_e"]["seed"]
    with pytest.raises(ValueError, match="tuning set 'synth_hr_tune' shares seed 600"):
        _load_edited(tmp_path, share_seed)


def test_a_tuning_set_sharing_a_held_out_set_seed_is_refused(tmp_path):
    def share_seed(cfg):
        cfg["synthetic_sets"]["synth_hr_tune"]["seed"] = cfg["synthetic_sets"]["synth_hr_test"]["seed"]
    with pytest.raises(ValueError, match="tuning set 'synth_hr_tune' shares seed 4242 with a held-out set"):
        _load_edited(tmp_path, share_seed)


def test_a_recipe_without_a_tuning_list_takes_its_val_sets(tmp_path):
    def drop_list(cfg):
        del cfg["tuning_sets"]
    assert _load_edited(tmp_path, drop_list)["tuning_sets"] == ["synth_val", "synth_hr_val"]


def test_an_unknown_set_name_is_refused(tmp_path):
    with pytest.raises(ValueError, match="'synth_z' is not in synthetic_sets"):
        _load_edited(tmp_path, lambda cfg: cfg["train_sets"].append("synth_z"))


def _listed_val_stems() -> list[str]:
    lines = (DATASETS / "realphotos-val.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_the_validation_list_is_sorted_and_holds_90_distinct_photos():
    stems = _listed_val_stems()
    assert len(stems) == 90 and stems == sorted(stems) and len(set(stems)) == 90


@pytest.mark.skipif(not (SHARED_REAL / "images").is_dir(), reason="../shared/realphotos is not on this machine")
def test_the_split_rule_still_picks_the_listed_validation_photos():
    split = split_names()
    assert split["val"] == _listed_val_stems()
    assert not set(split["val"]) & set(split["train"])


def _fake_real(tmp_path, stem: str, rows: str) -> Path:
    root = tmp_path / "realphotos"
    (root / "labels").mkdir(parents=True)
    (root / "labels" / f"{stem}.txt").write_text(rows)
    return root


def test_the_shipped_amendments_are_valid():
    from vision.realphotos import AMENDMENTS, load_amendments

    doc = load_amendments(AMENDMENTS)
    assert doc["added"] and doc["recoded"]
    assert all(e["why"] for entries in doc["added"].values() for e in entries)


def test_amendments_add_and_recode_labels_unless_as_published(tmp_path):
    from vision.realphotos import REAL_NAMES, read_labels

    js, kd = REAL_NAMES.index("JS"), REAL_NAMES.index("KD")
    root = _fake_real(tmp_path, "IMG_1", f"{js} 0.5 0.5 0.1 0.1\n{kd} 0.2 0.2 0.1 0.1\n")
    fixes = tmp_path / "amend.json"
    fixes.write_text(json.dumps({"added": {"IMG_1": [{"card": "6S", "yolo": [0.9, 0.1, 0.1, 0.1], "why": "edge"}]},
                                 "recoded": {"IMG_1": {"from": "JS", "to": "JC", "why": "clubs"}}}))
    assert read_labels("IMG_1", root, amended=False, amendments=fixes) == [
        ("JS", 0.5, 0.5, 0.1, 0.1), ("KD", 0.2, 0.2, 0.1, 0.1)]
    assert read_labels("IMG_1", root, amendments=fixes) == [
        ("JC", 0.5, 0.5, 0.1, 0.1), ("KD", 0.2, 0.2, 0.1, 0.1), ("6S", 0.9, 0.1, 0.1, 0.1)]


@pytest.mark.parametrize("entry, message", [
    ({"added": {"IMG_1": [{"card": "6X", "yolo": [0.5, 0.5, 0.1, 0.1], "why": ""}]}}, "unknown card '6X'"),
    ({"added": {"IMG_1": [{"card": "6S", "yolo": [0.98, 0.5, 0.1, 0.1], "why": ""}]}}, "not inside the photo"),
    ({"recoded": {"IMG_1": {"from": "JS", "to": "J", "why": ""}}}, "unknown card 'J' in 'to'"),
])
def test_a_bad_amendment_is_refused_with_its_photo_named(tmp_path, entry, message):
    from vision.realphotos import load_amendments

    bad = tmp_path / "amend.json"
    bad.write_text(json.dumps(entry))
    with pytest.raises(ValueError, match=f"IMG_1: .*{message}"):
        load_amendments(bad)


@pytest.mark.skipif(not (SHARED_REAL / "images").is_dir(), reason="../shared/realphotos is not on this machine")
def test_every_amended_photo_exists():
    from vision.realphotos import AMENDMENTS, load_amendments

    doc = load_amendments(AMENDMENTS)
    for stem in list(doc["added"]) + list(doc["recoded"]):
        assert (SHARED_REAL / "images" / f"{stem}.jpg").is_file(), stem
