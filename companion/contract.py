"""The JSON boundary shared by the command line and the web app.

Anything arriving here may be arbitrary JSON typed by a person or sent by a
script, so every field is checked and every failure is a ``RummyError`` whose
message names the field and what was expected -- never a TypeError, KeyError
or crash.

Score JSON (one hand)::

    {"hand": [...], "count": int,
     "melds": [{"kind": "group"|"sequence"|"count", "cards": [...]}],
     "unmelded": [...], "can_go_out": bool}

Cards are canonical text; ``hand`` is sorted in deck order; a sequence's
cards run from its low end, WILDs at the places they fill; ``can_go_out``
uses the standard rule.

Round JSON in::

    {"players": [{"name": str, "hand": [cards], "dropped": bool}],
     "end": {"type": "declare"|"go_out"|"four_sevens"|"no_draw"|"tie",
             "player": name},
     "variations": {"gin": bool, "declare_bonus": bool,
                    "going_out": "standard"|"major"|"minor",
                    "four_sevens": bool}}

(``dropped`` and ``variations`` and each variation may be left out: false /
standard; ``end.player`` may be left out or null for a tie.)  Result out::

    {"winner": name|null, "legal": bool, "reason": str,
     "standings": [{"name", "seat", "dropped", "hand", "count",
                    "comparison", "melds", "unmelded"}],
     "tie_break": str|null}
"""

from __future__ import annotations

from .cards import MAX_CARDS, Card, parse_card
from .errors import CardParseError, RoundSpecError
from .judge import (END_TYPES, MAX_PLAYERS, MIN_PLAYERS, Ending, Outcome, Player, Variations,
                    judge_round)
from .solver import Arrangement, best_arrangement, can_go_out

#: Longest player name accepted.
MAX_NAME = 60
_VARIATION_FLAGS = ("gin", "declare_bonus", "four_sevens")
_GOING_OUT = ("standard", "major", "minor")


