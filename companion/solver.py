"""The best arrangement of a hand: exact minimum count, fast.

A player's count is the minimum, over every way to lay the hand out as
disjoint melds, of the counts of the cards left over (INTERPRETATION.md).
Trying every partition explodes past ~30 cards, and the spread-out discard
pile and the three-card draw make hands that large real, so this module uses a
dynamic programme over sequence positions A(low)=1, 2 .. K=13, A(high)=14.

First the cheap steps: cards that can never meld in this hand (no partner of
their rank, no suit neighbours, too few WILDs) are set aside.  Then, by size:

* up to ``SMALL_HAND`` natural cards that could meld: an exact memoised
  search over melds of 3 to 5 cards (``companion.solver_pack``), much
  faster than the DP for the hands people hold;
* bigger hands first look for a layout melding every card that could ever
  meld (``pack_cover``, a few hundred steps at most): when there is one, no
  layout can do better.  Big hands usually have one.
* otherwise the live cards split into clusters that can never share a
  meld.  Clusters of one or two cards are answered directly; each bigger one
  runs the DP for every number of WILDs it may use, and a tiny knapsack
  shares the WILDs out (COUNT cards form their own COUNT group with WILDs).
  Big clusters run the DP with a cost limit that widens only as needed
  (``_search_widening``), each pass pruned by an A* bound from a relaxed DP
  run the other way (``_suffix_bounds``).

DP state after a position (everything to its left decided):

* for each suit, the length of the sequence currently running through that
  suit, capped at "3 or more" (0, 1, 2, 3) -- a run of 1 or 2 must go on;
* how many WILDs the melds so far use (0..3);
* whether any meld exists yet (spare WILDs can then always be placed, see
  ``_place_spare_wilds``);
* which aces are still waiting: an ace not in a low sequence waits for
  position 14, where it may end a high sequence, join the group of aces, or
  stay unmelded.

At each position every suit's cell is filled by its natural card, by a WILD,
or left empty; the natural cards of that rank not used in sequences either
form one group (topped up with WILDs to three cards) or stay unmelded.  That
is at most 4^4 run states x 4 WILD budgets x 2 x 16 ace masks, and states
another state dominates are dropped, so the work is polynomial.

Why this is exact:

* two sequences of one suit never need to overlap (merging them frees WILDs,
  which always find a place), so one run per suit suffices;
* a sequence with fewer than two natural cards may as well be a group, so a
  WILD only fills a sequence cell within two places of a natural card of its
  suit, and only gaps or the one extension a two-card run needs;
* a WILD never fills a cell whose natural card is held: swap the two;
* spare WILDs cost nothing once any meld exists: a group or a COUNT group
  takes any number, a sequence shorter than 14 grows, and a 14-card sequence
  (it always holds a WILD at one end) gives up its end cards to a group.

``tests/test_solver.py`` checks all this against a brute-force search, and
``tests/test_solver_fast.py`` the fast paths against the plain DP.
NO MELD 0/2 and CAN'T DECLARE 0 never meld.  The result is deterministic: the
hand is sorted first and ties between equally good layouts are broken by a
fixed search order.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Iterable

from .cards import (ALL_KINDS, RANKS, SUITS, WILD, WILD_COPIES, Card, _BY_CODE,
                    check_duplicates, parse_card)
from .errors import RummyError
from .melds import (SEQUENCE, Meld, check_meld, make_count_group, make_group,
                    make_sequence)
from .solver_pack import (_COUNT_BIT, build_melds, hand_melds, pack_cover,
                          pack_search)

#: Going-out search weight: each unmelded card costs this much more than its
#: count, so the fewest unmelded cards win first and the count breaks ties.
_PER_CARD = 1000

GOING_OUT_RULES = ("standard", "major", "minor")

#: Hands with at most this many natural cards that could meld are solved by
#: the search over short melds (``companion.solver_pack``); bigger ones by
#: the position DP below.
SMALL_HAND = 20
#: ... unless they have 16 or more and over this many melds of 3 to 5 cards.
SMALL_MELDS = 64
#: Bigger hands first look for a layout melding every card that could ever
#: meld, giving up after this many search steps per card order (0: never).
COVER_NODES = 150
#: Prune the DP passes of big clusters with ``_suffix_bounds`` (A*).
ASTAR = True
#: A big cluster whose DP pass found nothing within its cost limit tries again
#: with the limit this many times wider (a pass costs more the wider its
#: limit: the last one stays within this factor of the cheapest that works).
WIDEN_GROWTH = 1.5


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


# ---------------------------------------------------------------------------
# static tables over the 256 run states (2 bits per suit)
def _build_tables():
    nxt = [[0] * 16 for _ in range(256)]
    done = [[False] * 16 for _ in range(256)]
    must = [0] * 256
    for runs in range(256):
        for s in range(4):
            if (runs >> (2 * s)) & 3 in (1, 2):
                must[runs] |= 1 << s
        for fill in range(16):
            new, reached = 0, False
            for s in range(4):
                r = (runs >> (2 * s)) & 3
                if fill >> s & 1:
                    r2 = min(r + 1, 3)
                    reached |= r2 == 3 and r < 3 or r == 3
                    new |= r2 << (2 * s)
            nxt[runs][fill] = new
            done[runs][fill] = reached
    return nxt, done, must


_NEXT, _REACHED, _MUST = _build_tables()
_REACHED10 = [[1024 if x else 0 for x in row] for row in _REACHED]


def _build_dominance():
    """``_DOM[x] >> y & 1`` when run state x is at least as good as y in every
    suit: a run of 3+ can do whatever any run can (stop, or go on), and a run
    of 2 whatever a run of 1 can (it must go on, and then is longer)."""
    better = {(a, b) for a in range(4) for b in range(4)
              if a == b or a == 3 or (a, b) == (2, 1)}
    dom = []
    for x in range(256):
        bits = 0
        for y in range(256):
            if all(((x >> 2 * s) & 3, (y >> 2 * s) & 3) in better for s in range(4)):
                bits |= 1 << y
        dom.append(bits)
    strength = [sum((0, 0, 1, 2)[(x >> 2 * s) & 3] for s in range(4)) for x in range(256)]
    return dom, strength


_DOM, _STRENGTH = _build_dominance()


_SUPERSETS = [tuple(x for x in range(16) if x & m == m) for m in range(16)]


def _prune(states: dict[int, int], ace_cost: int) -> dict[int, int]:
    """Drop states another state dominates (the same states as
    ``_prune_reference``, found with bit sets instead of pairwise checks).

    States are taken cheapest first (ties: the stronger first), and each
    one kept marks, for every ace mask it covers and every WILD count it
    may stand for, the run states it dominates (one big-int bit set per
    (ace mask, WILDs, meld flag)); a later state is dropped when its own
    run state is marked for its ace mask, WILDs and meld flag."""
    tie = _PRUNE_TIE
    order = sorted([((cost + _POPCOUNT[key >> 11] * ace_cost) << 10 | tie[key]) << 15 | key
                    for key, cost in states.items()])
    with_meld = [[0, 0, 0, 0] for _ in range(16)]     # [ace mask][WILDs] (meld flag 1)
    no_meld = [[0, 0, 0, 0] for _ in range(16)]       # the same, meld flag 0
    dom = _DOM
    out = {}
    for x in order:
        key = x & 32767
        runs, u, am = key & 255, (key >> 8) & 3, key >> 11
        if key & 1024:
            if with_meld[am][u] >> runs & 1:
                continue
            d = dom[runs]
            for sub in _SUBSETS[am]:
                row = with_meld[sub]
                for uu in range(u, 4):
                    row[uu] |= d
        else:
            if (with_meld[am][u] | no_meld[am][u]) >> runs & 1:
                continue
            d = dom[runs]
            for sub in _SUBSETS[am]:
                no_meld[sub][u] |= d
        out[key] = states[key]
    return out


def _prune_tie_table() -> list[int]:
    """Per state key, the tie-break of ``_prune_reference``'s order packed
    in 10 bits: fewer WILDs, a meld, stronger runs, more aces kept first."""
    out = []
    for key in range(1 << 15):
        u, m = (key >> 8) & 3, (key >> 10) & 1
        out.append(((u * 2 + (1 - m)) * 16 + (8 - _STRENGTH[key & 255])) * 8
                   + (4 - _POPCOUNT_4[key >> 11]))
    return out


_POPCOUNT_4 = [bin(i).count("1") for i in range(16)]
_PRUNE_TIE = _prune_tie_table()
_SUBSETS = [tuple(x for x in range(16) if x & m == x) for m in range(16)]


def _prune_reference(states: dict[int, int], ace_cost: int) -> dict[int, int]:
    """Drop states another state dominates (the plain pairwise version).

    X dominates Y when its run states are at least as good, it has kept
    every ace Y kept for A high (and maybe more), its cost counting every
    kept ace as unmelded is no higher, and either it used the same WILDs and
    has a meld if Y has one, or it has a meld already and used no more WILDs
    (spare WILDs are then free)."""
    def pessimistic(k):
        return states[k] + _POPCOUNT[k >> 11] * ace_cost

    order = sorted(states, key=lambda k: (pessimistic(k), (k >> 8) & 3, -((k >> 10) & 1),
                                          -_STRENGTH[k & 255], -_POPCOUNT[k >> 11], k))
    kept: list[list[tuple[int, int, int]]] = [[] for _ in range(16)]
    out = {}
    for key in order:
        runs, u, m, am = key & 255, (key >> 8) & 3, (key >> 10) & 1, key >> 11
        for sup in _SUPERSETS[am]:
            for kr, ku, km in kept[sup]:
                if _DOM[kr] >> runs & 1 and (ku == u and km >= m or km and ku <= u):
                    break
            else:
                continue
            break
        else:
            kept[am].append((runs, u, m))
            out[key] = states[key]
    return out
_POPCOUNT = [bin(i).count("1") for i in range(16)]
_SUIT_BIT = {s: i for i, s in enumerate(SUITS)}


_INDEX = attrgetter("index")
#: _CARD_AT[rank][suit number] -> the regular card (rank 1..13; 14 is the ace)
_CARD_AT = [None] + [[_BY_CODE[RANKS[r - 1] + SUITS[st]] for st in range(4)]
                     for r in range(1, 14)]
_CARD_AT.append(_CARD_AT[1])
_WILD_INDEX = WILD.index
_COUNT_OF = tuple(c.count for c in ALL_KINDS)


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
def _solve(cards: list[Card], per_card: int, out_only: bool = False) -> Arrangement | None:
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
    _, chosen, k, cmeld, www, rem = best

    melds: list[Meld] = []
    unmelded: list[Card] = list(fixed)
    for opt in chosen:
        _rebuild(opt, melds, unmelded)
    if cmeld:
        melds.append(make_count_group(counts, k))
    else:
        unmelded.extend(counts)
    spare = rem
    if www:
        melds.append(make_group((), 3))
        spare = 0
    if melds:
        melds = _place_spare_wilds(melds, spare)
    else:
        unmelded.extend([WILD] * spare)
    unmelded.sort(key=_INDEX)
    melds.sort(key=lambda m: (m.cards[0].index, len(m.cards)))
    return Arrangement(tuple(melds), tuple(unmelded), sum(c.count for c in unmelded))


def _solve_small(cards: list[Card], live_bits: list[int], wilds: int, counts: list[Card],
                 per_card: int, always: bool) -> Arrangement | None:
    """The exact answer by the search over short melds (``solver_pack``);
    None (unless ``always``) when the hand has so many melds that the
    search would be slow (dense hands: the cover search and the DP do
    better there)."""
    nc = len(counts)
    count_weight = sum(per_card + c.count for c in counts) if 0 < nc < 3 else 0
    melds = hand_melds(live_bits, wilds, per_card, 3 - nc if 0 < nc < 3 else 0, count_weight)
    if not always and len(melds) > SMALL_MELDS:
        return None
    covered, used, chosen = pack_search(melds, wilds)
    return _finish(cards, chosen, wilds - used, counts)


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
    melds = hand_melds(live_bits, wilds, per_card, count_need, 0)
    chosen = pack_cover(melds, target, wilds, COVER_NODES)
    if not isinstance(chosen, list):
        return chosen
    return _finish(cards, chosen, wilds - sum(m[1] for m in chosen), counts)


def _finish(cards: list[Card], chosen: list, spare: int, counts: list[Card]) -> Arrangement:
    """The arrangement from the short melds chosen: the COUNT group, the
    cards left over, the spare WILDs placed."""
    nc = len(counts)
    melds, held = build_melds(chosen, _CARD_AT, counts)
    if nc >= 3:
        melds.append(make_count_group(counts, 0))
    unmelded = []
    for c in cards:
        i = c.index
        if i < 52:
            if not held >> (4 * (i % 13) + i // 13) & 1:
                unmelded.append(c)
        elif i == _WILD_INDEX:
            pass
        elif i < 58:
            if not held & _COUNT_BIT and nc < 3:
                unmelded.append(c)
        else:
            unmelded.append(c)
    if melds:
        melds = _place_spare_wilds(melds, spare)
    elif spare == 3:
        melds = [make_group((), 3)]
    else:
        unmelded.extend([WILD] * spare)
    if len(melds) > 1:
        melds.sort(key=_MELD_ORDER)
    return Arrangement(tuple(melds), tuple(unmelded), sum(_COUNT_OF[c.index] for c in unmelded))


def _meld_order(m: Meld):
    return (m.cards[0].index, len(m.cards))


_MELD_ORDER = _meld_order
_POPCOUNT14 = [bin(i).count("1") for i in range(1 << 14)]


def _first_limit(cluster, wilds: int, per_card: int, start: int = 0) -> int | None:
    """The first cost limit for a cluster's DP (None: no limit).  Any choice
    gives the same answer (see _search_widening); this one is just fast:
    small clusters need none, and big ones (big hands) usually meld every
    card, so they first look for layouts costing ``start`` (0) or less."""
    return None if len(cluster[0]) < 16 else start


def _widen(lim: int, per_card: int) -> int:
    """The limit after ``lim`` when a DP pass found nothing that cheap."""
    return max(int(WIDEN_GROWTH * lim), lim + per_card + 1, 2)


def _search_widening(clusters, wilds, per_card, count_options, weight_wild, start=0):
    """Solve every cluster exactly, with cost limits that widen only as needed.

    A cluster solved with a limit keeps only states no dearer than it, so it
    knows exactly every option costing no more than the limit.  A cluster
    with no option that cheap is solved again with a wider limit (see
    ``WIDEN_GROWTH``), and with no limit past 64 cards' worth.  Once the
    best total F is known, cluster i's part of an optimal layout costs at
    most F minus every other cluster's minimum and the least the COUNT
    cards can cost; any cluster whose limit was below that bound is solved
    again with the bound, after which the answer is exact."""
    limits = [_first_limit(c, wilds, per_card, start) for c in clusters]
    options: list = [None] * len(clusters)
    todo = set(range(len(clusters)))
    extra_least = min(cc for k, cc, _ in count_options if k <= wilds)
    while True:
        for i in sorted(todo):
            options[i] = _cluster_options(clusters[i], wilds, per_card, limits[i])
            while not options[i] and limits[i] is not None:
                lim = _widen(limits[i], per_card)
                limits[i] = lim if lim <= 64 * (per_card + 1) else None
                options[i] = _cluster_options(clusters[i], wilds, per_card, limits[i])
        best = _search(options, wilds, count_options, weight_wild)
        if best is None:        # the cheap layouts need more WILDs than there are
            todo = {i for i, lim in enumerate(limits) if lim is not None}
            for i in todo:
                limits[i] = None
            continue
        mins = [min(o[0] for o in opts.values()) for opts in options]
        total_min = sum(mins)
        todo = set()
        for i, lim in enumerate(limits):
            bound = best[0] - (total_min - mins[i]) - extra_least
            if lim is not None and bound > lim:
                limits[i] = bound
                todo.add(i)
        if not todo:
            return best
        for i in sorted(todo):
            extra = _rest_extra(i, options, limits, count_options, wilds,
                                total_min - mins[i] + extra_least)
            options[i] = _cluster_options(clusters[i], wilds, per_card, limits[i], extra)
        todo = set()


def _rest_extra(i: int, options: list, limits: list, count_options, wilds: int,
                least: int) -> list | None:
    """For a cluster solved again with a wider limit: ``extra[u]``, how much
    more than ``least`` (the sum of their minimums, which the limit already
    allows for) the rest of the hand must cost when this cluster uses u
    WILDs and leaves the rest at most wilds - u.  None unless every other
    cluster knows all its options (no limit), which this needs."""
    table = {0: 0}
    for j, opts in enumerate(options):
        if j == i:
            continue
        if limits[j] is not None:
            return None
        new: dict[int, int] = {}
        for u1, c1 in table.items():
            for (u2, _m), opt in opts.items():
                u, c = u1 + u2, c1 + opt[0]
                if u <= wilds and c < new.get(u, 1 << 60):
                    new[u] = c
        table = new
    least_by = [1 << 60] * (wilds + 1)
    for u1, c1 in table.items():
        for k, ccost, _meld in count_options:
            u, c = u1 + k, c1 + ccost
            if u <= wilds and c < least_by[u]:
                least_by[u] = c
    for k in range(1, wilds + 1):
        least_by[k] = min(least_by[k], least_by[k - 1])
    return [max(0, least_by[wilds - u] - least) for u in range(wilds + 1)]


def _search(options, wilds, count_options, weight_wild):
    """Best (cost beyond the fixed cards, chosen options, COUNT WILDs, COUNT
    group?, WWW group?, spare WILDs), sharing the WILDs out between the
    clusters (each option is keyed by WILDs used and whether it melds)."""
    table: dict[tuple[int, int], tuple[int, tuple]] = {(0, 0): (0, ())}
    for opts in options:
        new: dict[tuple[int, int], tuple[int, tuple]] = {}
        for (u1, m1), (c1, ch1) in table.items():
            for (u2, m2), opt in opts.items():
                u = u1 + u2
                if u > wilds:
                    continue
                k = (u, m1 | m2)
                c = c1 + opt[0]
                if k not in new or c < new[k][0]:
                    new[k] = (c, ch1 + (opt,))
        table = new
    best = None
    for (u, m), (cost, chosen) in table.items():
        for k, ccost, cmeld in count_options:
            rem = wilds - u - k
            if rem < 0:
                continue
            www = rem == 3 and not m and not cmeld
            spare_free = m or cmeld or www
            total = cost + ccost + (0 if spare_free else rem * weight_wild)
            if best is None or total < best[0]:
                best = (total, chosen, k, cmeld, www, rem)
    return best


def _clusters(cells: list[tuple[int, int]], live: list[int], wilds: int) -> list:
    """Split the live natural cards (rank, suit) into clusters that can never
    share a meld: cards are linked when they have the same rank, or the same
    suit and are at most ``wilds + 1`` places apart (aces sit at both 1 and
    14).  Returns (cells, per-rank suit masks with 14 mirroring 1) per cluster."""
    reach = wilds + 1
    parent = {r * 4 + s: r * 4 + s for r, s in cells}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    for r in range(1, 14):          # one rank: link every suit to the first
        m = live[r]
        if m & (m - 1):
            first = (m & -m).bit_length() - 1
            for s in range(first + 1, 4):
                if m >> s & 1:
                    union(r * 4 + first, r * 4 + s)
    for s in range(4):              # one suit: link neighbours within reach
        bit = 1 << s
        prev = None
        for p in range(1, 15):
            r = 1 if p == 14 else p
            if live[r] & bit:
                if prev is not None and p - prev <= reach:
                    union((1 if prev == 14 else prev) * 4 + s, r * 4 + s)
                prev = p
    groups: dict[int, list] = {}
    for r, s in cells:
        groups.setdefault(find(r * 4 + s), []).append((r, s))
    out = []
    for group in groups.values():
        masks = [0] * 15
        for r, s in group:
            masks[r] |= 1 << s
        masks[14] = masks[1]
        out.append((group, masks))
    return out


def _cluster_options(cluster, wilds: int, per_card: int, limit=None, extra=None) -> dict:
    """(WILDs used, any meld) -> (cost, how) for one cluster.  One or two
    cards are answered directly; bigger clusters run the DP.  With ``extra``
    (see ``_rest_extra``) an option using u WILDs is only sure to be found
    when it costs at most ``limit - extra[u]``, which is all the search
    needs."""
    cells, comp = cluster
    if len(cells) <= 2:
        cards = [_CARD_AT[r][s] for r, s in cells]
        weights = [per_card + c.count for c in cards]
        opts = {(0, 0): (sum(weights), "fixed", (), tuple(cards))}
        if wilds >= 2:        # the dearer card melds with two WILDs
            hi = max(range(len(cards)), key=lambda i: (weights[i], i))
            opts[(2, 1)] = (sum(weights) - weights[hi], "fixed",
                            ((cards[hi],), 2), tuple(cards[:hi] + cards[hi + 1:]))
        if len(cards) == 2:
            need = _pair_wilds(*cells)
            if need <= wilds:
                opts[(need, 1)] = (0, "fixed", (tuple(cards), need), ())
        return opts
    bounds = None
    if limit and ASTAR and len(cells) >= 16:
        bounds = _suffix_bounds(comp, wilds, per_card, limit)
    finals, ctx = _dp(comp, wilds, per_card, limit, bounds=bounds, extra=extra)
    opts = {}
    for key, cost in finals.items():
        k = ((key >> 8) & 3, (key >> 10) & 1)
        if k not in opts or cost < opts[k][0]:
            opts[k] = (cost, "dp", ctx, key)
    return opts


def _pair_wilds(a: tuple[int, int], b: tuple[int, int]) -> int:
    """WILDs two live cards (rank, suit) need to make one meld together
    (99 if they cannot): one for a pair of a rank, one for suit neighbours
    one or two apart, and one per further gap place."""
    (ra, sa), (rb, sb) = a, b
    if ra == rb:
        return 1
    if sa != sb:
        return 99
    gap = min(abs(pa - pb) for pa in ((ra, 14) if ra == 1 else (ra,))
              for pb in ((rb, 14) if rb == 1 else (rb,)))
    return max(1, gap - 1)


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


def _combos(nat: int, wok: int):
    """Every way to fill the four cells of one position:
    (filled mask, natural mask, WILD mask, WILDs used).

    A WILD never fills a cell whose natural card is held: swapping it with
    that card, wherever the card went, changes nothing or helps."""
    out = [(0, 0, 0, 0)]
    for s in range(4):
        bit = 1 << s
        add = []
        for fill, n, wm, w in out:
            if nat & bit:
                add.append((fill | bit, n | bit, wm, w))
            elif wok & bit:
                add.append((fill | bit, n, wm | bit, w + 1))
        out.extend(add)
    return out


def _tables_ge():
    ge1, eq2 = [0] * 256, [0] * 256
    for runs in range(256):
        for s in range(4):
            r = (runs >> 2 * s) & 3
            if r >= 1:
                ge1[runs] |= 1 << s
            if r == 2:
                eq2[runs] |= 1 << s
    return ge1, eq2


_GE1, _EQ2 = _tables_ge()


_PLANS: dict[int, tuple] = {}   # at most 14 x 16 x 16 x 2 x 2 plans, built on demand


def _plan(p: int, nat: int, with_wilds: bool, per_card: int, mirror: bool = False):
    """Everything about position p that does not depend on the state:
    the cell fillings and, per mask of natural cards left over, the group
    options (natural mask grouped, WILDs added, cost now, aces kept).

    ``mirror``: the positions run K..2 (p = 15 - rank) for ``_suffix_bounds``,
    and aces not in a sequence at position 1 are dropped at no cost."""
    combos = _combos(nat, 15 if with_wilds else 0)
    rank = 1 if p == 14 else (15 - p if mirror and p > 1 else p)
    gopts = {}
    for left in {nat & ~n for _, n, _, _ in combos}:
        if p == 14:
            gopts[left] = _POPCOUNT[left] * (per_card + 1)
        elif p == 1 and mirror:
            gopts[left] = ((0, 0, 0, 0),)
        elif p == 1:
            # aces not in a low sequence wait for position 14, where they
            # may end a high sequence, form the group of aces, or stay unmelded
            gopts[left] = ((0, 0, 0, left),)
        elif not left:
            gopts[left] = ((0, 0, 0, 0),)
        else:
            g = _POPCOUNT[left]
            opts = [(left, max(0, 3 - g), 0, 0)]
            if g < 3:   # three or more of a rank always group
                opts.append((0, 0, g * (per_card + rank), 0))
            gopts[left] = tuple(opts)
    return (tuple(combos), gopts, {}, p, nat, per_card)


def _ace_group_options(left: int, ace_cost: int) -> tuple:
    """At position 14, the aces not in any sequence: (grouped mask, WILDs<<8,
    cost, meld flag<<10) -- the group of aces (topped up with WILDs to three),
    or, short of three aces, unmelded."""
    if not left:
        return ((0, 0, 0, 0),)
    g = _POPCOUNT[left]
    opts = [(left, max(0, 3 - g) << 8, 0, 1024)]
    if g < 3:
        opts.append((0, 0, g * ace_cost, 0))
    return tuple(opts)


def _transitions(plan, allow: int, need: int, free: int):
    """The moves a state may make at a position, flattened:
    (filled cells, WILDs used<<8, kept aces<<11 | meld flag<<10, cost,
    (filled, natural, grouped, WILDs in group) for the back pointer); at
    position 14 the third field is the natural mask.  Every run of 1 or 2
    goes on, WILDs go only in allowed cells, and no more than are left."""
    combos, gopts, cache, p, _nat, _per_card = plan
    key = allow << 8 | need << 4 | free
    out = cache.get(key)
    if out is None:
        out = []
        for fill, n, wm, w in combos:
            if fill & need != need or w > free or wm & ~allow:
                continue
            if p == 14:
                out.append((fill, w << 8, n, 0, (fill, n, 0, 0)))
                continue
            for gmask, k, gc, defer in gopts[plan[4] & ~n]:
                if w + k <= free:
                    out.append((fill, (w + k) << 8, defer << 11 | (1024 if gmask else 0), gc,
                                (fill, n, gmask, k)))
        out = cache[key] = tuple(out)
    return out


def _dp(comp: list[int], wilds: int, per_card: int, limit: int | None = None,
        mirror: bool = False, bounds: list | None = None, extra: list | None = None):
    """Run the position DP over one cluster; return (final state -> cost, context).

    States costing more than ``limit`` are dropped (see ``_search_widening``).
    ``bounds`` (from ``_suffix_bounds``, with the same limit): a state after
    position p that has used u WILDs is also dropped when its cost plus the
    least the positions after p can cost with the other WILDs exceeds the
    limit (A*: that bound never overestimates, so no layout within the limit
    is lost).  ``extra[u]`` (see ``_rest_extra``) lowers the limit of states
    that have used u WILDs (u never decreases along a layout).  ``mirror``:
    the pass ``_suffix_bounds`` runs on the mirrored cluster, which returns
    those least costs instead.
    WILDs enter sequences only where a canonical optimal layout needs them:
    filling a gap before a natural card of the run still within reach, or
    the one cell that makes a two-card run three long (above it, or below
    it for K A high)."""
    keepable = comp[1]
    nat_at = comp[:14] + [keepable, 0, 0, 0]
    used = [p for p in range(1, 15) if nat_at[p]]
    lo, hi = used[0], used[-1]
    if wilds:
        hi = min(14, hi + 1)
        if nat_at[13] & keepable:
            lo = min(lo, 12)
    if mirror:
        hi = min(hi, 13)    # the aces at 14 belong to the forward pass
    positions = range(lo, hi + 1)
    ace_cost = per_card + 1
    if limit is None:
        limit = 1 << 60
    ace_opts: dict[int, tuple] = {}
    states = {0: 0}
    back = []
    idle = True             # every state has all runs ended
    full8 = wilds << 8
    least = [None] * 15     # mirror: per position, least cost per WILDs used
    caps = [limit] * 4
    zero_after = [0] * (wilds + 1)
    for p in positions:
        nat = nat_at[p]
        if bounds is not None or extra is not None:
            after = bounds[14 - p] if bounds is not None else zero_after
            # a layout whose WILDs come to t in all uses t - u after p
            ex = extra or zero_after
            caps = [limit - min(after[t - u] + ex[t] for t in range(u, wilds + 1))
                    if u <= wilds else -1 for u in range(4)]
        if idle and not nat and not (p == 12 and nat_at[13] & keepable):
            back.append(None)   # nothing can happen here: states pass through
            if mirror:
                least[p] = _least_by_wilds(states, wilds)
            continue
        pk = (((p << 4 | nat) << 1 | (wilds > 0)) << 1 | (per_card > 0)) << 1 | mirror
        plan = _PLANS.get(pk)
        if plan is None:
            plan = _PLANS[pk] = _plan(p, nat, wilds > 0, per_card, mirror)
        ahead = (0, nat_at[p + 1], nat_at[p + 1] | nat_at[p + 2],
                 nat_at[p + 1] | nat_at[p + 2] | nat_at[p + 3])
        start12 = nat_at[13] & keepable if p == 12 else 0
        new: dict[int, int] = {}
        ptr: dict[int, tuple] = {}
        fcache = plan[2]
        local: dict[int, tuple] = {}
        for key, cost in states.items():
            low = key & 1023
            got = local.get(low)
            if got is None:
                runs = key & 255
                free = wilds - (low >> 8)
                ge1 = _GE1[runs]
                allow = (ge1 & ahead[free if free < 3 else 3]) | _EQ2[runs] | (start12 & ~ge1)
                ck = allow << 8 | _MUST[runs] << 4 | free
                trans = fcache.get(ck)
                if trans is None:
                    trans = _transitions(plan, allow, _MUST[runs], free)
                got = local[low] = (trans, _NEXT[runs], _REACHED10[runs], low & 768)
            trans, nxt, r10, u8 = got
            if p == 14:
                am = key >> 11
                for fill, wk8, n, _c, _info in trans:
                    if n & ~am:
                        continue
                    left = am & ~n
                    opts = ace_opts.get(left)
                    if opts is None:
                        opts = ace_opts[left] = _ace_group_options(left, ace_cost)
                    for gmask, k8, gc, f10 in opts:
                        uu8 = u8 + wk8 + k8
                        if uu8 > full8:
                            continue
                        c = cost + gc
                        if c > limit:
                            continue
                        nk = nxt[fill] | uu8 | (key & 1024) | r10[fill] | f10
                        if uu8 == full8:
                            nk |= 1024
                        old = new.get(nk)
                        if old is None or c < old:
                            new[nk] = c
                            ptr[nk] = (key, (fill, n, gmask, k8 >> 8))
                continue
            hi_bits = key & ~1023
            for fill, wk8, orb, gc, info in trans:
                c = cost + gc
                if c > limit:
                    continue
                nk = nxt[fill] | (u8 + wk8) | hi_bits | orb | r10[fill]
                if c > caps[(nk >> 8) & 3]:
                    continue
                if nk & 768 == full8:
                    nk |= 1024      # every WILD used: no spares, the meld flag is moot
                old = new.get(nk)
                if old is None or c < old:
                    new[nk] = c
                    ptr[nk] = (key, info)
        states = _prune(new, ace_cost) if len(new) > 48 else new
        back.append(ptr)
        idle = not any(k & 255 for k in states)
        if mirror:
            least[p] = _least_by_wilds(states, wilds)
    if mirror:
        # least[q]: the least cost of mirrored positions 1..q (original
        # positions 15-q..14), by WILDs allowed; before any position, 0
        out = [[0] * (wilds + 1)]
        for q in range(1, 15):
            out.append(least[q] if least[q] is not None else out[-1])
        return out
    finals = {k: c for k, c in states.items() if not _MUST[k & 255] and not k >> 11}
    return finals, (positions, back, comp, keepable)


def _least_by_wilds(states: dict[int, int], wilds: int) -> list:
    """The least cost of any state using at most k WILDs, for k = 0..wilds
    (a huge number where there is none)."""
    best = [1 << 60] * (wilds + 1)
    for key, cost in states.items():
        u = (key >> 8) & 3
        if cost < best[u]:
            best[u] = cost
    for k in range(1, wilds + 1):
        if best[k - 1] < best[k]:
            best[k] = best[k - 1]
    return best


def _suffix_bounds(comp: list[int], wilds: int, per_card: int, limit: int) -> list:
    """For the A* pruning of ``_dp``: ``bounds[14 - p][k]`` never exceeds
    what the cards after position p cost in any layout of the cluster
    costing at most ``limit`` in which they use at most k WILDs.

    It is the DP run the other way (K down to 2: sequences and groups read
    the same backwards, so the mirrored cluster is solved by the same
    code), relaxed so that it stays small and can only underestimate:
    it starts from nothing (runs may come in from the left for free), the
    aces at A high may join a sequence at no cost and are never counted,
    and a state's cost only counts cards after p."""
    mirrored = [0] + [comp[15 - q] for q in range(1, 15)]
    return _dp(mirrored, wilds, per_card, limit, mirror=True)


