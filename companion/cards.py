"""Cards and their notation.

A :class:`Card` is a small immutable value: one of the 62 kinds of card in the
game (52 regular cards, 9 single optional cards and the WILDCARD, of which the
deck holds three).  ``str(card)`` is the canonical text (``10H``, ``COUNT7``,
``NOMELD0``, ``NODECLARE0``, ``WILD``) and ``Card.parse`` reads it back, along
with every spelling people actually type or print (``TH``, ``th``, ``10♥``,
``♡10``-free suit symbols, ``COUNT 7``, ``CAN'T DECLARE 0``, ``WILDCARD``...).

Cards are ordered by the deck order shared with ``vision.classes``: spades,
clubs, diamonds, hearts, each A..K, then the optional cards.  Sorting a hand
therefore gives the same result whatever order the cards were read in.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping

from .errors import CardParseError, DuplicateCardError

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "C", "D", "H")
SUIT_NAMES = {"S": "spades", "C": "clubs", "D": "diamonds", "H": "hearts"}
RANK_NAMES = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
SUIT_SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}

COUNT_VALUES = (1, 2, 3, 4, 7, 12)
OPTIONAL_CODES = tuple(f"COUNT{n}" for n in COUNT_VALUES) + (
    "NOMELD0", "NOMELD2", "NODECLARE0", "WILD",
)
REGULAR_CODES = tuple(f"{r}{s}" for s in SUITS for r in RANKS)
CARD_CODES = REGULAR_CODES + OPTIONAL_CODES

#: How many copies of each card the deck holds (WILD three, others one).
WILD_COPIES = 3

_OPTIONAL_INFO = {
    # code: (kind, unmelded count, name for people)
    **{f"COUNT{n}": ("count", n, f"COUNT {n}") for n in COUNT_VALUES},
    "NOMELD0": ("nomeld", 0, "NO MELD 0"),
    "NOMELD2": ("nomeld", 2, "NO MELD 2"),
    "NODECLARE0": ("nodeclare", 0, "CAN'T DECLARE 0"),
    "WILD": ("wild", 20, "WILDCARD"),
}


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card.  ``index`` is its place in :data:`CARD_CODES` (deck order).

    Build cards with :meth:`parse` (or the module constants); the index is
    public only so that cards are cheap, hashable and ordered.
    """

    index: int

    def __post_init__(self):
        if not isinstance(self.index, int) or not 0 <= self.index < len(CARD_CODES):
            raise ValueError(f"no card has index {self.index!r}")

    # -- notation -----------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> "Card":
        """Read one card in any accepted spelling; raise CardParseError."""
        return parse_card(text)

    def __str__(self) -> str:
        return CARD_CODES[self.index]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def code(self) -> str:
        """Canonical text, e.g. ``10H`` or ``COUNT7``."""
        return CARD_CODES[self.index]

    # -- properties ---------------------------------------------------------
    @property
    def kind(self) -> str:
        """``regular``, ``count``, ``nomeld``, ``nodeclare`` or ``wild``."""
        return "regular" if self.index < 52 else _OPTIONAL_INFO[self.code][0]

    @property
    def is_regular(self) -> bool:
        return self.index < 52

    @property
    def is_wild(self) -> bool:
        return self.code == "WILD"

    @property
    def is_optional(self) -> bool:
        return self.index >= 52

    @property
    def meldable(self) -> bool:
        """False for NO MELD 0, NO MELD 2 and CAN'T DECLARE 0."""
        return self.kind not in ("nomeld", "nodeclare")

    @property
    def rank(self) -> int | None:
        """1 (ace) .. 13 (king) for regular cards, else None."""
        return self.index % 13 + 1 if self.index < 52 else None

    @property
    def rank_text(self) -> str | None:
        return RANKS[self.index % 13] if self.index < 52 else None

    @property
    def suit(self) -> str | None:
        """``S``, ``C``, ``D`` or ``H`` for regular cards, else None."""
        return SUITS[self.index // 13] if self.index < 52 else None

    @property
    def count(self) -> int:
        """The card's count when left unmelded (a WILD counts 20 unmelded)."""
        if self.index < 52:
            return self.index % 13 + 1
        return _OPTIONAL_INFO[self.code][1]

    @property
    def name(self) -> str:
        """For people: ``10 of hearts``, ``COUNT 7``, ``CAN'T DECLARE 0``."""
        if self.index < 52:
            r = self.rank_text
            return f"{RANK_NAMES.get(r, r)} of {SUIT_NAMES[self.suit]}"
        return _OPTIONAL_INFO[self.code][2]

    @property
    def symbol(self) -> str:
        """Short text with a suit symbol (``10♥``); optional cards as ``code``."""
        if self.index < 52:
            return f"{self.rank_text}{SUIT_SYMBOLS[self.suit]}"
        return self.code


ALL_KINDS = tuple(Card(i) for i in range(len(CARD_CODES)))
_BY_CODE = {c.code: c for c in ALL_KINDS}
WILD = _BY_CODE["WILD"]
REGULAR_CARDS = ALL_KINDS[:52]
#: The 12 optional cards (WILD three times).
OPTIONAL_CARDS = ALL_KINDS[52:61] + (WILD,) * WILD_COPIES
#: All 64 cards of the game.
FULL_DECK = REGULAR_CARDS + OPTIONAL_CARDS


def card(code: str) -> Card:
    """Shorthand for :meth:`Card.parse`."""
    return parse_card(code)


# ---------------------------------------------------------------------------
# parsing
_SUIT_CHARS = {
    "S": "S", "C": "C", "D": "D", "H": "H",
    "♠": "S", "♣": "C", "♦": "D", "♥": "H",
    "♤": "S", "♧": "C", "♢": "D", "♡": "H",
}
_RANK_TEXT = {r: r for r in RANKS}
_RANK_TEXT["T"] = "10"
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_SEPARATORS = re.compile(r"[\s'_\-.]+")


def parse_card(text: str) -> Card:
    """Read one card; raise :class:`CardParseError` saying why not."""
    if not isinstance(text, str):
        raise CardParseError(repr(text), "a card must be given as text")
    raw = text
    s = text.strip().translate(_APOSTROPHES).replace("\ufe0f", "").upper()
    if not s:
        raise CardParseError(raw, "it is empty")
    found = _BY_CODE.get(s)
    if found is not None:
        return found
    # regular cards: rank then suit, no spaces
    if s[-1] in _SUIT_CHARS and len(s) >= 2:
        rank = _RANK_TEXT.get(s[:-1])
        if rank is not None:
            return _BY_CODE[rank + _SUIT_CHARS[s[-1]]]
        if s[:-1] == "1":
            raise CardParseError(raw, "an ace is written A (e.g. AH)")
        if len(s) <= 4:
            raise CardParseError(
                raw, f"unknown rank {s[:-1]!r} (ranks are A, 2-10, J, Q, K; T also means 10)")
    compact = _SEPARATORS.sub("", s)
    found = _BY_CODE.get(compact)
    if found is not None:
        return found
    if compact in ("WILDCARD", "WILDCARDS", "WILDS"):
        return WILD
    m = re.fullmatch(r"(COUNT|NOMELD|CANTDECLARE|CANDECLARE|NODECLARE)(\d*)", compact)
    if m:
        word, num = m.groups()
        if word == "COUNT":
            if not num:
                raise CardParseError(raw, "COUNT needs its number, e.g. COUNT 7")
            raise CardParseError(
                raw, f"there is no COUNT {int(num)} card (COUNT cards are 1, 2, 3, 4, 7 and 12)")
        if word == "NOMELD":
            raise CardParseError(raw, "the NO MELD cards are NO MELD 0 and NO MELD 2")
        if word == "CANDECLARE":
            raise CardParseError(raw, "did you mean CAN'T DECLARE 0?")
        if num == "0" or not num:
            return _BY_CODE["NODECLARE0"]
        raise CardParseError(raw, "the only CAN'T DECLARE card is CAN'T DECLARE 0")
    if s in _RANK_TEXT or s == "1":
        raise CardParseError(raw, "a rank needs a suit after it, e.g. 7H (suits: S, C, D, H)")
    if _RANK_TEXT.get(s[:-1]) or _RANK_TEXT.get(s[:2]) or _RANK_TEXT.get(s[:1]):
        if len(s) <= 4:
            raise CardParseError(
                raw, f"unknown suit {s[-1]!r} (suits are S, C, D, H or ♠ ♣ ♦ ♥)")
    raise CardParseError(
        raw, "cards look like 10H, QS, AD, COUNT 7, NO MELD 2, CAN'T DECLARE 0 or WILD")


# A card token: the printed multi-word names first, then anything up to a
# space, comma or semicolon.
_TOKEN = re.compile(
    r"(?:COUNT\s+\d+|NO\s+MELD\s*\d+|NOMELD\s+\d+|CAN[’'‘`]?T\s+DECLARE\s*\d*"
    r"|NO\s+DECLARE\s*\d+|WILD\s+CARD)(?![^\s,;])|[^\s,;]+",
    re.IGNORECASE,
)

#: No table can hold more cards than the deck; longer input is refused early.
MAX_CARDS = len(FULL_DECK)


def split_tokens(text: str) -> list[str]:
    """Split text into card tokens, keeping ``COUNT 7`` or ``NO MELD 2`` whole."""
    return _TOKEN.findall(text)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a space/comma separated list of cards as one hand (no duplicates)."""
    if not isinstance(text, str):
        raise CardParseError(repr(text), "cards must be given as text")
    return parse_hand(split_tokens(text))


def parse_hand(tokens: Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse cards (text or Card) forming one hand; raise on impossible duplicates."""
    cards = []
    for t in tokens:
        cards.append(t if isinstance(t, Card) else parse_card(t))
        if len(cards) > MAX_CARDS:
            raise DuplicateCardError(
                None, f"more than {MAX_CARDS} cards: the whole deck has only {MAX_CARDS}")
    check_duplicates(cards)
    return tuple(cards)


def check_duplicates(cards: Iterable[Card]) -> None:
    """Raise :class:`DuplicateCardError` if a card appears more often than the
    deck holds it (any card but WILD twice, a fourth WILD)."""
    seen = Counter(cards)
    for c in sorted(seen):
        n = seen[c]
        if c.is_wild and n > WILD_COPIES:
            raise DuplicateCardError(
                c, f"{n} WILDs: the deck has only {WILD_COPIES} WILDCARDs")
        if not c.is_wild and n > 1:
            times = "twice" if n == 2 else f"{n} times"
            raise DuplicateCardError(
                c, f"{c} ({c.name}) appears {times}, but the deck has only one")


def check_table(hands: Mapping[str, Iterable[Card]]) -> None:
    """Check several hands of one game together (e.g. every player's hand).

    The message names the hands involved: "7H is in both Ann's and Bob's hands".
    """
    where: dict[Card, list[str]] = {}
    for owner, cards in hands.items():
        for c in cards:
            where.setdefault(c, []).append(owner)
    for c in sorted(where):
        owners = where[c]
        limit = WILD_COPIES if c.is_wild else 1
        if len(owners) <= limit:
            continue
        distinct = list(dict.fromkeys(owners))
        if c.is_wild:
            msg = (f"{len(owners)} WILDs on the table "
                   f"({', '.join(distinct)}): the deck has only {WILD_COPIES}")
        elif len(distinct) == 1:
            msg = f"{c} ({c.name}) appears twice in {distinct[0]}'s hand, but the deck has only one"
        else:
            msg = (f"{c} ({c.name}) is in both {distinct[0]}'s and {distinct[1]}'s hands, "
                   "but the deck has only one")
        raise DuplicateCardError(c, msg)


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)
