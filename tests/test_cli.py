"""The command line contract (run as a subprocess) and the JSON boundary."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.contract import round_payload, score_payload
from companion.errors import CardParseError, DuplicateCardError, RoundSpecError, RummyError

ROOT = Path(__file__).resolve().parents[1]


def run(*args, stdin=""):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "companion", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)


ROUND = {"players": [{"name": "Ann", "hand": ["2H", "3H", "4H", "4C", "4D"], "dropped": False},
                     {"name": "Bob", "hand": ["KS", "KC", "KD", "5S"], "dropped": False},
                     {"name": "Cy", "hand": ["QS"], "dropped": True}],
         "end": {"type": "declare", "player": "Bob"},
         "variations": {"gin": False, "declare_bonus": False, "going_out": "standard",
                        "four_sevens": False}}


def test_score_json_exact():
    r = run("score", "--json", "2H", "3H", "4H", "4C", "4D")
    assert r.returncode == 0 and r.stderr == ""
    assert json.loads(r.stdout) == {
        "hand": ["4C", "4D", "2H", "3H", "4H"], "count": 5,
        "melds": [{"kind": "group", "cards": ["4C", "4D", "4H"]}],
        "unmelded": ["2H", "3H"], "can_go_out": False}


def test_score_for_people_and_printed_names():
    r = run("score", "COUNT", "7", "CAN'T", "DECLARE", "0", "5H", "6H", "WILD")
    assert r.returncode == 0
    assert "Count: 7" in r.stdout and "sequence 5H 6H WILD" in r.stdout


def test_score_bad_card_exits_2_with_message():
    r = run("score", "1H")
    assert r.returncode == 2 and r.stdout == ""
    assert "'1H' is not a card" in r.stderr


def test_score_batch_keeps_going_after_bad_lines():
    r = run("score", "--batch", stdin="2H 3H 4H\nZZ 5H\n\n5H 5H\nWILD WILD WILD\n")
    assert r.returncode == 0
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(lines) == 5
    assert lines[0]["count"] == 0 and lines[0]["can_go_out"] is True
    assert "ZZ" in lines[1]["error"]
    assert lines[2] == {"hand": [], "count": 0, "melds": [], "unmelded": [], "can_go_out": True}
    assert "twice" in lines[3]["error"]
    assert lines[4]["melds"] == [{"kind": "group", "cards": ["WILD", "WILD", "WILD"]}]


def test_round_file_json_and_text(tmp_path):
    f = tmp_path / "round.json"
    f.write_text(json.dumps(ROUND))
    r = run("round", "--json", str(f))
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert set(out) == {"winner", "legal", "reason", "standings", "tie_break"}
    assert out["winner"] == "Bob" and out["legal"] is True
    assert "Ann and Bob tied on 5" in out["tie_break"]
    assert out["standings"][0] == {
        "name": "Ann", "seat": 0, "dropped": False, "hand": ["4C", "4D", "2H", "3H", "4H"],
        "count": 5, "comparison": 5, "melds": [{"kind": "group", "cards": ["4C", "4D", "4H"]}],
        "unmelded": ["2H", "3H"]}
    assert out["standings"][2]["dropped"] is True and out["standings"][2]["count"] is None
    r = run("round", "-", stdin=json.dumps(ROUND))
    assert r.returncode == 0 and "Winner: Bob" in r.stdout and "Cy: dropped out" in r.stdout


def test_round_batch_error_lines_keep_going():
    good = json.dumps(ROUND)
    r = run("round", "--batch", stdin=f"{good}\n[1,2\n{{\"players\": 3}}\n\n{good}\n")
    assert r.returncode == 0
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(lines) == 5
    assert lines[0]["winner"] == "Bob" and lines[4]["winner"] == "Bob"
    assert "not valid JSON" in lines[1]["error"]
    assert "error" in lines[2] and "error" in lines[3]


def test_round_bad_input_exit_codes(tmp_path):
    assert run("round", str(tmp_path / "missing.json")).returncode == 2
    r = run("round", "-", stdin='{"players": []}')
    assert r.returncode == 2 and "error:" in r.stderr
    assert run("round").returncode == 2
    assert run("frobnicate").returncode == 2
    assert run().returncode == 2


def test_deeply_nested_json_is_an_error_line():
    r = run("round", "--batch", stdin="[" * 100000 + "\n")
    assert r.returncode == 0 and "error" in json.loads(r.stdout)


# -- the JSON boundary, in process --------------------------------------------
def test_score_payload():
    assert score_payload(["QS", "KS", "AS"])["count"] == 0
    with pytest.raises(RoundSpecError, match="list of card texts"):
        score_payload("QS KS AS")
    with pytest.raises(RoundSpecError, match=r"hand\[1\]"):
        score_payload(["QS", 5])
    with pytest.raises(RoundSpecError, match="only 64"):
        score_payload(["WILD"] * 65)
    with pytest.raises(DuplicateCardError):
        score_payload(["QS", "QS"])
    with pytest.raises(CardParseError, match=r"hand\[0\]"):
        score_payload(["Q?"])


def variant(**changes):
    obj = json.loads(json.dumps(ROUND))
    for path, value in changes.items():
        target = obj
        keys = path.split("__")
        for k in keys[:-1]:
            target = target[int(k)] if k.isdigit() else target[k]
        last = keys[-1]
        if value is KeyError:
            del target[int(last) if last.isdigit() else last]
        elif last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value
    return obj


@pytest.mark.parametrize("obj,message", [
    ([], "the round must be an object"),
    ({"players": [], "end": {}, "extra": 1}, "unknown field 'extra'"),
    (variant(end=KeyError), "missing the field 'end'"),
    (variant(players="Ann"), "players must be a list"),
    (variant(players=[]), "2 to 10 players, not 0"),
    (variant(players=[{"name": f"P{i}", "hand": []} for i in range(11)]), "not 11"),
    (variant(players__0=5), r"players\[0\] must be an object"),
    (variant(players__0__name=""), r"players\[0\].name must be non-empty"),
    (variant(players__0__name=7), r"players\[0\].name"),
    (variant(players__0__name="x" * 500), "longer than"),
    (variant(players__1__name="Ann"), "used twice"),
    (variant(players__0__hand="2H 3H"), r"players\[0\].hand must be a list"),
    (variant(players__0__hand=["2H"] * 100), "only 64"),
    (variant(players__0__hand=[None]), r"players\[0\].hand\[0\]"),
    (variant(players__0__hand=["2X"]), r"players\[0\].hand\[0\]"),
    (variant(players__0__dropped="no"), r"players\[0\].dropped must be true or false"),
    (variant(players__0__colour="red"), "unknown field 'colour'"),
    (variant(players__0__hand=KeyError), "missing the field 'hand'"),
    (variant(end="declare"), "end must be an object"),
    (variant(end__type="resign"), "end.type must be one of"),
    (variant(end__type=["declare"]), "end.type must be one of"),
    (variant(end__player="Zed"), "not one of the players"),
    (variant(end__player=3), "end.player must be a player's name"),
    (variant(end__player=KeyError), "end.player is missing"),
    (variant(variations=[]), "variations must be an object"),
    (variant(variations__gin=1), "variations.gin must be true or false"),
    (variant(variations__going_out="sideways"), "variations.going_out must be one of"),
    (variant(variations__going_out=None), "variations.going_out must be one of"),
    (variant(variations__wild=True), "unknown field 'wild'"),
    (variant(players__1__hand=["2H"]), "both Ann's and Bob's hands"),
])
def test_round_payload_refuses_bad_json_with_specific_messages(obj, message):
    with pytest.raises(RummyError, match=message):
        round_payload(obj)


def test_round_payload_defaults():
    obj = {"players": [{"name": "A", "hand": ["KS"]}, {"name": "B", "hand": ["QS"]}],
           "end": {"type": "tie"}}
    out = round_payload(obj)
    assert out["winner"] is None and out["legal"] is True and out["tie_break"] is None
    obj["end"] = {"type": "tie", "player": None}
    assert round_payload(obj)["winner"] is None


def test_round_payload_is_json_serialisable_for_every_end():
    for kind in ("declare", "go_out", "four_sevens", "no_draw", "tie"):
        out = round_payload(variant(end__type=kind))
        json.dumps(out)
        assert isinstance(out["reason"], str) and out["reason"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(["declare", "go_out", "tie", "Ann", "Bob", "2H", "WILD", "standard"]),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.sampled_from(["players", "end", "variations", "name", "hand",
                                       "dropped", "type", "player", "gin", "going_out",
                                       "x"]), inner, max_size=5),
    max_leaves=25)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_arbitrary_json_never_crashes(obj):
    for fn in (round_payload, score_payload):
        try:
            fn(obj)
        except RummyError:
            pass


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["2H", "3H", "4H", "KS", "WILD", "COUNT7", "NOMELD2"]),
                min_size=2, max_size=4),
       st.lists(st.sampled_from(["5D", "6D", "7D", "QC", "WILD", "COUNT1", "NODECLARE0"]),
                max_size=4),
       st.sampled_from(["declare", "go_out", "four_sevens", "no_draw", "tie"]),
       st.booleans(), st.booleans())
def test_random_rounds_follow_the_contract(hand_a, hand_b, kind, gin, bonus):
    obj = {"players": [{"name": "A", "hand": hand_a}, {"name": "B", "hand": hand_b}],
           "end": {"type": kind, "player": "B"},
           "variations": {"gin": gin, "declare_bonus": bonus}}
    try:
        out = round_payload(obj)
    except RummyError:
        return                          # e.g. a fourth WILD on the table
    assert set(out) == {"winner", "legal", "reason", "standings", "tie_break"}
    assert out["winner"] in (None, "A", "B")
    assert out["legal"] or out["winner"] is None
    json.dumps(out)


def test_serve_without_the_web_app_says_so(monkeypatch, capsys):
    import companion.__main__ as entry
    monkeypatch.setitem(sys.modules, "companion.web.server", None)   # import fails
    assert entry.main(["serve"]) == 2
    assert "web page is not available" in capsys.readouterr().err


def test_bench_usage_error():
    assert run("bench", "-n", "0").returncode == 2


@pytest.mark.parametrize("command", [["companion", "score", "--json", "2H", "3H", "4H"],
                                     ["vision", "detect", "tests/fixtures/photos/synthetic_ts4242_0000026.jpg"]])
def test_a_reader_that_goes_away_stops_the_command_quietly(command):
    """``python -m companion ... | head`` must not end in a BrokenPipeError traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before a byte is written: every write fails
    try:
        done = subprocess.run([sys.executable, "-m", *command], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    finally:
        os.close(write_end)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
