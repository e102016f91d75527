"""The round judge: how a game ended, whether that was legal, and who won.

Input is the table at the end of a game: the players in turn order (the first
is the player who drew first), each with a hand and a dropped flag, how the
game ended and by whom, and the variations in force.  The answer is an
immutable :class:`Outcome` (winner or None, legal, reason, every player's
standing, and the tie-break spelled out), in the spirit of python-chess's
``Outcome``.

Rules applied (rule sheet read through INTERPRETATION.md):

* ``declare``: the lowest count wins.  Not allowed holding CAN'T DECLARE 0;
  under Gin Rummy only with a raw count of 7 or less; Declare Bonus lowers the
  declarer's count by 1 for the comparison.  An illegal declaration names no
  winner and says why.
* ``go_out``: the player's cards can be laid out leaving at most one card
  (standard), as ONE meld (Going Out Major), or as one meld of all cards or
  all but one (Going Out Minor).  Going out wins outright.
* ``four_sevens``: with the Four 7's variation, laying down the four natural
  7s wins outright.
* ``no_draw``: the stockpile ran out and a player declined the discard: the
  lowest count wins.
* ``tie``: a unanimous tie game: no winner.
* Ties on the lowest count go to the tied player furthest to the left of the
  first player, i.e. the latest in turn order; the first player loses every
  tie.  Dropped players are not counted and cannot win.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .cards import Card, _BY_CODE, check_table, parse_card
from .errors import RoundSpecError
from .melds import explain_meld
from .solver import (GOING_OUT_RULES, Arrangement, best_arrangement, fewest_unmelded,
                     going_out_arrangement)

END_TYPES = ("declare", "go_out", "four_sevens", "no_draw", "tie")
MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: Gin Rummy variation: the highest raw count one may declare with.
GIN_LIMIT = 7
#: Declare Bonus variation: what a legal declarer's count drops by.
DECLARE_BONUS = 1
NATURAL_SEVENS = tuple(_BY_CODE["7" + s] for s in "SCDH")
NODECLARE = _BY_CODE["NODECLARE0"]


def dropped_player_may_end_game() -> bool:
    """Reading: a player who dropped out has laid their cards face down and is
    out of the game, so they cannot declare, go out, lay down four 7s or
    decline the discard.  A round naming them as the one who ended it is an
    illegal end (no winner), not a malformed round."""
    return False


def dropped_hands_checked_for_duplicates() -> bool:
    """Reading: a dropped player's cards (if given) are still real cards of
    this game, so a card seen both there and in another hand is reported as a
    duplicate like any other.  They are never counted or shown as a result."""
    return True


@dataclass(frozen=True)
class Player:
    name: str
    hand: tuple[Card, ...]
    dropped: bool = False


@dataclass(frozen=True)
class Variations:
    gin: bool = False
    declare_bonus: bool = False
    going_out: str = "standard"
    four_sevens: bool = False

    def __post_init__(self):
        if self.going_out not in GOING_OUT_RULES:
            raise RoundSpecError(
                f"variations.going_out must be one of {', '.join(GOING_OUT_RULES)}, "
                f"not {self.going_out!r}")


@dataclass(frozen=True)
class Ending:
    type: str
    player: str | None = None


@dataclass(frozen=True)
class Standing:
    """One player's result.  ``seat`` is the place in turn order (0 = drew
    first).  Dropped players have no arrangement, count or comparison."""

    name: str
    seat: int
    dropped: bool
    hand: tuple[Card, ...]
    arrangement: Arrangement | None
    count: int | None
    comparison: int | None


@dataclass(frozen=True)
class Outcome:
    winner: str | None
    legal: bool
    reason: str
    standings: tuple[Standing, ...]
    tie_break: str | None = None
    ending: Ending = field(default_factory=lambda: Ending("tie"))
    going_out: Arrangement | None = None

    def standing(self, name: str) -> Standing:
        for s in self.standings:
            if s.name == name:
                return s
        raise KeyError(name)


def _names(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def judge_round(players: Iterable[Player], ending: Ending,
                variations: Variations = Variations()) -> Outcome:
    """Judge the end of a game.  Raises RoundSpecError for a malformed round
    and DuplicateCardError for a table holding a card twice."""
    players = tuple(players)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RoundSpecError(
            f"players: Declaration Rummy is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
            f"not {len(players)}")
    seen = set()
    for p in players:
        if p.name in seen:
            raise RoundSpecError(f"players: the name {p.name!r} is used twice; names must differ")
        seen.add(p.name)
    if ending.type not in END_TYPES:
        raise RoundSpecError(f"end.type must be one of {', '.join(END_TYPES)}, not {ending.type!r}")
    if ending.type != "tie" and ending.player is None:
        raise RoundSpecError(f"end.player: say which player ended the game by {ending.type}")
    if ending.player is not None and ending.player not in seen:
        raise RoundSpecError(f"end.player {ending.player!r} is not one of the players")
    hands = tuple(tuple(c if isinstance(c, Card) else parse_card(c) for c in p.hand)
                  for p in players)
    check_table({p.name: h for p, h in zip(players, hands)
                 if not p.dropped or dropped_hands_checked_for_duplicates()})

    first = players[0].name
    standings = []
    for seat, (p, hand) in enumerate(zip(players, hands)):
        if p.dropped:
            standings.append(Standing(p.name, seat, True, hand, None, None, None))
            continue
        arr = best_arrangement(hand)
        standings.append(Standing(p.name, seat, False, hand, arr, arr.count, arr.count))
    standings = tuple(standings)

    def done(winner, legal, reason, tie_break=None, st=standings, going_out=None):
        return Outcome(winner, legal, reason, st, tie_break, ending, going_out)

    kind, who = ending.type, ending.player
    if kind == "tie":
        return done(None, True, "Everyone agreed to a tie game: there is no winner.")
    actor = next(s for s in standings if s.name == who)
    if actor.dropped and not dropped_player_may_end_game():
        what = {"declare": "declare", "go_out": "go out", "four_sevens": "lay down four 7s",
                "no_draw": "decline the discard"}[kind]
        return done(None, False, f"{who} dropped out of the game, so {who} cannot {what}; "
                                 "no winner is named.")

    if kind == "go_out":
        rule = variations.going_out
        arr = going_out_arrangement(actor.hand, rule)
        if arr is None:
            return done(None, False, _why_not_out(who, actor.hand, rule))
        shown = "; ".join(str(m) for m in arr.melds) or "no meld"
        left = f", leaving {arr.unmelded[0]}" if arr.unmelded else ""
        rule_text = {"standard": "", "major": " (Going Out Major)",
                     "minor": " (Going Out Minor)"}[rule]
        return done(who, True, f"{who} went out{rule_text}: {shown}{left}. "
                               "Going out wins outright.", going_out=arr)

    if kind == "four_sevens":
        if not variations.four_sevens:
            return done(None, False, "The Four 7's variation is not in force, so laying down "
                                     "four 7s does not end the game; no winner is named.")
        missing = [c for c in NATURAL_SEVENS if c not in actor.hand]
        if missing:
            return done(None, False, f"{who} does not hold all four natural 7s (missing "
                                     f"{' '.join(map(str, missing))}; a WILD does not count); "
                                     "no winner is named.")
        return done(who, True, f"{who} laid down all four natural 7s and wins outright "
                               "(Four 7's).")

    if kind == "declare":
        if NODECLARE in actor.hand:
            return done(None, False, f"{who} may not declare while holding CAN'T DECLARE 0; "
                                     "an illegal declaration names no winner.")
        if variations.gin and actor.count > GIN_LIMIT:
            return done(None, False, f"Under the Gin Rummy variation one may declare only with "
                                     f"a count of {GIN_LIMIT} or less; {who}'s count is "
                                     f"{actor.count}. An illegal declaration names no winner.")
        if variations.declare_bonus:
            standings = tuple(
                Standing(s.name, s.seat, s.dropped, s.hand, s.arrangement, s.count,
                         s.count - DECLARE_BONUS) if s.name == who else s
                for s in standings)
        opening = f"{who} declared."
        if variations.declare_bonus:
            opening += (f" Declare Bonus: {who}'s count {actor.count} is compared as "
                        f"{actor.count - DECLARE_BONUS}.")
    else:  # no_draw
        opening = (f"The stockpile was exhausted and {who} declined to draw from the "
                   "discard pile.")

    active = [s for s in standings if not s.dropped]
    low = min(s.comparison for s in active)
    tied = [s for s in active if s.comparison == low]
    winner = max(tied, key=lambda s: s.seat)
    reason = f"{opening} The lowest count wins: {winner.name} with {low}."
    tie_break = None
    if len(tied) > 1:
        tie_break = (f"{_names([s.name for s in tied])} tied on {low}. {winner.name} wins: "
                     f"of the tied players, {winner.name} sits furthest to the left of "
                     f"{first}, who drew first (the latest in turn order)")
        if any(s.seat == 0 for s in tied):
            tie_break += f"; {first}, who drew first, loses every tie"
        tie_break += "."
        reason += " " + tie_break
    return done(winner.name, True, reason, tie_break, standings)


def _why_not_out(who: str, hand: Sequence[Card], rule: str) -> str:
    tail = " No winner is named."
    if rule == "standard":
        fewest = fewest_unmelded(hand)
        return (f"{who} cannot go out: at best {fewest} cards stay unmelded, and going out "
                f"leaves at most one.{tail}")
    ok, why = explain_meld(hand)
    if rule == "major":
        return (f"{who} cannot go out under Going Out Major, which needs the whole hand as "
                f"ONE meld: {why}.{tail}")
    return (f"{who} cannot go out under Going Out Minor, which needs one meld of every card, "
            f"or of every card but one: the whole hand fails ({why}) and so does every hand "
            f"less one card.{tail}")
