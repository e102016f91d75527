"""Any text and any JSON shape: the engine answers or raises RummyError, never
anything else (hypothesis, short runs)."""
from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import HealthCheck, given, settings, strategies as st

from companion.cards import ALL_KINDS, FULL_DECK, Card, format_cards, parse_cards, parse_hand
from companion.contract import round_payload, score_payload
from companion.errors import RummyError

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])

card_like = st.sampled_from(
    [c.code for c in ALL_KINDS] + [c.name for c in ALL_KINDS] + [c.symbol for c in ALL_KINDS]
    + ["10h", "t♥", "Count 7", "NO MELD 2", "can't declare 0", "wildcard", "1H", "11S", "7X"])
any_text = st.text(max_size=40) | card_like | st.builds(" ".join, st.lists(card_like, max_size=8))
json_scalar = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
               | st.text(max_size=20) | card_like)
any_json = st.recursive(json_scalar, lambda inner: st.lists(inner, max_size=6)
                        | st.dictionaries(st.text(max_size=10) | st.sampled_from(
                            ["players", "end", "variations", "name", "hand", "dropped", "type",
                             "player", "gin", "going_out"]), inner, max_size=5), max_leaves=30)


@FAST
@given(any_text)
def test_card_parse_answers_or_says_why(text):
    try:
        card = Card.parse(text)
    except RummyError as exc:
        assert str(exc)
    else:
        assert Card.parse(str(card)) == card


@FAST
@given(st.lists(any_text | st.builds(Card, st.integers(0, len(ALL_KINDS) - 1)), max_size=12))
def test_parse_hand_answers_or_says_why(tokens):
    try:
        hand = parse_hand(tokens)
    except RummyError as exc:
        assert str(exc)
    else:
        assert parse_cards(format_cards(hand)) == hand


@FAST
@given(st.lists(st.sampled_from(FULL_DECK), max_size=20, unique_by=lambda c: c.index))
def test_round_trip_codes_and_symbols(cards):
    hand = tuple(cards)
    assert parse_cards(format_cards(hand)) == hand
    assert parse_hand([c.symbol for c in hand]) == hand


@FAST
@given(any_json)
def test_score_payload_any_json(obj):
    try:
        out = score_payload(obj)
    except RummyError as exc:
        assert str(exc)
    else:
        json.dumps(out)


@FAST
@given(any_json | st.fixed_dictionaries(
    {"players": st.lists(st.fixed_dictionaries({"name": st.text(max_size=8), "hand": any_json}),
                         max_size=4),
     "end": st.fixed_dictionaries({"type": st.sampled_from(["declare", "tie", "go_out", "x"]),
                                   "player": st.text(max_size=8) | st.none()})}))
def test_round_payload_any_json(obj):
    try:
        out = round_payload(obj)
    except RummyError as exc:
        assert str(exc)
    else:
        json.dumps(out)


def test_huge_inputs_are_refused_quickly():
    import time
    t = time.monotonic()
    ten_thousand = [c.code for c in FULL_DECK] * 157  # 10,048 cards
    for call in (lambda: score_payload(ten_thousand),
                 lambda: parse_cards(" ".join(ten_thousand)),
                 lambda: parse_hand(ten_thousand),
                 lambda: round_payload({"players": [{"name": "Ann", "hand": ten_thousand},
                                                    {"name": "Bob", "hand": []}],
                                        "end": {"type": "tie"}}),
                 lambda: round_payload({"players": [{"name": str(i), "hand": []}
                                                    for i in range(10_000)],
                                        "end": {"type": "tie"}}),
                 lambda: round_payload({"players": [{"name": "é" * 10_000, "hand": []}] * 2,
                                        "end": {"type": "tie"}})):
        try:
            call()
        except RummyError as exc:
            assert str(exc)
        else:
            raise AssertionError("a huge input was accepted")
    assert time.monotonic() - t < 5


# --- the command line's batch modes (a real subprocess, few examples) -----------------

_line_text = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
                                            blacklist_characters="\x85"), max_size=60)


def _run(mode: str, lines: list[str]) -> list[dict]:
    text = "".join(line + "\n" for line in lines)
    res = subprocess.run([sys.executable, "-m", "companion", mode, "--batch"], input=text,
                         capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(out) == len(lines)  # output line i answers input line i
    return out


@FEW
@given(st.lists(_line_text | st.builds(" ".join, st.lists(card_like, max_size=10)),
                min_size=1, max_size=25))
def test_score_batch_any_lines(lines):
    for line, answer in zip(lines, _run("score", lines)):
        assert ("error" in answer and answer["error"]) or "count" in answer, (line, answer)


@FEW
@given(st.lists(any_json.map(lambda o: json.dumps(o, ensure_ascii=False)) | _line_text,
                min_size=1, max_size=25))
def test_round_batch_any_lines(lines):
    lines = [ln for ln in lines if "\n" not in ln and "\r" not in ln] or ["{}"]
    for line, answer in zip(lines, _run("round", lines)):
        assert ("error" in answer and answer["error"]) or "winner" in answer, (line, answer)


def test_batch_huge_and_nested_lines():
    huge_hand = " ".join(["AH"] * 10_000)
    nested = "[" * 100_000 + "]" * 100_000
    out = _run("score", [huge_hand, "7H 8H 9H", "ü" * 5000])
    assert "error" in out[0] and out[1]["count"] == 0 and "error" in out[2]
    out = _run("round", [nested, json.dumps({"players": [], "end": {}}), "\u202e{}"])
    assert all("error" in o for o in out)
