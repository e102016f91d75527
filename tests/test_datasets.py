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


def test_a_held_out_set_sharing_a_training_seed_is_refused(tmp_path):
    cfg = json.loads(recipe.RECIPE_FILE.read_text())
    cfg["synthetic_sets"]["synth_test"]["seed"] = cfg["synthetic_sets"]["synth_a"]["seed"]
    bad = tmp_path / "recipe.json"
    bad.write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match="held-out set 'synth_test' shares seed 100"):
        recipe.load_recipe(bad)


def test_an_unknown_set_name_is_refused(tmp_path):
    cfg = json.loads(recipe.RECIPE_FILE.read_text())
    cfg["train_sets"].append("synth_z")
    bad = tmp_path / "recipe.json"
    bad.write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match="'synth_z' is not in synthetic_sets"):
        recipe.load_recipe(bad)


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
