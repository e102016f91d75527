"""The rules page states every reading of INTERPRETATION.md, and its examples
say what the engine actually does."""
from __future__ import annotations

import html
import re

import pytest

from companion.web import rules_content


@pytest.fixture(scope="module")
def rules_text(tmp_path_factory) -> str:
    from companion.web import create_app
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path_factory.mktemp("rules"))})
    page = app.test_client().get("/rules").get_data(as_text=True)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


READINGS = [
    # cards and notation
    "52 regular", "12 optional", "T also means 10", "♤ ♧ ♢ ♡", "upper or lower case",
    "COUNT1 … COUNT12", "NOMELD0", "NOMELD2", "NODECLARE0", "WILDCARD",
    "never quietly merged", "fourth WILD",
    # counts
    "J 11, Q 12, K 13", "NO MELD 2 counts 2", "counts 0 when it is in a meld", "20 when it is left over",
    "lowest you can make",
    # melds
    "each card belongs to at most one meld", "WILD WILD WILD are groups", "more than four cards",
    "never wraps around", "at most 14 cards long", "even one that is somewhere else",
    "COUNT cards never meld with regular cards", "never meld.", "never combine",
    # ending
    "goes clockwise, to each player’s left", "not counted and cannot win",
    "may not declare while holding CAN'T DECLARE 0", "7 or less", "before any bonus",
    "lowered by 1", "−1", "names no winner", "at most one card (any card)",
    "one single meld", "every card but one", "two 3-card melds are not", "six-card run is fine",
    "natural 7s", "WILD does not count", "declines to draw from the discard pile",
    "tie game, which has no winner",
    # ties and match
    "furthest to the left of the first player", "first player loses every tie",
    "first player to win 2 games", "same player draws first again",
    # before play
    "2–3 players 2 to 10 cards", "4 players 2 to 7", "5–6 players 2 to 5", "7 players 2 or 3",
    "8–10 players exactly 2", "spades, then clubs, diamonds, hearts", "A is lowest",
    "dealer sits just to that player’s right",
]


@pytest.mark.parametrize("phrase", READINGS)
def test_rules_page_states_the_reading(rules_text, phrase):
    assert phrase in rules_text


def test_examples_agree_with_the_engine():
    for section in rules_content.render_sections():
        for ex in section["examples"]:
            assert "engine_error" not in ex, ex
            if ex["kind"] == "meld":
                assert ex["ok"] is ex["expected"], ex
            elif ex["kind"] == "round":
                assert ex["result"]["winner"] == ex["expected"], ex
            elif ex["kind"] == "count" and ex["expected"] is not None:
                assert ex["score"]["count"] == ex["expected"], ex


def test_extra_readings_are_shown_when_present(client):
    from pathlib import Path
    path = Path(rules_content.__file__).resolve().parents[1] / "READINGS.md"
    page = client.get("/rules").get_data(as_text=True)
    if path.exists():
        assert 'id="more"' in page
    else:
        assert 'id="more"' not in page


def test_simple_markdown_escapes():
    blocks = rules_content.simple_markdown("# T\n\n- a <b>`x`</b>\n\npara **bold**\n")
    assert blocks[0] == {"type": "h", "html": "T"}
    assert blocks[1]["items"] == ["a &lt;b&gt;<code>x</code>&lt;/b&gt;"]
    assert blocks[2]["html"] == "para <strong>bold</strong>"
