"""The web app's single doorway to the scoring engine (``companion.*``).

Views never import engine modules directly: if the engine's API moves, only
this file changes.  Everything here is pure (no Flask, no database).
"""
from __future__ import annotations

import itertools
from typing import Any, Iterable, Sequence

from companion.errors import RummyError  # noqa: F401  (re-exported for views)

OPTIONAL_KINDS = (
    "COUNT1", "COUNT2", "COUNT3", "COUNT4", "COUNT7", "COUNT12",
    "NOMELD0", "NOMELD2", "NODECLARE0", "WILD",
)
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "C", "D", "H")
REGULAR = tuple(f"{r}{s}" for s in SUITS for r in RANKS)
ALL_CODES = REGULAR + OPTIONAL_KINDS
END_TYPES = ("declare", "go_out", "four_sevens", "no_draw", "tie")


def parse_cards(cards: str | Iterable[Any]) -> list[str]:
    """Canonical codes for card text (``"10h ks wild"``) or a list of card strings.

    Raises the engine's ``CardParseError`` with a user-facing message.  Does
    not reject duplicates (the caller flags them across hands).
    """
    from companion.cards import MAX_CARDS, parse_card, split_tokens
    from companion.errors import DuplicateCardError

    tokens = split_tokens(cards) if isinstance(cards, str) else list(cards)
    if len(tokens) > MAX_CARDS:
        raise DuplicateCardError(None, f"{len(tokens)} cards: the whole deck has only {MAX_CARDS}")
    return [parse_card(t).code for t in tokens]


def score(codes: Sequence[str]) -> dict:
    """The engine's score JSON for one hand."""
    try:
        from companion.contract import score_payload
    except ImportError:  # interim, until companion.contract lands
        return _interim_score(codes)
    return score_payload(list(codes))


def _interim_score(codes):
    from companion.cards import parse_hand
    from companion.solver import best_arrangement, can_go_out

    hand = parse_hand(codes)
    arr = best_arrangement(hand)
    return {"hand": [c.code for c in hand], "count": arr.count,
            "melds": [m.to_json() for m in arr.melds],
            "unmelded": [c.code for c in arr.unmelded], "can_go_out": can_go_out(hand)}


def round_result(round_json: dict) -> dict:
    try:
        from companion.contract import round_payload
    except ImportError:  # interim until companion.contract lands (declare/no_draw/tie only)
        return _interim_round(round_json)
    return round_payload(round_json)


def _interim_round(rj: dict) -> dict:
    players = [p for p in rj["players"]]
    standings = []
    for p in players:
        if p.get("dropped"):
            standings.append({"name": p["name"], "dropped": True})
            continue
        sc = score(p["hand"])
        standings.append({"name": p["name"], "count": sc["count"], "compared": sc["count"]})
    end = rj["end"]
    if end["type"] == "tie":
        return {"winner": None, "legal": True, "reason": "tie game", "standings": standings,
                "tie_break": None}
    live = [s for s in standings if not s.get("dropped")]
    low = min(s["compared"] for s in live)
    tied = [s["name"] for s in live if s["compared"] == low]
    winner = tied[-1]
    return {"winner": winner, "legal": True, "reason": f"lowest count {low}",
            "standings": standings,
            "tie_break": {"tied": tied, "winner": winner} if len(tied) > 1 else None}


def explain_meld(codes: Sequence[str]) -> tuple[bool, str]:
    from companion.cards import Card
    from companion.melds import explain_meld as _explain

    ok, reason = _explain([Card.parse(c) for c in codes])
    return bool(ok), str(reason or "")


def validate_deal(players: int, cards: int) -> None:
    """Raise the engine's error when ``cards`` is not allowed for ``players``."""
    try:
        from companion import preliminary
    except ImportError:  # interim until companion.preliminary lands
        from companion.errors import DealError
        allowed = {2: (2, 10), 3: (2, 10), 4: (2, 7), 5: (2, 5), 6: (2, 5), 7: (2, 3),
                   8: (2, 2), 9: (2, 2), 10: (2, 2)}
        if players not in allowed:
            raise DealError(f"Declaration Rummy is for 2 to 10 players, not {players}.")
        lo, hi = allowed[players]
        if not lo <= cards <= hi:
            raise DealError(f"{players} players may be dealt {lo} to {hi} cards each, not {cards}.")
        return
    preliminary.validate_deal(players, cards)


