"""The best arrangement of a hand: exact minimum count, fast.

A player's count is the minimum, over every way to lay the hand out as
disjoint melds, of the counts of the cards left over (INTERPRETATION.md).
This module is the solver's public face (``best_arrangement``,
``going_out_arrangement``, ...) and decides, by the hand's size, which exact
method answers it; each method lives in its own module.

First the cheap steps: cards that can never meld in this hand (no partner of
their rank, no suit neighbours, too few WILDs) are set aside.  Then, by size:

* up to ``SMALL_HAND`` natural cards that could meld: an exact memoised
  search over melds of 3 to 5 cards (``companion.solver_pack``), much
  faster than the DP for the hands people hold;
* bigger hands first look for a layout melding every card that could ever
  meld (``pack_cover``, a few hundred steps at most): when there is one, no
  layout can do better.  Big hands usually have one.
* otherwise the live cards split into clusters that can never share a
  meld, each solved for every number of WILDs it may use, and a tiny
  knapsack shares the WILDs out (COUNT cards form their own COUNT group
  with WILDs): ``companion.solver_clusters``.  Big clusters run a dynamic
  programme over sequence positions A(low)=1, 2 .. K=13, A(high)=14
  (``companion.solver_dp``, which says why it is exact) whose states are
  pruned by dominance (``companion.solver_prune``).

``companion.solver_rebuild`` turns what the searches chose back into melds
and leftover cards.  ``tests/test_solver.py`` checks all this against a
brute-force search, and ``tests/test_solver_fast.py`` the fast paths against
the plain DP.  NO MELD 0/2 and CAN'T DECLARE 0 never meld.  The result is
deterministic: the hand is sorted first and ties between equally good
layouts are broken by a fixed search order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .cards import ALL_KINDS, WILD_COPIES, Card, check_duplicates, parse_card
from .errors import RummyError
from .melds import Meld, check_meld
from .solver_clusters import _cluster_options, _clusters, _search, _search_widening, _widen
from .solver_pack import _COUNT_BIT, hand_melds, pack_cover, pack_search
from .solver_rebuild import _INDEX, _WILD_INDEX, _clusters_layout, _pack_layout

#: Going-out search weight: each unmelded card costs this much more than its
#: count, so the fewest unmelded cards win first and the count breaks ties.
_PER_CARD = 1000

GOING_OUT_RULES = ("standard", "major", "minor")

#: Hands with at most this many natural cards that could meld are solved by
#: the search over short melds (``companion.solver_pack``); bigger ones by
#: the cluster search (``companion.solver_clusters``).
SMALL_HAND = 20
#: ... unless they have 16 or more and over this many melds of 3 to 5 cards.
SMALL_MELDS = 64
#: Bigger hands first look for a layout melding every card that could ever
#: meld, giving up after this many search steps per card order (0: never).
COVER_NODES = 150

_COUNT_OF = tuple(c.count for c in ALL_KINDS)
_POPCOUNT14 = [bin(i).count("1") for i in range(1 << 14)]


@dataclass(frozen=True)
class Arrangement:
    """Melds laid down and the cards left over; ``count`` sums the leftovers."""

    melds: tuple[Meld, ...]
    unmelded: tuple[Card, ...]
    count: int

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(sorted([c for m in self.melds for c in m.cards] + list(self.unmelded)))

    @property
    def is_out(self) -> bool:
        """At most one card unmelded: the standard going-out condition."""
        return len(self.unmelded) <= 1

    def describe(self) -> str:
        parts = [m.describe() for m in self.melds]
        left = " ".join(str(c) for c in self.unmelded) or "nothing"
        return "; ".join(parts + [f"unmelded {left}"]) + f" (count {self.count})"


def _arrangement(melds: list[Meld], unmelded: list[Card]) -> Arrangement:
    return Arrangement(tuple(melds), tuple(unmelded), sum(_COUNT_OF[c.index] for c in unmelded))


def _as_hand(hand: Iterable[Card | str]) -> list[Card]:
    """The hand as sorted cards (so the answer ignores input order), checked
    for impossible duplicates."""
    cards = [c if isinstance(c, Card) else parse_card(c) for c in hand]
    cards.sort(key=_INDEX)
    n = len(cards)
    distinct = len({c.index for c in cards})
    if distinct != n:
        nw = sum(1 for c in cards if c.index == _WILD_INDEX)
        if nw > WILD_COPIES or distinct != n - nw + 1:
            check_duplicates(cards)
    return cards


def best_arrangement(hand: Iterable[Card | str]) -> Arrangement:
    """The arrangement with the lowest count (exact), for 0 to 64 cards."""
    return _solve(_as_hand(hand), 0)


def min_count(hand: Iterable[Card | str]) -> int:
    return best_arrangement(hand).count


def going_out_arrangement(hand: Iterable[Card | str], rule: str = "standard") -> Arrangement | None:
    """The arrangement that goes out under ``rule``, or None if the hand can't.

    * ``standard``: melds covering every card but at most one (any card);
    * ``major``: the whole hand is ONE meld;
    * ``minor``: one meld holding every card, or every card but one.
    """
    cards = _as_hand(hand)
    if rule == "standard":
        arr = _solve(cards, _PER_CARD, out_only=True)
        return arr if arr is not None and arr.is_out else None
    if rule not in GOING_OUT_RULES:
        raise RummyError(f"unknown going-out rule {rule!r} (standard, major or minor)")
    try:
        return Arrangement((check_meld(cards),), (), 0)
    except RummyError:
        pass
    if rule == "major":
        return None
    best = None
    for i, left in enumerate(cards):
        if i and cards[i - 1] == left:
            continue
        rest = cards[:i] + cards[i + 1:]
        try:
            meld = check_meld(rest)
        except RummyError:
            continue
        if best is None or left.count < best.count:
            best = Arrangement((meld,), (left,), left.count)
    return best


def fewest_unmelded(hand: Iterable[Card | str]) -> int:
    """The fewest cards any arrangement of the hand leaves unmelded."""
    return len(_solve(_as_hand(hand), _PER_CARD).unmelded)


def can_go_out(hand: Iterable[Card | str], rule: str = "standard") -> bool:
    return going_out_arrangement(hand, rule) is not None


# ---------------------------------------------------------------------------
# which method answers a hand
def _solve(cards: list[Card], per_card: int, out_only: bool = False) -> Arrangement | None:
    """The best arrangement of the sorted ``cards``, each unmelded card
    weighing ``per_card`` more than its count (0: the lowest count; 1000:
    the fewest cards left over first).  With ``out_only`` the answer may be
    None when no layout leaves at most one card (the going-out check)."""
    wilds = 0
    counts: list[Card] = []
    fixed: list[Card] = []            # never meld, or can't meld in this hand
    sm = [0, 0, 0, 0]                 # per suit, bit r set for rank r held
    for c in cards:
        i = c.index
        if i < 52:
            sm[i // 13] |= 2 << (i % 13)
        elif i == _WILD_INDEX:
            wilds += 1
        elif i < 58:
            counts.append(c)
        else:
            fixed.append(c)
    live_bits = _live_bits(sm, wilds)
    if not any(live_bits) and not wilds and len(counts) < 3:
        # nothing can meld: the common case for small hands, answered at once
        return Arrangement((), tuple(cards), sum(_COUNT_OF[c.index] for c in cards))
    n_live = sum(_POPCOUNT14[b & 16383] for b in live_bits)
    if n_live <= SMALL_HAND:
        got = _solve_small(cards, live_bits, wilds, counts, per_card, n_live < 16)
        if got is not None:
            return got
    start = 0
    if COVER_NODES:
        got = _try_cover(cards, live_bits, wilds, counts, per_card)
        if got:
            return got
        # no layout melding every card was found: big clusters skip the DP
        # pass looking for layouts that cost nothing (it would likely fail;
        # the next limit finds those layouts too if there are some)
        start = _widen(0, per_card)
    weight_wild = per_card + 20
    live = [0] * 15
    cells = []
    for c in cards:
        i = c.index
        if i < 52:
            st, r = i // 13, i % 13 + 1
            if live_bits[st] >> r & 1:
                live[r] |= 1 << st
                cells.append((r, st))
            else:
                fixed.append(c)
    live[14] = live[1]
    base = sum(per_card + c.count for c in fixed)

    # COUNT cards: all of them in one COUNT group, topped up with WILDs.
    nc = len(counts)
    if nc == 0:
        count_options = ((0, 0, False),)
    elif nc >= 3:
        count_options = ((0, 0, True),)
    else:
        count_options = ((0, sum(per_card + c.count for c in counts), False), (3 - nc, 0, True))

    clusters = _clusters(cells, live, wilds)
    if out_only:
        # going out leaves at most one card, worth at most per_card + 20
        limit = per_card + 20 - base
        if limit < 0:
            return None
        options = [_cluster_options(c, wilds, per_card, limit) for c in clusters]
        if not all(options):
            return None
        best = _search(options, wilds, count_options, weight_wild)
        if best is None or best[0] > limit:
            return None
    else:
        best = _search_widening(clusters, wilds, per_card, count_options, weight_wild, start)
    melds, unmelded = _clusters_layout(best, fixed, counts)
    return _arrangement(melds, unmelded)


def _live_bits(sm: list[int], wilds: int) -> list[int]:
    """Per suit, the ranks (bit r) of natural cards that could be in some meld.

    Without WILDs a card needs two more of its rank or two suit neighbours
    making three in a row; with one WILD, one more of its rank or a suit card
    within two places; with two WILDs any card melds (it and the two WILDs)."""
    if wilds >= 2:
        return list(sm)
    a, b, c, d = sm
    if wilds == 0:
        grp = (a & b & (c | d)) | (c & d & (a | b))
    else:
        grp = ((a | b) & (c | d)) | (a & b) | (c & d)
    out = []
    for m in sm:
        mm = m | (m & 2) << 13                      # the ace also sits at 14
        if wilds == 0:
            t = mm & (mm >> 1) & (mm >> 2)
            seq = t | t << 1 | t << 2
        else:
            seq = mm << 1 | mm >> 1 | mm << 2 | mm >> 2
        seq &= mm
        seq = (seq | (seq >> 13 & 2)) & 0x3FFE
        out.append(m & (seq | grp))
    return out


def _solve_small(cards: list[Card], live_bits: list[int], wilds: int, counts: list[Card],
                 per_card: int, always: bool) -> Arrangement | None:
    """The exact answer by the search over short melds (``solver_pack``);
    None (unless ``always``) when the hand has so many melds that the
    search would be slow (dense hands: the cover search and the DP do
    better there)."""
    nc = len(counts)
    count_weight = sum(per_card + c.count for c in counts) if 0 < nc < 3 else 0
    short = hand_melds(live_bits, wilds, per_card, 3 - nc if 0 < nc < 3 else 0, count_weight)
    if not always and len(short) > SMALL_MELDS:
        return None
    covered, used, chosen = pack_search(short, wilds)
    melds, unmelded = _pack_layout(cards, chosen, wilds - used, counts)
    return _arrangement(melds, unmelded)


def _try_cover(cards: list[Card], live_bits: list[int], wilds: int, counts: list[Card],
               per_card: int) -> Arrangement | bool | None:
    """The arrangement melding every card that could ever meld (every live
    natural card, and the COUNT cards), if a quick search finds one: no
    arrangement can do better.  Big hands usually have one.  False: there
    is none; None: the search gave up."""
    nc = len(counts)
    count_need = 3 - nc if 0 < nc < 3 else 0
    if count_need > wilds:
        return False
    target = 0
    for s in range(4):
        m = live_bits[s]
        while m:
            low = m & -m
            target |= 1 << 4 * (low.bit_length() - 2) + s
            m ^= low
    if count_need:
        target |= _COUNT_BIT
    short = hand_melds(live_bits, wilds, per_card, count_need, 0)
    chosen = pack_cover(short, target, wilds, COVER_NODES)
    if not isinstance(chosen, list):
        return chosen
    melds, unmelded = _pack_layout(cards, chosen, wilds - sum(m[1] for m in chosen), counts)
    return _arrangement(melds, unmelded)
