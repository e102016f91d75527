"""Turning the searches' choices back into melds and leftover cards.

The searches work on bit masks and back pointers, not cards: the small-hand
and cover searches (``companion.solver_pack``) choose short melds as masks,
and each cluster's option (``companion.solver_clusters``) is either a fixed
answer or a final DP state whose back pointers hold every position's moves.
This module rebuilds from those the melds and leftovers a player sees, and
gives spare WILDs a meld: every search counts them as free once any meld
exists, and ``_place_spare_wilds`` is why that is true.
"""

from __future__ import annotations

from operator import attrgetter

from .cards import RANKS, SUITS, WILD, Card, _BY_CODE
from .melds import (SEQUENCE, Meld, check_meld, make_count_group, make_group,
                    make_sequence)
from .solver_pack import _COUNT_BIT, build_melds

_INDEX = attrgetter("index")
_WILD_INDEX = WILD.index
#: _CARD_AT[rank][suit number] -> the regular card (rank 1..13; 14 is the ace)
_CARD_AT = [None] + [[_BY_CODE[RANKS[r - 1] + SUITS[st]] for st in range(4)]
                     for r in range(1, 14)]
_CARD_AT.append(_CARD_AT[1])


def _meld_order(m: Meld):
    """Melds are shown by their lowest card, the shorter first."""
    return (m.cards[0].index, len(m.cards))


def _pack_layout(cards: list[Card], chosen: list, spare: int,
                 counts: list[Card]) -> tuple[list[Meld], list[Card]]:
    """The melds and leftovers from the short melds the small-hand or cover
    search chose: the COUNT group, the cards left over, the spare WILDs
    placed."""
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
        melds.sort(key=_meld_order)
    return melds, unmelded


def _clusters_layout(best, fixed: list[Card],
                     counts: list[Card]) -> tuple[list[Meld], list[Card]]:
    """The melds and leftovers from the clusters' options ``best`` chose
    (see ``companion.solver_clusters._search``), with the cards that can
    never meld (``fixed``), the COUNT cards and the spare WILDs."""
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
    melds.sort(key=_meld_order)
    return melds, unmelded


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
