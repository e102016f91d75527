"""A match: first to win two games.

Pure functions over the list of finished games, so a caller (the web app)
recomputes the match from its stored games instead of patching counters.
The winner of a game draws first in the next; after a tie game (no winner)
the same player draws first again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Sequence

from .errors import RoundSpecError

#: Games a player must win to win the match.
WINS_NEEDED = 2


@dataclass(frozen=True)
class MatchState:
    """Where a match stands after ``games`` finished games.

    ``wins`` pairs each player with their game wins, in seating order;
    ``firsts[i]`` is who drew first in game i (one more entry than games
    while the match goes on: the next game's first player); ``winner`` is the
    match winner or None; ``next_first`` is who draws first next (None once
    the match is over)."""

    players: tuple
    wins: tuple
    firsts: tuple
    winner: Hashable | None
    next_first: Hashable | None
    games: int
    ties: int

    @property
    def over(self) -> bool:
        return self.winner is not None

    def wins_of(self, player) -> int:
        return dict(self.wins)[player]


def _winner_of(result):
    """A game result may be the winner itself, None (tie) or an object with
    a ``winner`` attribute (a judge Outcome)."""
    return getattr(result, "winner", result)


def next_first_player(first: Hashable, winner: Hashable | None) -> Hashable:
    """Who draws first in the next game: the winner, or after a tie game the
    same player as this game."""
    return first if winner is None else winner


def match_state(players: Sequence[Hashable], first: Hashable,
                results: Sequence = ()) -> MatchState:
    """Replay a match.  ``players``: names (or seats) in seating order;
    ``first``: who drew first in game 1; ``results``: each finished game's
    winner, None for a tie game (or judge Outcomes)."""
    players = tuple(players)
    if len(set(players)) != len(players):
        raise RoundSpecError("match players: every player must appear once")
    if not 2 <= len(players) <= 10:
        raise RoundSpecError(f"match players: 2 to 10 players, not {len(players)}")
    if first not in players:
        raise RoundSpecError(f"match first player {first!r} is not one of the players")
    wins = {p: 0 for p in players}
    firsts = [first]
    winner = None
    ties = 0
    for i, result in enumerate(results):
        w = _winner_of(result)
        if winner is not None:
            raise RoundSpecError(
                f"match results[{i}]: the match was already won by {winner!r} "
                f"after game {i}; start a new match")
        if w is None:
            ties += 1
        elif w not in wins:
            raise RoundSpecError(f"match results[{i}]: {w!r} is not one of the players")
        else:
            wins[w] += 1
            if wins[w] >= WINS_NEEDED:
                winner = w
        if winner is None:
            firsts.append(next_first_player(firsts[-1], w))
    return MatchState(players, tuple(wins.items()), tuple(firsts), winner,
                      None if winner is not None else firsts[-1], len(results), ties)