def _rebuild(opt, melds: list[Meld], unmelded: list[Card]) -> None:
    """Turn one cluster's chosen option into melds and leftovers."""
    if opt[1] == "fixed":
        if opt[2]:
            naturals, k = opt[2]
            if len(naturals) == 1 or naturals[0].rank == naturals[1].rank:
                melds.append(make_group(naturals, k))
            else:
                melds.append(check_meld(list(naturals) + [WILD] * k))
        unmelded.extend(opt[3])
        return
    _, _, (positions, back, comp, keepable), key = opt
    steps = []
    for i in range(len(positions) - 1, -1, -1):
        if back[i] is None:
            steps.append((positions[i], 0, 0, 0, 0))
            continue
        prev, (fill, n, gmask, k) = back[i][key]
        steps.append((positions[i], fill, n, gmask, k))
        key = prev
    steps.reverse()
    cells: list[list[tuple[int, bool]]] = [[] for _ in range(4)]
    kept_aces = 0
    for p, fill, n, gmask, k in steps:
        rank = 1 if p == 14 else p
        for s in range(4):
            if fill >> s & 1:
                cells[s].append((p, bool(n >> s & 1)))
        if not (comp[p] or fill or (p == 14 and kept_aces)):
            continue
        natural = _CARD_AT[rank]
        rest = (kept_aces if p == 14 else comp[p]) & ~n & ~gmask
        if gmask:
            melds.append(make_group([natural[s] for s in range(4) if gmask >> s & 1], k))
        if p == 1:
            kept_aces, rest = rest, 0
        unmelded.extend(natural[s] for s in range(4) if rest >> s & 1)
    for s in range(4):
        run: list[tuple[int, bool]] = []
        for cell in cells[s] + [(99, False)]:
            if run and cell[0] != run[-1][0] + 1:
                melds.append(make_sequence(SUITS[s], run[0][0], [nat for _, nat in run]))
                run = []
            run.append(cell)


