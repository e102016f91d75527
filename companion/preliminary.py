"""Before play: how many cards to deal, who deals first, who chooses a seat.

* Cards dealt to each player: 2-3 players 2 to 10; 4 players 2 to 7;
  5-6 players 2 to 5; 7 players 2 or 3; 8-10 players exactly 2.
* First dealer: each player is dealt face-up cards until a regular card
  turns up (optional cards before it are passed over); the highest regular
  card deals: K > Q > J > 10 ... 2 > A, equal ranks broken by suit,
  spades > clubs > diamonds > hearts.
* Seating variation: the lowest card chooses a seat first and the dealer
  sits just to that player's right; then the next lowest chooses, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .cards import Card, check_table, parse_card
from .errors import DealError

MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: players -> (fewest, most) cards dealt to each.
DEAL_LIMITS = {2: (2, 10), 3: (2, 10), 4: (2, 7), 5: (2, 5), 6: (2, 5), 7: (2, 3),
               8: (2, 2), 9: (2, 2), 10: (2, 2)}
#: Tie-break between equal ranks for the first deal: higher is better.
SUIT_STRENGTH = {"S": 4, "C": 3, "D": 2, "H": 1}


def deal_range(n_players: int) -> tuple[int, int]:
    """(fewest, most) cards each player may be dealt."""
    if isinstance(n_players, bool) or not isinstance(n_players, int) \
            or n_players not in DEAL_LIMITS:
        raise DealError(f"Declaration Rummy is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                        f"not {n_players}")
    return DEAL_LIMITS[n_players]


def validate_deal(n_players: int, n_cards: int) -> None:
    """Raise :class:`DealError` (saying the allowed range) for a deal the rules forbid."""
    lo, hi = deal_range(n_players)
    if isinstance(n_cards, bool) or not isinstance(n_cards, int) or not lo <= n_cards <= hi:
        allowed = f"exactly {lo}" if lo == hi else f"{lo} to {hi}"
        raise DealError(f"with {n_players} players each is dealt {allowed} cards, not {n_cards}")


def card_strength(card: Card) -> tuple[int, int]:
    """Sort key for the first deal: K high ... A low, then spades > clubs >
    diamonds > hearts."""
    return (card.rank, SUIT_STRENGTH[card.suit])


@dataclass(frozen=True)
class FirstDeal:
    """``cards``: each player's deciding regular card, in the given order;
    ``ranking``: names from the highest card to the lowest; ``dealer``: the
    highest; ``choosing``: the seating variation's choosing order."""

    dealer: str
    cards: tuple[tuple[str, Card], ...]
    ranking: tuple[str, ...]
    choosing: tuple[str, ...]

    def explain(self) -> str:
        held = dict(self.cards)
        order = ", ".join(f"{n} {held[n]}" for n in self.ranking)
        return (f"Highest regular card deals (K high, A low; spades > clubs > diamonds > "
                f"hearts): {order}. {self.dealer} deals first.")


def _pairs(face_up) -> list[tuple[str, list]]:
    items = face_up.items() if isinstance(face_up, Mapping) else face_up
    return [(name, list(cards)) for name, cards in items]


def deciding_card(name: str, cards: Sequence[Card | str]) -> Card:
    """The first regular card among a player's face-up cards."""
    parsed = [c if isinstance(c, Card) else parse_card(c) for c in cards]
    for i, c in enumerate(parsed):
        if c.is_regular:
            if i != len(parsed) - 1:
                raise DealError(f"{name}'s face-up cards stop at the first regular card "
                                f"({c}); the cards after it were not dealt")
            return c
    raise DealError(f"{name} has no regular card yet: keep dealing {name} face-up cards "
                    "until one of the 52 regular cards turns up")


def first_dealer(face_up: Mapping[str, Iterable[Card | str]]
                 | Iterable[tuple[str, Iterable[Card | str]]]) -> FirstDeal:
    """Who deals first, from each player's face-up cards (in the order dealt)."""
    pairs = _pairs(face_up)
    if not MIN_PLAYERS <= len(pairs) <= MAX_PLAYERS:
        raise DealError(f"Declaration Rummy is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                        f"not {len(pairs)}")
    names = [n for n, _ in pairs]
    if len(set(names)) != len(names):
        raise DealError("each player may appear only once in the first deal")
    parsed = {n: [c if isinstance(c, Card) else parse_card(c) for c in cs] for n, cs in pairs}
    check_table(parsed)
    decided = tuple((n, deciding_card(n, parsed[n])) for n in names)
    ranking = tuple(n for n, c in sorted(decided, key=lambda nc: card_strength(nc[1]),
                                         reverse=True))
    dealer = ranking[0]
    return FirstDeal(dealer, decided, ranking, seating_choosers(ranking))


def seating_choosers(ranking: Sequence[str]) -> tuple[str, ...]:
    """Reading: in the seating variation the players choose seats from the
    lowest card up; the dealer (the highest card) does not choose, since the
    dealer must sit just to the right of the first (lowest) chooser."""
    return tuple(reversed(ranking[1:]))


def web_outcome(players: Sequence[str], dealer: int, deal: Mapping[int, Sequence[str]],
                seating: bool) -> dict:
    """Adapter for the web page: ``deal`` maps seat -> face-up card codes.
    (``dealer``, the seat that dealt the face-up cards, does not change the
    result.)"""
    result = first_dealer([(name, deal.get(seat) or []) for seat, name in enumerate(players)])
    return {"dealer": result.dealer,
            "regular": [(n, str(c)) for n, c in result.cards],
            "explanation": result.explain(),
            "seating": list(result.choosing) if seating else None}
