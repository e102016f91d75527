"""Before play: cards dealt per player count, first dealer, seating order."""

import pytest

from companion.errors import DealError, DuplicateCardError
from companion.preliminary import (DEAL_LIMITS, deal_range, first_dealer, seating_choosers,
                                   validate_deal, web_outcome)


@pytest.mark.parametrize("players,lo,hi", [
    (2, 2, 10), (3, 2, 10), (4, 2, 7), (5, 2, 5), (6, 2, 5), (7, 2, 3),
    (8, 2, 2), (9, 2, 2), (10, 2, 2)])
def test_deal_limits(players, lo, hi):
    assert deal_range(players) == (lo, hi)
    validate_deal(players, lo)
    validate_deal(players, hi)
    for bad in (lo - 1, hi + 1):
        with pytest.raises(DealError) as e:
            validate_deal(players, bad)
        assert str(lo) in str(e.value)


def test_deal_messages():
    with pytest.raises(DealError, match="2 to 7 cards, not 8"):
        validate_deal(4, 8)
    with pytest.raises(DealError, match="exactly 2 cards"):
        validate_deal(9, 3)
    with pytest.raises(DealError, match="2 to 10 players, not 11"):
        validate_deal(11, 2)
    with pytest.raises(DealError):
        validate_deal(1, 2)
    with pytest.raises(DealError):
        validate_deal(4, True)
    assert set(DEAL_LIMITS) == set(range(2, 11))


def test_highest_regular_card_deals_king_high_ace_low():
    r = first_dealer({"Ann": ["AS"], "Bob": ["KH"], "Cy": ["QS"]})
    assert r.dealer == "Bob" and r.ranking == ("Bob", "Cy", "Ann")


def test_suits_break_ties_spades_clubs_diamonds_hearts():
    r = first_dealer({"H": ["9H"], "D": ["9D"], "C": ["9C"], "S": ["9S"]})
    assert r.ranking == ("S", "C", "D", "H")


def test_optional_cards_before_the_first_regular_card_are_passed_over():
    r = first_dealer([("Ann", ["WILD", "COUNT12", "3D"]), ("Bob", ["2S"])])
    assert r.dealer == "Ann" and dict(r.cards)["Ann"].code == "3D"
    assert "Ann deals first" in r.explain()


def test_bad_first_deals():
    with pytest.raises(DealError, match="no regular card yet"):
        first_dealer({"Ann": ["WILD"], "Bob": ["2S"]})
    with pytest.raises(DealError, match="stop at the first regular card"):
        first_dealer({"Ann": ["3D", "4D"], "Bob": ["2S"]})
    with pytest.raises(DuplicateCardError):
        first_dealer({"Ann": ["3D"], "Bob": ["3D"]})
    with pytest.raises(DealError):
        first_dealer({"Ann": ["3D"]})


def test_seating_lowest_chooses_first_and_the_dealer_does_not_choose():
    r = first_dealer({"Ann": ["AS"], "Bob": ["KH"], "Cy": ["QS"], "Di": ["2C"]})
    assert r.choosing == ("Ann", "Di", "Cy")
    assert seating_choosers(("Bob", "Cy", "Di", "Ann")) == ("Ann", "Di", "Cy")


def test_web_adapter():
    out = web_outcome(["Ann", "Bob"], 0, {0: ["WILD", "5H"], 1: ["5S"]}, seating=True)
    assert out["dealer"] == "Bob" and out["regular"] == [("Ann", "5H"), ("Bob", "5S")]
    assert out["seating"] == ["Ann"]
