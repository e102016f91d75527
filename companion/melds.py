"""Melds: one group, sequence or COUNT group, validated and explained.

``check_meld`` answers "is this pile of cards a meld?" the way a patient
player would: when the answer is no, the :class:`MeldError` says why in words
a newcomer understands ("K A 2 wraps around: a sequence never wraps").

Sequences use positions A(low)=1, 2..13=K, A(high)=14; a WILD in a sequence
stands for the regular card at its position (even one that is elsewhere, in
this hand or another), which ``Meld.stands_for`` records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import attrgetter
from typing import Iterable

from .cards import RANKS, SUIT_NAMES, WILD, Card, _BY_CODE, check_duplicates, parse_card
from .errors import DuplicateCardError, MeldError

GROUP, SEQUENCE, COUNT = "group", "sequence", "count"
_INDEX = attrgetter("index")
MELD_KINDS = (GROUP, SEQUENCE, COUNT)
#: A sequence runs from A(low)=1 to A(high)=14: at most 14 cards.
MAX_SEQUENCE = 14


def regular_at(suit: str, position: int) -> Card:
    """The regular card at sequence position 1..14 of a suit (1 and 14 = ace)."""
    rank = 1 if position == 14 else position
    return _BY_CODE[RANKS[rank - 1] + suit]


def _position_text(position: int) -> str:
    return RANKS[(1 if position == 14 else position) - 1]


@dataclass(frozen=True)
class Meld:
    """A valid meld.

    ``cards`` are in reading order (a sequence from its low end, WILDs at the
    positions they fill; a group's natural cards then its WILDs).
    ``stands_for`` is aligned with ``cards``: for a sequence, the regular card
    each position holds (a natural card stands for itself); for groups and
    COUNT groups it is None for every WILD, since any card of the rank will do.
    ``start`` is a sequence's first position (1..14), else None.
    """

    kind: str
    cards: tuple[Card, ...]
    stands_for: tuple[Card | None, ...]
    start: int | None = None

    @property
    def wilds(self) -> int:
        return sum(1 for c in self.cards if c.is_wild)

    @property
    def rank(self) -> int | None:
        """The rank of a group (None for WILD WILD WILD and other kinds)."""
        if self.kind != GROUP:
            return None
        ranks = {c.rank for c in self.cards if c.is_regular}
        return ranks.pop() if ranks else None

    @property
    def suit(self) -> str | None:
        return self.stands_for[0].suit if self.kind == SEQUENCE else None

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)

    def describe(self) -> str:
        """For people: ``sequence 5H 6H WILD(=7H)``."""
        parts = []
        for c, s in zip(self.cards, self.stands_for):
            parts.append(f"WILD(={s})" if c.is_wild and s is not None else str(c))
        return f"{self.kind} " + " ".join(parts)

    def to_json(self) -> dict:
        return {"kind": self.kind, "cards": [str(c) for c in self.cards]}


def _as_cards(cards: Iterable[Card | str]) -> list[Card]:
    return [c if isinstance(c, Card) else parse_card(c) for c in cards]


def make_group(naturals: Iterable[Card], wilds: int) -> Meld:
    """A group (regular cards of one rank, or only WILDs) from trusted parts."""
    nat = tuple(sorted(naturals, key=_INDEX))
    cards = nat + (WILD,) * wilds
    return Meld(GROUP, cards, nat + (None,) * wilds)


def make_count_group(count_cards: Iterable[Card], wilds: int) -> Meld:
    nat = tuple(sorted(count_cards, key=_INDEX))
    return Meld(COUNT, nat + (WILD,) * wilds, nat + (None,) * wilds)


def make_sequence(suit: str, start: int, cells: Iterable[bool]) -> Meld:
    """A sequence from ``start`` where ``cells[i]`` says whether position
    start+i holds the natural card (True) or a WILD (False)."""
    cards, stands = [], []
    for i, natural in enumerate(cells):
        real = regular_at(suit, start + i)
        cards.append(real if natural else WILD)
        stands.append(real)
    return Meld(SEQUENCE, tuple(cards), tuple(stands), start)


def _refuse(cards: list[Card]) -> str | None:
    """Why these cards are not a meld, or None if they are (see check_meld)."""
    return _analyse(cards)[0]


def _analyse(cards: list[Card]) -> tuple[str | None, Meld | None]:
    n = len(cards)
    if n < 3:
        return (f"a meld needs at least 3 cards (this has {n})", None)
    try:
        check_duplicates(cards)
    except DuplicateCardError as e:
        return (str(e), None)
    for c in cards:
        if not c.meldable:
            return (f"{c.name} never melds", None)
    wilds = sum(1 for c in cards if c.is_wild)
    counts = [c for c in cards if c.kind == "count"]
    regular = [c for c in cards if c.is_regular]
    if counts and regular:
        return ("COUNT cards never meld with regular cards "
                "(a COUNT group is COUNT cards and WILDs only)", None)
    if counts:
        return (None, make_count_group(counts, wilds))
    if not regular:
        return (None, make_group((), wilds))
    ranks = Counter(c.rank for c in regular)
    suits = {c.suit for c in regular}
    if len(ranks) == 1:
        return (None, make_group(regular, wilds))
    if len(suits) > 1:
        if any(k > 1 for k in ranks.values()):
            return ("groups and sequences don't mix: a group is cards of one rank, "
                    "a sequence is cards of one suit in order", None)
        names = ", ".join(SUIT_NAMES[s] for s in sorted(suits, key="SCDH".index))
        return (f"a sequence is all one suit, and these are {names}; "
                "a group is all one rank, and these ranks differ", None)
    return _sequence(regular, wilds, suits.pop())


def _sequence(regular: list[Card], wilds: int, suit: str):
    n = len(regular) + wilds
    if n > MAX_SEQUENCE:
        return (f"a sequence is at most {MAX_SEQUENCE} cards long (A low up to A high), "
                f"this has {n}", None)
    ranks = sorted(c.rank for c in regular)
    options = [ranks]
    if ranks[0] == 1:
        options.append(sorted(ranks[1:] + [14]))   # the ace played high
    best_gap = None
    for pos in options:
        span = pos[-1] - pos[0] + 1
        gaps = span - len(pos)
        if gaps <= wilds:
            present = set(pos)
            # spare WILDs extend the top first, then the bottom
            top = min(MAX_SEQUENCE, pos[-1] + (wilds - gaps))
            start = top - (n - 1)
            cells = [p in present for p in range(start, top + 1)]
            return (None, make_sequence(suit, start, cells))
        best_gap = gaps if best_gap is None else min(best_gap, gaps)
    # Would it work if the ranks wrapped round from K to A to 2?
    cyc = sorted({r % 13 for r in ranks})  # K=0, A=1, 2=2 ...
    m = len(cyc)
    gaps = [((cyc[(i + 1) % m] - cyc[i]) % 13 or 13, i) for i in range(m)]
    widest, at = max(gaps)
    arc = 13 - widest + 1                   # cards from cyc[at+1] round to cyc[at]
    if arc - m <= wilds:
        first = cyc[(at + 1) % m]
        text = " ".join(RANKS[((first + k) % 13 or 13) - 1] for k in range(arc))
        return (f"{text} wraps around: a sequence never wraps "
                "(an ace is low, A 2 3, or high, Q K A)", None)
    have = {0: "there is no WILD", 1: "there is 1 WILD"}.get(wilds, f"there are {wilds} WILDs")
    return (f"these {SUIT_NAMES[suit]} are not consecutive: filling the gaps needs "
            f"{best_gap} WILD{'s' if best_gap > 1 else ''} and {have}", None)


def check_meld(cards: Iterable[Card | str]) -> Meld:
    """Return the meld these cards form, or raise :class:`MeldError` saying why not."""
    lst = _as_cards(cards)
    why, meld = _analyse(lst)
    if why is not None:
        raise MeldError(why)
    return meld


def explain_meld(cards: Iterable[Card | str]) -> tuple[bool, str]:
    """``(True, "a group of 7s")`` or ``(False, reason)``; never raises for cards."""
    lst = _as_cards(cards)
    why, meld = _analyse(lst)
    if why is not None:
        return (False, why)
    return (True, describe_kind(meld))


def describe_kind(meld: Meld) -> str:
    if meld.kind == COUNT:
        return f"a COUNT group of {len(meld.cards)} cards"
    if meld.kind == GROUP:
        r = meld.rank
        return "a group of WILDs" if r is None else f"a group of {RANKS[r - 1]}s"
    lo, hi = meld.start, meld.start + len(meld.cards) - 1
    return (f"a sequence of {SUIT_NAMES[meld.suit]} from {_position_text(lo)} "
            f"to {_position_text(hi)}")


def is_meld(cards: Iterable[Card | str]) -> bool:
    return _refuse(_as_cards(cards)) is None
