"""The solver: exact minimum counts, valid arrangements, going out.

Randomized checks compare against ``tests/brute.py``, a naive search over
every partition, on small hands (with WILDs and optional cards); bigger hands
are checked for validity and against the solver run without its first
cost-limited pass."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import companion.solver_clusters as clusters
from brute import brute_min_count
from companion.cards import FULL_DECK, REGULAR_CARDS, WILD, parse_cards
from companion.errors import DuplicateCardError, RummyError
from companion.melds import check_meld
from companion.solver import (best_arrangement, can_go_out, fewest_unmelded,
                              going_out_arrangement, min_count)


def count(text):
    return best_arrangement(parse_cards(text)).count


def assert_valid(arr, hand):
    """Every meld is a meld, every card is used exactly once, the count adds up."""
    for m in arr.melds:
        again = check_meld(m.cards)
        assert again.kind == m.kind or {again.kind, m.kind} <= {"group", "sequence"}
        if m.kind == "sequence":
            # the WILDs stand for the cards at their positions
            for c, s in zip(m.cards, m.stands_for):
                assert c.is_wild or c == s
            ranks = [14 if (s.rank == 1 and i) else s.rank for i, s in enumerate(m.stands_for)]
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks)))
            assert len({s.suit for s in m.stands_for}) == 1
    assert sorted(arr.cards) == sorted(hand)
    assert arr.count == sum(c.count for c in arr.unmelded)
    assert list(arr.unmelded) == sorted(arr.unmelded)


# -- the rule sheet and the readings --------------------------------------
def test_the_sheets_example_counts_5_not_8():
    arr = best_arrangement(parse_cards("2H 3H 4H 4C 4D"))
    assert arr.count == 5
    assert [m.kind for m in arr.melds] == ["group"]
    assert [str(c) for c in arr.unmelded] == ["2H", "3H"]


@pytest.mark.parametrize("text,expected", [
    ("", 0),
    ("KS", 13),
    ("AS 2S 3S", 0),                    # ace low
    ("QS KS AS", 0),                    # ace high
    ("KS AS 2S", 16),                   # never wraps
    ("AS 2S 3S QS KS", 5),              # one ace, low or high, not both: Q K A
    ("AS 2S 3S KS", 13),
    ("AS AC AD QH KH AH", 0),           # three aces group, the fourth plays high
    ("5H 6H 7H 7S 7C", 11),             # groups and sequences don't mix
    ("5H 6H 7H 7S 7C 7D", 0),
    ("WILD", 20), ("WILD WILD", 40), ("WILD WILD WILD", 0),
    ("5H WILD", 25), ("5H WILD WILD", 0),
    ("5H 6H WILD", 0),
    ("KS COUNT1 WILD", 34),             # nothing melds with one WILD here
    ("COUNT1 COUNT2", 3), ("COUNT1 COUNT2 COUNT7", 0), ("COUNT12 WILD WILD", 0),
    ("COUNT1 COUNT2 WILD 5H 6H", 3),    # the WILD goes where it saves most
    ("COUNT12 COUNT7 WILD 5H 6H", 11),
    ("NOMELD0 NOMELD2 NODECLARE0", 2),  # never meld
    ("NOMELD2 WILD WILD", 42),
    ("5H 9H WILD WILD WILD 2C", 2),     # three WILDs fill a gap
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH WILD WILD", 0),  # 15 hearts: spares find a home
])
def test_counts(text, expected):
    arr = best_arrangement(parse_cards(text))
    assert arr.count == expected
    assert_valid(arr, parse_cards(text))


def test_wild_stands_for_a_card_held_elsewhere():
    # 7H is in the group; the WILD still stands for 7H in the sequence
    arr = best_arrangement(parse_cards("5H 6H 7H 7S 7C WILD"))
    assert arr.count == 0
    assert_valid(arr, parse_cards("5H 6H 7H 7S 7C WILD"))


def test_melded_wild_counts_0_and_unmelded_20():
    assert count("KS QS WILD") == 0
    assert count("KS 2D WILD") == 35


def test_wilds_join_melds_when_that_lowers_the_count():
    arr = best_arrangement(parse_cards("KS KC 2D WILD"))
    assert arr.count == 2 and arr.melds[0].wilds == 1


def test_full_deck():
    arr = best_arrangement(FULL_DECK)
    assert arr.count == 2
    assert sorted(str(c) for c in arr.unmelded) == ["NODECLARE0", "NOMELD0", "NOMELD2"]
    assert_valid(arr, FULL_DECK)


def test_fourteen_card_sequence_with_spares():
    hand = parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH WILD WILD WILD")
    arr = best_arrangement(hand)
    assert arr.count == 0
    assert_valid(arr, hand)


def test_deterministic_whatever_the_input_order():
    rng = random.Random(7)
    for _ in range(30):
        hand = rng.sample(FULL_DECK, rng.randint(0, 20))
        first = best_arrangement(hand)
        for _ in range(3):
            rng.shuffle(hand)
            assert best_arrangement(hand) == first


def test_accepts_text_and_rejects_duplicates():
    assert min_count(["2H", "3H", "4H"]) == 0
    with pytest.raises(DuplicateCardError):
        best_arrangement(parse_cards("2H 3H") + parse_cards("2H"))
    with pytest.raises(DuplicateCardError):
        best_arrangement([WILD] * 4)


# -- against brute force ------------------------------------------------------
def _random_small_hand(rng):
    n = rng.randint(0, 9)
    mode = rng.random()
    if mode < 0.35:      # mostly one suit: runs, gaps, aces at both ends
        suit = rng.choice("SCDH")
        pool = [c for c in FULL_DECK if c.suit == suit or c.is_wild
                or (c.is_regular and rng.random() < 0.15)]
    elif mode < 0.65:    # few ranks: groups, COUNT cards
        ranks = rng.sample(range(1, 14), 4)
        pool = [c for c in FULL_DECK if c.is_wild or c.kind == "count"
                or (c.is_regular and c.rank in ranks)]
    else:
        pool = list(FULL_DECK)
    return rng.sample(pool, min(n, len(pool)))


def test_randomized_against_brute_force():
    rng = random.Random(20240601)
    for _ in range(250):
        hand = _random_small_hand(rng)
        arr = best_arrangement(hand)
        assert_valid(arr, hand)
        assert arr.count == brute_min_count(hand), [str(c) for c in hand]
        out = going_out_arrangement(hand)
        assert (out is not None) == (brute_min_count(hand, per_card=1000) < 2000)
        if out is not None:
            assert_valid(out, hand)
            assert len(out.unmelded) <= 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FULL_DECK), max_size=8, unique_by=lambda c: c.index)
       | st.lists(st.sampled_from(REGULAR_CARDS[:13] + (WILD,) * 3 + REGULAR_CARDS[13:26]),
                  max_size=8).filter(lambda h: sum(c.is_wild for c in h) <= 3
                                     and len({c for c in h if not c.is_wild})
                                     == sum(not c.is_wild for c in h)))
def test_property_against_brute_force(hand):
    arr = best_arrangement(hand)
    assert_valid(arr, hand)
    assert arr.count == brute_min_count(hand)


def test_big_hands_are_valid_and_the_first_pass_is_exact(monkeypatch):
    rng = random.Random(99)
    hands = [rng.sample(FULL_DECK, rng.randint(16, 64)) for _ in range(25)]
    hands += [rng.sample(REGULAR_CARDS, 30) for _ in range(5)]
    fast = [best_arrangement(h) for h in hands]
    for arr, h in zip(fast, hands):
        assert_valid(arr, h)
    monkeypatch.setattr(clusters, "_first_limit", lambda *args: None)
    slow = [best_arrangement(h).count for h in hands]
    assert [a.count for a in fast] == slow


def test_every_hand_size_up_to_the_deck():
    rng = random.Random(5)
    for n in range(0, 65, 4):
        hand = rng.sample(FULL_DECK, n)
        assert_valid(best_arrangement(hand), hand)


# -- going out -------------------------------------------------------------------
def test_going_out_standard_allows_one_card_left():
    assert can_go_out(parse_cards("5H 6H 7H 9S 9C 9D KS"))
    assert not can_go_out(parse_cards("5H 6H 7H 9S 9C KS"))
    assert can_go_out(parse_cards("5H 6H 7H NOMELD2"))      # any card may be the one left


def test_going_out_needs_fewest_cards_not_lowest_count():
    hand = parse_cards("KS AC 2C WILD WILD")
    best = best_arrangement(hand)
    assert best.count == 3 and len(best.unmelded) == 2      # lowest count leaves 2 cards
    out = going_out_arrangement(hand)
    assert out is not None and [str(c) for c in out.unmelded] == ["KS"]
    assert fewest_unmelded(hand) == 1


def test_going_out_major_needs_one_meld_of_the_whole_hand():
    assert can_go_out(parse_cards("2H 3H 4H 5H 6H 7H"), "major")
    assert not can_go_out(parse_cards("2H 3H 4H 9S 9C 9D"), "major")
    assert not can_go_out(parse_cards("2H 3H 4H 5H 6H KS"), "major")
    arr = going_out_arrangement(parse_cards("7S 7C WILD"), "major")
    assert arr.count == 0 and len(arr.melds) == 1


def test_going_out_minor_sheet_examples():
    # six cards: a 5-card meld and one card, not two 3-card melds; a 6-run is fine
    assert can_go_out(parse_cards("2H 3H 4H 5H 6H KS"), "minor")
    assert not can_go_out(parse_cards("2H 3H 4H 9S 9C 9D"), "minor")
    assert can_go_out(parse_cards("2H 3H 4H 5H 6H 7H"), "minor")
    assert can_go_out(parse_cards("2H 3H 4H 9S 9C 9D"), "standard")
    arr = going_out_arrangement(parse_cards("2H 3H 4H 5H 6H KS"), "minor")
    assert [str(c) for c in arr.unmelded] == ["KS"] and arr.count == 13


def test_unknown_going_out_rule():
    with pytest.raises(RummyError):
        can_go_out(parse_cards("2H 3H 4H"), "sideways")


# -- the slowest hands the benchmark found (correctness only, never timed) ----
SLOW_HANDS = [
    ("AH 7C COUNT4 WILD NOMELD2 9C QS JC 10H 2H NOMELD0 WILD 3H 5C 3D COUNT12 10D KC 3C "
     "AS 2D 4H 10S 9D 4D 7S 5S 2S 6H AC 3S COUNT1 COUNT2 10C 9H 2C 8H JS 8C COUNT3 KS 6D "
     "QD AD 7D 8S 4S 8D", 19),
    ("JC 7S 4H JH 6S 3H QC 4D 9C 3S COUNT2 3C AS WILD 8D AD 8H AH 5S 10C 2D NODECLARE0 5D "
     "WILD 5C 5H 3D 9D 7C 4C JS 4S 10S 6D KS 9H 8S NOMELD2 2H 8C KH 10D COUNT12", 21),
    ("WILD JD KD AS 6H JC 4C 2D 6D QC 3D 10C 5S COUNT12 3C NODECLARE0 NOMELD0 9H 4D 6C 5D "
     "6S AH NOMELD2 2H 8D QS WILD AC 4S 3H 7S 9S 8C 9C AD JH 7H 2C JS 7D", 27),
]


@pytest.mark.parametrize("text,expected", SLOW_HANDS)
def test_slowest_hands_found(text, expected, monkeypatch):
    hand = parse_cards(text)
    arr = best_arrangement(hand)
    assert_valid(arr, hand)
    assert arr.count == expected
    monkeypatch.setattr(clusters, "_first_limit", lambda *args: None)   # plain exact DP
    assert best_arrangement(hand).count == expected


def test_many_wilds_against_brute_force():
    """Hands dense in WILDs and neighbours, where the DP's shared move tables
    drop the most moves as dominated."""
    rng = random.Random(31)
    for _ in range(60):
        suits = rng.sample("SCDH", 2)
        ranks = rng.sample(range(1, 14), 5)
        pool = [c for c in REGULAR_CARDS if c.suit in suits or c.rank in ranks[:2]]
        hand = rng.sample(pool, rng.randint(4, 7)) + [WILD] * rng.randint(1, 3)
        arr = best_arrangement(hand)
        assert_valid(arr, hand)
        assert arr.count == brute_min_count(hand), [str(c) for c in hand]
