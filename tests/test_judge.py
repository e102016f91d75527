"""The round judge: every way a game ends, the variations, dropped players
and ties (scripted games with exact results)."""

import pytest

from companion.cards import parse_cards
from companion.errors import DuplicateCardError, RoundSpecError
from companion.judge import (Ending, Player, Variations, dropped_player_may_end_game,
                             judge_round)


def P(name, text, dropped=False):
    return Player(name, parse_cards(text), dropped)


TABLE = [
    P("Ann", "2H 3H 4H 4C 4D"),          # count 5 (the sheet's example)
    P("Bob", "KS KC KD 5S"),             # count 5
    P("Cy", "AS 2S 3S 9D 9C"),           # count 18
]


def test_declare_lowest_count_wins_with_tie_to_the_latest_in_turn_order():
    out = judge_round(TABLE, Ending("declare", "Cy"))
    assert out.legal and out.winner == "Bob"
    assert [s.count for s in out.standings] == [5, 5, 18]
    assert "Ann and Bob tied on 5" in out.tie_break
    assert "furthest to the left of Ann" in out.tie_break
    assert "loses every tie" in out.tie_break          # Ann drew first
    assert out.tie_break in out.reason


def test_first_player_loses_every_tie_even_when_declaring():
    out = judge_round(TABLE, Ending("declare", "Ann"))
    assert out.winner == "Bob"


def test_three_way_tie_goes_to_the_last_in_turn_order():
    table = [P("A", "5S"), P("B", "5C"), P("C", "5D"), P("D", "KH")]
    out = judge_round(table, Ending("no_draw", "A"))
    assert out.winner == "C"
    assert out.tie_break.startswith("A, B and C tied on 5")


def test_declare_bonus_lowers_only_the_declarer():
    out = judge_round(TABLE, Ending("declare", "Ann"), Variations(declare_bonus=True))
    assert out.winner == "Ann" and out.tie_break is None
    ann = out.standing("Ann")
    assert (ann.count, ann.comparison) == (5, 4)
    assert out.standing("Bob").comparison == 5


def test_declare_bonus_can_reach_minus_one():
    table = [P("A", "2H 3H 4H"), P("B", "5S 6S 7S")]
    out = judge_round(table, Ending("declare", "A"), Variations(declare_bonus=True))
    assert out.winner == "A" and out.standing("A").comparison == -1


def test_cannot_declare_holding_cant_declare_0():
    table = [P("A", "2H 3H 4H NODECLARE0"), P("B", "KS")]
    out = judge_round(table, Ending("declare", "A"))
    assert not out.legal and out.winner is None
    assert "CAN'T DECLARE 0" in out.reason
    # ...but holding it does not stop someone else's declaration or going out
    assert judge_round(table, Ending("declare", "B")).winner == "A"
    assert judge_round(table, Ending("go_out", "A")).winner == "A"


def test_gin_rummy_limit_uses_the_raw_count():
    table = [P("A", "8S"), P("B", "KS")]
    out = judge_round(table, Ending("declare", "A"), Variations(gin=True, declare_bonus=True))
    assert not out.legal and out.winner is None
    assert "7 or less" in out.reason and "count is 8" in out.reason
    table = [P("A", "7S"), P("B", "KS")]
    assert judge_round(table, Ending("declare", "A"), Variations(gin=True)).winner == "A"
    # without the variation any count may declare
    assert judge_round([P("A", "8S"), P("B", "KS")], Ending("declare", "A")).legal


def test_illegal_declaration_still_reports_every_count():
    table = [P("A", "2H 3H 4H NODECLARE0"), P("B", "KS")]
    out = judge_round(table, Ending("declare", "A"))
    assert [s.count for s in out.standings] == [0, 13]


def test_going_out_wins_outright_whatever_the_others_hold():
    table = [P("A", "KS KC KD QH"), P("B", "AS")]
    out = judge_round(table, Ending("go_out", "A"))
    assert out.legal and out.winner == "A"
    assert "went out" in out.reason and out.going_out is not None


def test_going_out_when_lowest_count_leaves_two_cards():
    table = [P("A", "KS AC 2C WILD WILD"), P("B", "AS")]
    out = judge_round(table, Ending("go_out", "A"))
    assert out.winner == "A"
    assert [str(c) for c in out.going_out.unmelded] == ["KS"]


def test_failed_go_out_names_no_winner():
    table = [P("A", "2H 3H 4H 9S 9C"), P("B", "AS")]
    out = judge_round(table, Ending("go_out", "A"))
    assert not out.legal and out.winner is None
    assert "at best 2 cards stay unmelded" in out.reason