def _type_name(value) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _cards(value, where: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise RoundSpecError(f"{where} must be a list of card texts, not {_type_name(value)}")
    if len(value) > MAX_CARDS:
        raise RoundSpecError(f"{where} has {len(value)} cards, but the whole deck has only "
                             f"{MAX_CARDS}")
    out = []
    for i, token in enumerate(value):
        if isinstance(token, Card):
            out.append(token)
            continue
        if not isinstance(token, str):
            raise RoundSpecError(f"{where}[{i}] must be card text like \"10H\", "
                                 f"not {_type_name(token)}")
        try:
            out.append(parse_card(token))
        except CardParseError as e:
            raise CardParseError(token, f"{e.why} (at {where}[{i}])") from None
    return tuple(out)


def arrangement_json(arr: Arrangement) -> dict:
    return {"melds": [m.to_json() for m in arr.melds],
            "unmelded": [str(c) for c in arr.unmelded]}


def score_payload(cards) -> dict:
    """Score JSON for one hand given as a list of card texts."""
    hand = _cards(cards, "hand")
    arr = best_arrangement(hand)      # also rejects impossible duplicates
    return {"hand": [str(c) for c in sorted(hand)],
            "count": arr.count,
            **arrangement_json(arr),
            "can_go_out": can_go_out(hand)}


def _object(value, where: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()):
    if not isinstance(value, dict):
        raise RoundSpecError(f"{where} must be an object, not {_type_name(value)}")
    for key in value:
        if key not in allowed:
            shown = key if isinstance(key, str) and len(key) <= 30 else str(key)[:27] + "..."
            raise RoundSpecError(f"{where} has an unknown field {shown!r} "
                                 f"(expected {', '.join(allowed)})")
    for key in required:
        if key not in value:
            raise RoundSpecError(f"{where} is missing the field {key!r}")
    return value


def _bool(value, where: str) -> bool:
    if not isinstance(value, bool):
        raise RoundSpecError(f"{where} must be true or false, not {_type_name(value)}")
    return value


def parse_round(obj) -> tuple[tuple[Player, ...], Ending, Variations]:
    """Check a round JSON object field by field and build the judge's inputs."""
    obj = _object(obj, "the round", ("players", "end", "variations"), ("players", "end"))
    players_raw = obj["players"]
    if not isinstance(players_raw, list):
        raise RoundSpecError(f"players must be a list, not {_type_name(players_raw)}")
    if not MIN_PLAYERS <= len(players_raw) <= MAX_PLAYERS:
        raise RoundSpecError(f"players: Declaration Rummy is for {MIN_PLAYERS} to "
                             f"{MAX_PLAYERS} players, not {len(players_raw)}")
    players = []
    for i, raw in enumerate(players_raw):
        where = f"players[{i}]"
        raw = _object(raw, where, ("name", "hand", "dropped"), ("name", "hand"))
        name = raw["name"]
        if not isinstance(name, str) or not name.strip():
            raise RoundSpecError(f"{where}.name must be non-empty text")
        if len(name) > MAX_NAME:
            raise RoundSpecError(f"{where}.name is longer than {MAX_NAME} characters")
        hand = _cards(raw["hand"], f"{where}.hand")
        dropped = _bool(raw.get("dropped", False), f"{where}.dropped")
        players.append(Player(name, hand, dropped))
    names = [p.name for p in players]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise RoundSpecError(f"players[{i}].name {n!r} is used twice; names must differ")

    end = _object(obj["end"], "end", ("type", "player"), ("type",))
    kind = end["type"]
    if not isinstance(kind, str) or kind not in END_TYPES:
        shown = kind if isinstance(kind, str) and len(kind) <= 30 else _type_name(kind)
        raise RoundSpecError(f"end.type must be one of {', '.join(END_TYPES)}, not {shown!r}")
    who = end.get("player")
    if who is not None and not isinstance(who, str):
        raise RoundSpecError(f"end.player must be a player's name, not {_type_name(who)}")
    if who is None and kind != "tie":
        raise RoundSpecError(f"end.player is missing: say who ended the game ({kind})")
    if who is not None and who not in names:
        shown = who if len(who) <= MAX_NAME else who[:MAX_NAME - 3] + "..."
        raise RoundSpecError(f"end.player {shown!r} is not one of the players "
                             f"({', '.join(names)})")

    var = _object(obj.get("variations", {}), "variations",
                  _VARIATION_FLAGS[:2] + ("going_out",) + _VARIATION_FLAGS[2:])
    flags = {k: _bool(var.get(k, False), f"variations.{k}") for k in _VARIATION_FLAGS}
    going_out = var.get("going_out", "standard")
    if not isinstance(going_out, str) or going_out not in _GOING_OUT:
        shown = repr(going_out[:30]) if isinstance(going_out, str) else _type_name(going_out)
        raise RoundSpecError(f"variations.going_out must be one of {', '.join(_GOING_OUT)}, "
                             f"not {shown}")
    return tuple(players), Ending(kind, who), Variations(going_out=going_out, **flags)


def outcome_json(outcome: Outcome) -> dict:
    standings = []
    for s in outcome.standings:
        entry = {"name": s.name, "seat": s.seat, "dropped": s.dropped,
                 "hand": [str(c) for c in sorted(s.hand)],
                 "count": s.count, "comparison": s.comparison}
        if s.arrangement is not None:
            entry.update(arrangement_json(s.arrangement))
        else:
            entry.update({"melds": [], "unmelded": []})
        standings.append(entry)
    return {"winner": outcome.winner, "legal": outcome.legal, "reason": outcome.reason,
            "standings": standings, "tie_break": outcome.tie_break}


def round_payload(obj) -> dict:
    """Round JSON in, result JSON out."""
    players, ending, variations = parse_round(obj)
    return outcome_json(judge_round(players, ending, variations))
