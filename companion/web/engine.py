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
    from companion.contract import score_payload

    return score_payload(list(codes))


def round_result(round_json: dict) -> dict:
    """The engine's result JSON: winner, legal, reason, standings, tie_break."""
    from companion.contract import round_payload

    return round_payload(round_json)


def explain_meld(codes: Sequence[str]) -> tuple[bool, str]:
    from companion.cards import Card
    from companion.melds import explain_meld as _explain

    ok, reason = _explain([Card.parse(c) for c in codes])
    return bool(ok), str(reason or "")


def validate_deal(players: int, cards: int) -> None:
    """Raise the engine's error when ``cards`` is not allowed for ``players``."""
    from companion import preliminary

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
    """Who draws first next, the wins per seat and the match winner.

    ``winners``: per finished game in order, the winning seat or None (tie
    game / no winner).  Replays ``companion.match.match_state`` over seats;
    games stored after the match was already won (possible after correcting
    an earlier game) are reported in ``after_match`` rather than raising.
    """
    from companion import match

    winners = list(winners)
    used = []
    for w in winners:
        used.append(w)
        st = match.match_state(range(n_players), first_player, used)
        if st.over:
            break
    st = match.match_state(range(n_players), first_player, used)
    wins = dict(st.wins)
    last = used[-1] if used else None
    if not used:
        why = "the dealer's left"
    elif last is None:
        why = "same as last game, which had no winner"
    else:
        why = "the last game's winner"
    return {"wins": [wins[i] for i in range(n_players)], "winner": st.winner,
            "next_first": st.next_first if st.next_first is not None else st.firsts[-1],
            "firsts": list(st.firsts), "why": why, "after_match": len(winners) - len(used)}


# --- first dealer --------------------------------------------------------------

def first_dealer_outcome(players: Sequence[str], dealer: int, deal: dict[int, list[str]],
                         seating: bool) -> dict:
    """Who deals first from the preliminary face-up deal (``preliminary.web_outcome``):
    ``{"dealer": name, "regular": [(name, code)], "explanation": str,
    "seating": [names in the order they choose seats] | None}``."""
    from companion import preliminary

    return preliminary.web_outcome(players, dealer, deal, seating)
