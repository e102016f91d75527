"""The solver's fast paths give exactly what the plain position DP gives.

``companion.solver`` answers small hands by a search over short melds
(``solver_pack``), looks for a layout melding every meldable card in big
hands, and prunes the DP passes of big clusters (cost limits that widen by
doubling, A* bounds from a mirrored pass, per-WILD caps from the rest of the
hand).  Each test here compares those answers, on many random hands with
WILDs and optional cards, with the plain DP run with every shortcut off --
the reference the brute-force tests in ``test_solver.py`` vouch for on
small hands -- and checks the arrangements are valid and deterministic."""

import random

import pytest

import companion.solver as solver
import companion.solver_clusters as clusters
import companion.solver_pack as pack
import companion.solver_prune as prune
from brute import brute_min_count
from companion.cards import FULL_DECK, REGULAR_CARDS, WILD
from companion.solver import best_arrangement, fewest_unmelded, going_out_arrangement
from test_solver import assert_valid

OPTIONAL = tuple(FULL_DECK[52:61])      # the nine optional cards but WILD


def _answers(hand):
    """Everything the tests compare: the count, the fewest cards left over,
    and whether (and with what count) the hand goes out."""
    arr = best_arrangement(hand)
    out = going_out_arrangement(hand)
    return arr, (arr.count, fewest_unmelded(hand), None if out is None else out.count)


@pytest.fixture
def plain(monkeypatch):
    """A function giving the plain DP's answers: no small-hand search, no
    cover search, no cost limits (so no A* nor caps either)."""
    def run(hand):
        with monkeypatch.context() as m:
            m.setattr(solver, "SMALL_HAND", -1)
            m.setattr(solver, "COVER_NODES", 0)
            m.setattr(clusters, "_first_limit", lambda *args: None)
            return _answers(hand)[1]
    return run


def _hand(rng, lo, hi, wilds=None):
    """lo..hi cards from the 61 single cards, plus 0-3 WILDs (or ``wilds``)."""
    n = rng.randint(lo, hi)
    w = rng.randint(0, 3) if wilds is None else wilds
    return rng.sample(REGULAR_CARDS + OPTIONAL, n) + [WILD] * w


def _dense_hand(rng, n, wilds):
    """Cards from two suits and two ranks: long runs, groups, many layouts."""
    suits = rng.sample("SCDH", 2)
    ranks = rng.sample(range(1, 14), 2)
    pool = [c for c in REGULAR_CARDS if c.suit in suits or c.rank in ranks] + list(OPTIONAL)
    return rng.sample(pool, min(n, len(pool))) + [WILD] * wilds


def test_small_hand_search_matches_the_dp(plain):
    rng = random.Random(404)
    for i in range(160):
        hand = _hand(rng, 6, 17) if i % 2 else _dense_hand(rng, rng.randint(6, 17), rng.randint(0, 3))
        arr, fast = _answers(hand)
        assert_valid(arr, hand)
        assert fast == plain(hand), [str(c) for c in hand]


def test_small_hand_search_with_optional_cards_against_brute_force():
    rng = random.Random(405)
    few_ranks = [c for c in REGULAR_CARDS if c.rank in (1, 2, 3, 12, 13)]
    for _ in range(120):
        pool = few_ranks + list(OPTIONAL)
        hand = rng.sample(pool, rng.randint(2, 7)) + [WILD] * rng.randint(0, 3)
        arr = best_arrangement(hand)
        assert_valid(arr, hand)
        assert arr.count == brute_min_count(hand), [str(c) for c in hand]
        # each card left over weighs 1000 more than its count: the fewest first
        assert fewest_unmelded(hand) == brute_min_count(hand, per_card=1000) // 1000


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_big_hands_fast_paths_match_the_plain_dp(plain, seed):
    rng = random.Random(seed)
    for i in range(12):
        if i % 3 == 0:
            hand = rng.sample(FULL_DECK, rng.randint(21, 64))
        elif i % 3 == 1:
            hand = _hand(rng, 24, 50, wilds=rng.randint(1, 3))
        else:
            hand = _dense_hand(rng, rng.randint(20, 34), rng.randint(1, 3))
        arr, fast = _answers(hand)
        assert_valid(arr, hand)
        assert fast == plain(hand), [str(c) for c in hand]


def test_each_shortcut_alone_is_exact(monkeypatch):
    """The cover search, A* and the doubling limits, each switched off in
    turn, never change an answer."""
    rng = random.Random(77)
    hands = [_hand(rng, 26, 50, wilds=rng.randint(1, 3)) for _ in range(8)]
    hands += [rng.sample(FULL_DECK, 60) for _ in range(2)]
    expected = [_answers(h)[1] for h in hands]
    for module, name, value in ((solver, "COVER_NODES", 0), (clusters, "ASTAR", False),
                                (solver, "COVER_NODES", 10 ** 6)):
        with monkeypatch.context() as m:
            m.setattr(module, name, value)
            assert [_answers(h)[1] for h in hands] == expected, name


def test_cover_orders_and_window_agree(monkeypatch):
    """pack_cover finds a cover exactly when one exists, whatever its
    branching window."""
    rng = random.Random(12)
    for _ in range(25):
        hand = rng.sample(FULL_DECK, rng.randint(30, 64))
        wilds = sum(c.is_wild for c in hand)
        sm = [0, 0, 0, 0]
        for c in hand:
            if c.is_regular:
                sm[c.index // 13] |= 2 << (c.index % 13)
        live = solver._live_bits(sm, wilds)
        melds = pack.hand_melds(live, wilds, 0, 0, 0)
        target = 0
        for s in range(4):
            for r in range(1, 14):
                if live[s] >> r & 1:
                    target |= 1 << 4 * (r - 1) + s
        found = []
        for window in (1, 4):
            with monkeypatch.context() as m:
                m.setattr(pack, "COVER_WINDOW", window)
                got = pack.pack_cover(melds, target, wilds, 10 ** 7)
            if got:
                covered = 0
                for mask, need, _w, _d in got:
                    assert not covered & mask
                    covered |= mask
                assert covered == target and sum(m[1] for m in got) <= wilds
            assert got is not None
            found.append(got is not False)
        assert found[0] == found[1]


def test_prune_matches_the_pairwise_reference():
    rng = random.Random(3)
    for _ in range(200):
        states = {rng.randrange(1 << 15): rng.randint(0, 40) for _ in range(rng.randint(1, 400))}
        ace_cost = rng.choice([2, 1001])
        fast = prune._prune(states, ace_cost)
        assert list(fast.items()) == list(prune._prune_reference(states, ace_cost).items())


def test_big_hands_are_deterministic():
    rng = random.Random(8)
    for _ in range(6):
        hand = _hand(rng, 25, 50, wilds=rng.randint(1, 3))
        first = best_arrangement(hand)
        for _ in range(2):
            rng.shuffle(hand)
            assert best_arrangement(hand) == first


def test_six_card_runs_stay_one_sequence():
    """The small-hand search uses melds of at most five cards; touching
    sequences of a suit are joined again for the arrangement shown."""
    hand = [c for c in REGULAR_CARDS if c.suit == "H" and 2 <= c.rank <= 9]
    arr = best_arrangement(hand)
    assert [len(m.cards) for m in arr.melds] == [8] and arr.count == 0
