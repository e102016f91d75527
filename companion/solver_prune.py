"""Dominance between position-DP states, and dropping the dominated ones.

The position DP (``companion.solver_dp``) keeps, after each position, one
cost per state; without pruning the states would multiply with every way of
using WILDs and keeping aces.  Many are useless: another state is at least
as good in every respect and no dearer.  Dropping those loses no optimal
layout and keeps the work polynomial, so the DP prunes whenever a position
leaves more than a few dozen states.

A state key packs, from bit 0: the run length of each suit in 2 bits (0, 1,
2, "3 or more"; bits 0-7), the WILDs used (bits 8-9), "some meld exists"
(bit 10) and the aces kept waiting for A high (bits 11-14).

``_prune_reference`` states the dominance rule plainly, pair by pair;
``_prune`` drops exactly the same states with bit sets, fast enough for
the DP's inner loop (``tests/test_solver_fast.py`` checks they agree).
"""

from __future__ import annotations


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

_POPCOUNT = [bin(i).count("1") for i in range(16)]
_SUPERSETS = [tuple(x for x in range(16) if x & m == m) for m in range(16)]
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


def _prune_tie_table() -> list[int]:
    """Per state key, the tie-break of ``_prune_reference``'s order packed
    in 10 bits: fewer WILDs, a meld, stronger runs, more aces kept first."""
    out = []
    for key in range(1 << 15):
        u, m = (key >> 8) & 3, (key >> 10) & 1
        out.append(((u * 2 + (1 - m)) * 16 + (8 - _STRENGTH[key & 255])) * 8
                   + (4 - _POPCOUNT[key >> 11]))
    return out


_PRUNE_TIE = _prune_tie_table()


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
