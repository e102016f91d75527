"""A match: first to two wins, who draws first next."""

import pytest

from companion.errors import RoundSpecError
from companion.judge import Outcome
from companion.match import WINS_NEEDED, match_state, next_first_player

PLAYERS = ("Ann", "Bob", "Cy")


def test_fresh_match():
    st = match_state(PLAYERS, "Ann")
    assert st.next_first == "Ann" and st.winner is None and st.games == 0
    assert dict(st.wins) == {"Ann": 0, "Bob": 0, "Cy": 0}


def test_winner_draws_first_next_and_a_tie_keeps_the_same_first_player():
    st = match_state(PLAYERS, "Ann", ["Bob", None, "Cy"])
    assert st.firsts == ("Ann", "Bob", "Bob", "Cy")
    assert st.next_first == "Cy" and st.ties == 1 and not st.over


def test_first_to_two_wins():
    assert WINS_NEEDED == 2
    st = match_state(PLAYERS, "Ann", ["Bob", "Cy", None, "Bob"])
    assert st.winner == "Bob" and st.over and st.next_first is None
    assert st.wins_of("Bob") == 2 and st.wins_of("Cy") == 1


def test_no_games_after_the_match_is_won():
    with pytest.raises(RoundSpecError, match="already won by 'Bob'"):
        match_state(PLAYERS, "Ann", ["Bob", "Bob", "Cy"])


def test_bad_input():
    with pytest.raises(RoundSpecError):
        match_state(PLAYERS, "Zed")
    with pytest.raises(RoundSpecError):
        match_state(PLAYERS, "Ann", ["Zed"])
    with pytest.raises(RoundSpecError):
        match_state(("Ann", "Ann"), "Ann")


def test_accepts_outcomes_and_seats():
    outcome = Outcome(winner="Cy", legal=True, reason="", standings=())
    assert match_state(PLAYERS, "Ann", [outcome]).next_first == "Cy"
    assert match_state((0, 1, 2), 0, [2, None]).next_first == 2
    assert next_first_player("Ann", None) == "Ann"
    assert next_first_player("Ann", "Bob") == "Bob"


def test_recomputing_is_pure():
    results = ["Bob", None]
    assert match_state(PLAYERS, "Ann", results) == match_state(PLAYERS, "Ann", results)
    assert results == ["Bob", None]
