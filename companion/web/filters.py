"""Template helpers: how a card code is drawn (rank + suit symbol, colour, names)."""
from __future__ import annotations

import json

from flask import Flask

SUIT_SYMBOL = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
SUIT_NAME = {"S": "spades", "C": "clubs", "D": "diamonds", "H": "hearts"}
OPTIONAL_NAME = {
    "COUNT1": ("COUNT", "1"), "COUNT2": ("COUNT", "2"), "COUNT3": ("COUNT", "3"),
    "COUNT4": ("COUNT", "4"), "COUNT7": ("COUNT", "7"), "COUNT12": ("COUNT", "12"),
    "NOMELD0": ("NO MELD", "0"), "NOMELD2": ("NO MELD", "2"),
    "NODECLARE0": ("CAN'T DECLARE", "0"), "WILD": ("WILDCARD", ""),
}
RANK_NAME = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}


def card_info(code: str) -> dict:
    code = str(code)
    if code in OPTIONAL_NAME:
        name, value = OPTIONAL_NAME[code]
        return {
            "code": code, "optional": True, "name": name, "value": value,
            "color": "opt", "kind": code.rstrip("0123456789").lower(),
            "label": f"{name} {value}".strip(),
        }
    rank, suit = code[:-1], code[-1:]
    if suit in SUIT_SYMBOL:
        return {
            "code": code, "optional": False, "rank": rank, "suit": suit,
            "symbol": SUIT_SYMBOL[suit], "color": "red" if suit in "DH" else "black",
            "label": f"{RANK_NAME.get(rank, rank)} of {SUIT_NAME[suit]}",
        }
    return {"code": code, "optional": True, "name": code, "value": "", "color": "opt",
            "kind": "unknown", "label": code}


def tojson_attr(value) -> str:
    """JSON for a data-* attribute (Jinja escapes it as an attribute value)."""
    return json.dumps(value, separators=(",", ":"))


def init_app(app: Flask) -> None:
    app.jinja_env.globals["card_info"] = card_info
    app.jinja_env.filters["tojson_attr"] = tojson_attr
    app.jinja_env.globals["SUIT_SYMBOL"] = SUIT_SYMBOL
