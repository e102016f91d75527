"""The rules page's text, in the project's own words, one section per reading
of INTERPRETATION.md.  Examples are card lists; the page asks the engine
about each one (is it a meld? what does it count?), so what the page shows
is what the companion actually does, and a test checks each claim.
"""
from __future__ import annotations

import html
import re

from . import engine

def _going_out(hand: list[str], rule: str) -> dict:
    return {"players": [{"name": "Ann", "hand": hand, "dropped": False},
                        {"name": "Bob", "hand": ["AS", "2S"], "dropped": False}],
            "end": {"type": "go_out", "player": "Ann"},
            "variations": {"going_out": rule}}


# An example: (kind, cards, caption, expected)
#   kind "meld":  expected = True/False  (the engine's explain_meld must agree)
#   kind "count": expected = the hand's count
#   kind "cards": just drawn
#   kind "round": cards = round JSON; expected = the winner's name (None: no winner)
SECTIONS: list[dict] = [
    {"id": "cards", "title": "The cards and how to write them", "points": [
        "One deck of 64 cards: the 52 regular playing cards and 12 optional cards.",
        "Write a regular card as rank then suit: ranks A 2 3 4 5 6 7 8 9 10 J Q K (T also means 10), "
        "suits S C D H or the symbols ♠ ♣ ♦ ♥ (♤ ♧ ♢ ♡ too), in upper or lower case: 10H, qs, T♦, A♠.",
        "The optional cards: COUNT 1, 2, 3, 4, 7 and 12 (COUNT1 … COUNT12), NO MELD 0 (NOMELD0), "
        "NO MELD 2 (NOMELD2), CAN'T DECLARE 0 (NODECLARE0) and three WILDCARDs (WILD). "
        "The printed names work too: COUNT 7, NO MELD 2, CAN'T DECLARE 0, WILDCARD.",
        "Every card except WILD exists once. A card seen twice in one game — in two hands, or twice "
        "in one photo — is reported as a mistake to fix, never quietly merged; so is a fourth WILD.",
    ], "examples": [
        ("cards", ["AS", "10H", "QD", "KC"], "Regular cards: red hearts and diamonds, black spades and clubs.", None),
        ("cards", ["COUNT1", "COUNT2", "COUNT3", "COUNT4", "COUNT7", "COUNT12"], "The six COUNT cards.", None),
        ("cards", ["NOMELD0", "NOMELD2", "NODECLARE0", "WILD"], "NO MELD 0, NO MELD 2, CAN'T DECLARE 0 and a WILDCARD.", None),
    ]},
    {"id": "counts", "title": "Counting unmelded cards", "points": [
        "A counts 1, 2 to 10 their number, J 11, Q 12, K 13.",
        "COUNT n counts n. NO MELD 0 counts 0, NO MELD 2 counts 2, CAN'T DECLARE 0 counts 0.",
        "A WILD counts 0 when it is in a meld (a meld always has at least two other cards) and 20 when it is left over.",
        "Your count is the lowest you can make: the companion tries every way of splitting your hand into separate melds and keeps the best.",
    ], "examples": [
        ("count", ["2H", "3H", "4H", "4C", "4D"],
         "The rule sheet’s example: melding 2♥ 3♥ 4♥ leaves 4♣ 4♦ (count 8), but melding "
         "4♥ 4♣ 4♦ leaves 2♥ 3♥: count 5, the lowest, so 5 it is.", 5),
        ("count", ["7S", "7C", "WILD", "KD"], "The WILD melds with the two 7s (counts 0); the K counts 13.", 13),
        ("count", ["WILD", "5H", "KS"], "A WILD that cannot meld counts 20.", 38),
    ]},
    {"id": "melds", "title": "Melds", "points": [
        "A meld is 3 or more cards; each card belongs to at most one meld.",
        "A group is regular cards of one rank plus any number of WILDs: 7 7 WILD, 7 WILD WILD WILD, 7 7 7 7 WILD and even WILD WILD WILD are groups. A group may hold more than four cards.",
        "A sequence is regular cards of one suit in consecutive ranks plus any number of WILDs filling gaps or extending the ends.",
        "The ace is low (A 2 3) or high (Q K A), but a sequence never wraps around: K A 2 is not a sequence. Positions run A (low) = 1 up to K = 13 and A (high) = 14, one card per position, so a sequence is at most 14 cards long.",
        "A WILD may stand for any regular card, even one that is somewhere else — in your hand or someone else’s.",
        "A COUNT group is COUNT cards (any of the six) plus any number of WILDs, 3 or more cards in all. COUNT cards never meld with regular cards.",
        "NO MELD 0, NO MELD 2 and CAN'T DECLARE 0 never meld.",
        "Groups and sequences never combine into one meld: 5♥ 6♥ 7♥ with 7♣ 7♦ is a sequence or a group, not one meld.",
    ], "examples": [
        ("meld", ["7H", "7S", "WILD"], "7 7 WILD", True),
        ("meld", ["7H", "WILD", "WILD", "WILD"], "7 WILD WILD WILD", True),
        ("meld", ["7H", "7S", "7C", "7D", "WILD"], "Five cards of one rank (with a WILD)", True),
        ("meld", ["WILD", "WILD", "WILD"], "Three WILDs", True),
        ("meld", ["5H", "6H", "7H"], "A sequence", True),
        ("meld", ["5H", "WILD", "7H", "8H"], "A WILD fills the gap", True),
        ("meld", ["AH", "2H", "3H"], "Ace low", True),
        ("meld", ["QD", "KD", "AD"], "Ace high", True),
        ("meld", ["KH", "AH", "2H"], "K A 2 wraps around: not a sequence", False),
        ("meld", ["5H", "5C", "WILD"], "Uses a WILD as a third 5, even though the other 5s exist", True),
        ("meld", ["COUNT1", "COUNT7", "COUNT12"], "A COUNT group", True),
        ("meld", ["COUNT4", "WILD", "WILD"], "COUNT cards with WILDs", True),
        ("meld", ["COUNT7", "7H", "7S"], "COUNT cards never meld with regular cards", False),
        ("meld", ["NOMELD0", "WILD", "WILD"], "NO MELD cards never meld", False),
        ("meld", ["5H", "6H", "7H", "7C", "7D"], "A sequence and a group cannot combine", False),
    ]},
    {"id": "ending", "title": "Ending a game and who wins", "points": [
        "Turn order starts with the player who drew first — the dealer’s left, or in a match the last game’s winner — and goes clockwise, to each player’s left.",
        "Players who dropped out are out: they are not counted and cannot win.",
        "Declaring: right after drawing (so holding the drawn card or cards too), a player lays down their hand. Everyone’s count is worked out and the lowest count wins.",
        "You may not declare while holding CAN'T DECLARE 0.",
        "Gin Rummy variation: you may declare only with a count of 7 or less (your real count, before any bonus).",
        "Declare Bonus variation: the declarer’s count is lowered by 1 when counts are compared (it can become −1).",
        "An illegal declaration is reported as illegal, with the reason, and names no winner.",
        "Going out: after drawing, if your cards can be arranged so that at most one card (any card) is left unmelded, you win outright, whatever the others hold.",
        "Going Out Major variation: the whole hand must form one single meld.",
        "Going Out Minor variation: one meld holding every card, or every card but one. With six cards, a 5-card meld plus one card is fine, two 3-card melds are not; a six-card run is fine.",
        "Four 7’s variation: laying down all four natural 7s wins outright (a WILD does not count as a 7).",
        "Stockpile exhausted: the game ends when a player in turn declines to draw from the discard pile (then the lowest count wins, ties as below), or declares, or goes out — or when everyone agrees on a tie game, which has no winner.",
    ], "examples": [
        ("round", _going_out(["2H", "3H", "4H", "5H", "6H", "9C"], "standard"),
         "Going out with five cards melded and one left over.", "Ann"),
        ("round", _going_out(["2H", "3H", "4H", "5H", "6H", "9C"], "major"),
         "The same hand under Going Out Major: not one single meld.", None),
        ("round", _going_out(["2H", "3H", "4H", "8S", "8C", "8D"], "minor"),
         "Two 3-card melds under Going Out Minor: not allowed.", None),
        ("round", _going_out(["2H", "3H", "4H", "5H", "6H", "7H"], "minor"),
         "A six-card run under Going Out Minor: one meld, fine.", "Ann"),
    ]},
    {"id": "ties", "title": "Ties", "points": [
        "When two or more players share the lowest count, the one sitting furthest to the left of the first player wins — that is, the tied player latest in turn order.",
        "So the first player loses every tie.",
        "The result page draws the table when there is a tie: seats clockwise, who drew first, the turn order, and the winner.",
    ], "examples": [
        ("round", {"players": [
            {"name": "Bob", "hand": ["5H", "6H", "7H", "5C"], "dropped": False},
            {"name": "Cat", "hand": ["KS", "QD", "JC"], "dropped": False},
            {"name": "Ann", "hand": ["AS", "2D", "2C"], "dropped": False}],
          "end": {"type": "declare", "player": "Bob"}, "variations": {}},
         "Bob drew first and declared with a count of 5; Ann also has 5. Turn order is Bob, Cat, "
         "Ann, so Ann sits furthest to Bob’s left and wins the tie.", "Ann"),
    ]},
    {"id": "match", "title": "A match", "points": [
        "A match is won by the first player to win 2 games.",
        "The winner of a game draws first in the next game; after a tie game the same player draws first again.",
        "Cards dealt, optional cards and variations may change before each game.",
    ], "examples": []},
    {"id": "before", "title": "Before play", "points": [
        "Cards dealt to each player: 2–3 players 2 to 10 cards; 4 players 2 to 7; 5–6 players 2 to 5; 7 players 2 or 3; 8–10 players exactly 2. Other choices are not allowed.",
        "First dealer: each player is dealt face-up cards until a regular card turns up; the highest regular card deals. K is highest, then Q, J, 10 … 2, and A is lowest; equal ranks are broken by suit: spades, then clubs, diamonds, hearts.",
        "Seating variation: the player with the lowest card chooses a seat first and the dealer sits just to that player’s right; then the next lowest chooses, and so on.",
    ], "examples": [
        ("cards", ["KH", "QS"], "K beats Q, whatever the suits.", None),
        ("cards", ["9S", "9C", "9D", "9H"], "Equal ranks: spades beat clubs beat diamonds beat hearts.", None),
        ("cards", ["WILD", "COUNT7", "AH"], "Optional cards are dealt past until a regular card turns up: this player’s card is A♥, the lowest.", None),
    ]},
]