def _place_spare_wilds(melds: list[Meld], spare: int) -> list[Meld]:
    """Give spare WILDs a meld (they count 0 there instead of 20 each).

    Any group or COUNT group takes them; otherwise a sequence shorter than 14
    grows at its top (or bottom, at A high); otherwise every sequence is 14
    long and so holds a WILD at one end: that end and its neighbour leave the
    sequence and, with the spare WILDs, form a group.
    """
    if not spare or not melds:
        return melds
    for i, m in enumerate(melds):
        if m.kind != SEQUENCE:
            melds[i] = Meld(m.kind, m.cards + (WILD,) * spare, m.stands_for + (None,) * spare)
            return melds
    for i, m in enumerate(melds):
        n = len(m.cards)
        if n + spare <= 14:
            flags = [not c.is_wild for c in m.cards]
            top_room = 14 - (m.start + n - 1)
            up = min(spare, top_room)
            down = spare - up
            melds[i] = make_sequence(m.suit, m.start - down, [False] * down + flags + [False] * up)
            return melds
    m = melds[0]
    flags = [not c.is_wild for c in m.cards]
    if m.cards[-1].is_wild:      # WILD as A high: K and that WILD join the spares
        group_cards, rest, start = [m.cards[-2]], flags[:-2], m.start
    else:                        # WILD as A low: 2 and that WILD join the spares
        group_cards, rest, start = [m.cards[1]], flags[2:], m.start + 2
    natural = [c for c in group_cards if not c.is_wild]
    wilds = spare + 1 + (len(group_cards) - len(natural))
    melds[0] = make_sequence(m.suit, start, rest)
    melds.append(make_group(natural, wilds))
    return melds