@pytest.mark.parametrize("hand,rule,ok", [
    ("2H 3H 4H 5H 6H 7H", "major", True),
    ("2H 3H 4H 9S 9C 9D", "major", False),
    ("2H 3H 4H 5H 6H KS", "major", False),
    ("2H 3H 4H 5H 6H KS", "minor", True),
    ("2H 3H 4H 9S 9C 9D", "minor", False),
    ("2H 3H 4H 9S 9C 9D", "standard", True),
])
def test_going_out_variations(hand, rule, ok):
    out = judge_round([P("A", hand), P("B", "AS")], Ending("go_out", "A"),
                      Variations(going_out=rule))
    assert out.legal is ok and (out.winner == "A") is ok
    if not ok and rule != "standard":
        assert ("Major" if rule == "major" else "Minor") in out.reason


def test_four_sevens():
    table = [P("A", "7S 7C 7D 7H KS QD"), P("B", "AS")]
    out = judge_round(table, Ending("four_sevens", "A"), Variations(four_sevens=True))
    assert out.legal and out.winner == "A"
    off = judge_round(table, Ending("four_sevens", "A"))
    assert not off.legal and "not in force" in off.reason
    wild = [P("A", "7S 7C 7D WILD"), P("B", "AS")]
    out = judge_round(wild, Ending("four_sevens", "A"), Variations(four_sevens=True))
    assert not out.legal and "7H" in out.reason and "WILD does not count" in out.reason


def test_no_draw_lowest_count_wins():
    table = [P("A", "KS"), P("B", "QS"), P("C", "2D 3D 4D")]
    out = judge_round(table, Ending("no_draw", "A"))
    assert out.legal and out.winner == "C" and "declined" in out.reason


def test_unanimous_tie_has_no_winner():
    out = judge_round(TABLE, Ending("tie"))
    assert out.legal and out.winner is None and out.tie_break is None


def test_dropped_players_are_not_counted_and_cannot_win():
    table = [P("A", "KS"), P("B", "2D 3D 4D", dropped=True), P("C", "QS")]
    out = judge_round(table, Ending("declare", "A"))
    assert out.winner == "C"
    b = out.standing("B")
    assert b.dropped and b.count is None and b.arrangement is None


def test_a_dropped_player_cannot_end_the_game():
    assert dropped_player_may_end_game() is False
    table = [P("A", "KS", dropped=True), P("B", "QS")]
    out = judge_round(table, Ending("declare", "A"))
    assert not out.legal and out.winner is None and "dropped out" in out.reason


def test_malformed_rounds():
    with pytest.raises(RoundSpecError, match="2 to 10 players"):
        judge_round([P("A", "KS")], Ending("tie"))
    with pytest.raises(RoundSpecError, match="used twice"):
        judge_round([P("A", "KS"), P("A", "QS")], Ending("tie"))
    with pytest.raises(RoundSpecError, match="end.type"):
        judge_round(TABLE, Ending("resign", "Ann"))
    with pytest.raises(RoundSpecError, match="not one of the players"):
        judge_round(TABLE, Ending("declare", "Zed"))
    with pytest.raises(RoundSpecError, match="end.player"):
        judge_round(TABLE, Ending("declare"))
    with pytest.raises(RoundSpecError, match="going_out"):
        Variations(going_out="sideways")


def test_a_card_in_two_hands_is_an_error():
    with pytest.raises(DuplicateCardError, match="both A's and B's hands"):
        judge_round([P("A", "KS 2D"), P("B", "KS")], Ending("tie"))


def test_scripted_game_exact_outcome():
    # Four players; Dee declares with the Declare Bonus; Bea's count ties Dee's
    # compared count, and Dee sits later in turn order.
    table = [P("Al", "AS 2S 3S 9H 9D"),            # 18
             P("Bea", "7C 8C 9C 10C 4H"),          # 4
             P("Cal", "QH KH WILD COUNT7"),        # 7
             P("Dee", "5D 5S 5H 3C 2C")]           # 5, compared as 4
    out = judge_round(table, Ending("declare", "Dee"), Variations(declare_bonus=True))
    assert (out.winner, out.legal) == ("Dee", True)
    assert [(s.name, s.count, s.comparison) for s in out.standings] == [
        ("Al", 18, 18), ("Bea", 4, 4), ("Cal", 7, 7), ("Dee", 5, 4)]
    assert out.tie_break.startswith("Bea and Dee tied on 4. Dee wins")


def test_dropped_hands_are_still_checked_for_duplicates():
    from companion.judge import dropped_hands_checked_for_duplicates
    assert dropped_hands_checked_for_duplicates() is True
    with pytest.raises(DuplicateCardError):
        judge_round([P("A", "KS"), P("B", "KS", dropped=True)], Ending("tie"))