def render_sections() -> list[dict]:
    """Sections with each example checked by the engine."""
    out = []
    for sec in SECTIONS:
        examples = []
        for kind, codes, caption, expected in sec["examples"]:
            ex = {"kind": kind, "cards": codes, "caption": caption, "expected": expected}
            try:
                if kind == "meld":
                    ok, reason = engine.explain_meld(codes)
                    ex.update(ok=ok, reason=reason)
                elif kind == "count":
                    ex["score"] = engine.score(codes)
                elif kind == "round":
                    rj = {**codes, "variations": {"gin": False, "declare_bonus": False,
                                                  "going_out": "standard", "four_sevens": False,
                                                  **codes.get("variations", {})}}
                    ex["round"] = rj
                    ex["result"] = engine.round_result(rj)
            except Exception as exc:  # engine not ready: still show the cards
                ex["engine_error"] = str(exc)
            examples.append(ex)
        out.append({**sec, "examples": examples})
    return out


def simple_markdown(text: str) -> list[dict]:
    """Headings, bullet lists and paragraphs; everything escaped, `code` kept."""
    blocks: list[dict] = []
    para: list[str] = []

    def inline(s: str) -> str:
        s = html.escape(s)
        s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
        return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)

    def flush():
        if para:
            blocks.append({"type": "p", "html": inline(" ".join(para))})
            para.clear()

    for line in text.splitlines():
        s = line.rstrip()
        if not s.strip():
            flush()
            continue
        m = re.match(r"^(#{1,4})\s+(.*)", s)
        if m:
            flush()
            blocks.append({"type": "h", "html": inline(m.group(2))})
            continue
        m = re.match(r"^\s*[-*]\s+(.*)", s)
        if m:
            flush()
            if not blocks or blocks[-1]["type"] != "ul":
                blocks.append({"type": "ul", "items": []})
            blocks[-1]["items"].append(inline(m.group(1)))
            continue
        if blocks and blocks[-1]["type"] == "ul" and line.startswith("  ") and not para:
            blocks[-1]["items"][-1] += " " + inline(s.strip())
            continue
        para.append(s.strip())
    flush()
    return blocks