def meld_choices(codes: Sequence[str], limit: int = 40) -> dict:
    """Every meld the hand can make, and the count each choice leaves.

    For each meld M: the best count of the whole hand when M is one of the
    melds.  Also the "near misses" (three or more cards that look like a meld
    -- same rank or same suit -- but are not), with the engine's reason.
    """
    codes = list(codes)
    n = len(codes)
    if n > 12:
        return {"melds": [], "near": [], "truncated": True}
    seen: set[tuple[str, ...]] = set()
    melds, near = [], []
    for size in range(3, n + 1):
        for idx in itertools.combinations(range(n), size):
            sub = tuple(sorted(codes[i] for i in idx))
            if sub in seen:
                continue
            seen.add(sub)
            subset = [codes[i] for i in idx]
            ok, reason = explain_meld(subset)
            rest = [codes[i] for i in range(n) if i not in idx]
            if ok:
                left = score(rest)["count"] if rest else 0
                melds.append({"cards": subset, "reason": reason, "leaves": left, "rest": rest})
            elif size <= 4 and _looks_like_meld(subset):
                near.append({"cards": subset, "reason": reason})
    melds.sort(key=lambda m: (m["leaves"], -len(m["cards"])))
    return {
        "melds": melds[:limit],
        "near": near[:12],
        "truncated": len(melds) > limit,
    }


def _looks_like_meld(codes: Sequence[str]) -> bool:
    regular = [c for c in codes if c in REGULAR]
    if len(regular) != len(codes):
        return True  # optional cards mixed in: worth explaining
    ranks = {c[:-1] for c in regular}
    suits = {c[-1] for c in regular}
    return len(ranks) == 1 or len(suits) == 1


# --- match -------------------------------------------------------------------

def match_state(n_players: int, first_player: int, winners: Sequence[int | None]) -> dict:
    """Who drew first in each game, the wins, the match winner, who draws first next.

    ``winners``: per finished game in order, the winning seat or None (tie
    game / no winner).  Delegates to ``companion.match``.
    """
    try:
        from companion import match  # noqa: F401
    except ImportError:
        pass
    # interim until companion.match lands
    wins = [0] * n_players
    first = first_player
    winner = None
    why = None
    for w in winners:
        if w is not None:
            wins[w] += 1
            first = w
            why = "the last game's winner"
            if wins[w] >= 2 and winner is None:
                winner = w
        else:
            why = "same as last game: it had no winner"
    return {"wins": wins, "winner": winner, "next_first": first, "why": why}


# --- first dealer --------------------------------------------------------------

_RANK_ORDER = {r: i for i, r in enumerate(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                          "J", "Q", "K"))}
_SUIT_ORDER = {"H": 0, "D": 1, "C": 2, "S": 3}


def first_dealer_outcome(players: Sequence[str], dealer: int, deal: dict[int, list[str]],
                         seating: bool) -> dict:
    """Who deals first from the preliminary face-up deal.

    ``deal``: seat -> the face-up cards that player was dealt, in order (optional
    cards, then one regular card).  Returns ``{"dealer": name, "regular": [(name,
    code)], "explanation": str, "seating": [names] | None}``.
    """
    try:
        from companion import preliminary
    except ImportError:
        preliminary = None
    if preliminary is not None and hasattr(preliminary, "web_outcome"):
        return preliminary.web_outcome(players, dealer, deal, seating)
    from companion.errors import DealError
    regular = []
    for seat, name in enumerate(players):
        cards = deal.get(seat) or []
        regs = [c for c in cards if c in REGULAR]
        if not regs:
            raise DealError(f"{name} needs a regular card: keep dealing {name} face-up cards "
                            "until one of the 52 regular cards turns up.")
        if len(regs) > 1 or cards[-1] not in REGULAR:
            raise DealError(f"{name}'s face-up cards stop at the first regular card "
                            f"({regs[0]}); remove the cards after it.")
        regular.append((name, regs[0]))
    key = lambda nc: (_RANK_ORDER[nc[1][:-1]], _SUIT_ORDER[nc[1][-1]])  # noqa: E731
    best = max(regular, key=key)
    ranked = sorted(regular, key=key, reverse=True)
    expl = ("Highest regular card first: " + ", ".join(f"{n} {c}" for n, c in ranked)
            + f". {best[0]} deals.")
    return {"dealer": best[0], "regular": regular, "explanation": expl, "seating": None}
