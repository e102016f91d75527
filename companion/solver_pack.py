"""Hands of a few dozen cards: an exact search over sets of short melds.

The position DP in ``companion.solver_dp`` is polynomial, but its constant is
large when WILDs are in play (every state carries the WILDs used, and WILDs
may fill many cells).  A hand with up to about twenty natural cards is solved
faster by a memoised search over the cards still free, thanks to one fact:

* **every meld may be taken 3 to 5 cards long.**  A group of six or more
  cards splits into two groups of three or more (WILD WILD WILD is a group),
  and a sequence of six or more splits into two sequences of three or more
  (a part made only of WILDs is a group of WILDs).  Nothing becomes
  unmelded, so the count is the same.  (Sequences of one suit that touch are
  joined again when the arrangement is shown.)

With the canonical facts the position DP also relies on (a WILD never stands
for a natural card that is held -- swap them; spare WILDs are free once any
meld exists; a sequence with one natural card may as well be a group), the
melds worth trying are few:

* groups: 3 or 4 natural cards of a rank; with WILDs, 1 or 2 natural cards
  of a rank topped up with WILDs to three cards;
* sequences: a block of consecutive *held* cards of one suit spanning at most
  five places (every held card between its ends is in it), its gaps filled
  with WILDs; two neighbours (span 2) take one WILD to make three;
* the COUNT cards: three or more always form their COUNT group; one or two
  act as one card that needs 2 or 1 WILDs.

The search decides the lowest free card first (left over, or in one of the
melds it is the lowest card of) and returns, for every WILD budget 0..W at
once, the heaviest total weight of cards the melds can cover; it is memoised
by the set of free cards.  Cards are bits ``4 * (rank - 1) + suit`` (bit 52
stands for the one or two COUNT cards), so the order is fixed and the answer
deterministic.  Melds are read from small tables built on demand per suit
pattern and per rank.
"""

from __future__ import annotations

from .cards import SUITS
from .melds import Meld, make_count_group, make_group, make_sequence

_MAX_SPAN = 5
#: pack_cover chooses the next card to cover among this many free cards
COVER_WINDOW = 4
_COUNT_BIT = 1 << 52
#: table caches are cleared past this many entries (they refill on demand)
_CACHE_LIMIT = 20000
_SEQ: dict[tuple, tuple] = {}
_GROUP: dict[tuple, tuple] = {}
_SUIT: dict[tuple, tuple] = {}


def _seq_melds(pattern: int, wilds: int, per_card: int) -> tuple:
    """Sequence melds of one suit whose held ranks are the bits 1..13 of
    ``pattern``, as (card mask for suit 0, WILDs needed, weight, (start,
    flags)); shift the mask left by the suit number for the others."""
    key = (pattern, wilds, per_card)
    got = _SEQ.get(key)
    if got is not None:
        return got
    pos = [r for r in range(1, 14) if pattern >> r & 1]
    if pattern & 2:
        pos.append(14)
    out = []
    for a in range(len(pos)):
        for b in range(a + 1, len(pos)):
            span = pos[b] - pos[a] + 1
            if span > _MAX_SPAN:
                break
            k = b - a + 1
            if span == 2:
                need, start = 1, pos[a]
                if start == 13:         # K A(high): the WILD is the queen
                    start = 12
            else:
                need, start = span - k, pos[a]
            if need > wilds:
                continue
            block = pos[a:b + 1]
            mask = weight = 0
            for p in block:
                r = 1 if p == 14 else p
                mask |= 1 << 4 * (r - 1)
                weight += per_card + r
            flags = tuple(start + j in block for j in range(max(span, 3)))
            out.append((mask, need, weight, (start, flags)))
    if len(_SEQ) > _CACHE_LIMIT:
        _SEQ.clear()
    got = _SEQ[key] = tuple(out)
    return got


def _suit_melds(pattern: int, suit: int, wilds: int, per_card: int) -> tuple:
    """``_seq_melds`` for one suit, masks shifted (cached)."""
    key = (pattern, suit, wilds, per_card)
    got = _SUIT.get(key)
    if got is None:
        if len(_SUIT) > _CACHE_LIMIT:
            _SUIT.clear()
        got = _SUIT[key] = tuple((mask << suit, need, weight, desc)
                                 for mask, need, weight, desc in _seq_melds(pattern, wilds, per_card))
    return got


def _group_melds(rank: int, suits: int, wilds: int, per_card: int) -> tuple:
    """Group melds of one rank held in the suits ``suits`` (bit per suit):
    (card mask, WILDs needed, weight, None)."""
    key = (rank, suits, wilds, per_card)
    got = _GROUP.get(key)
    if got is not None:
        return got
    out = []
    sub = suits
    while sub:
        k = bin(sub).count("1")
        need = 3 - k if k < 3 else 0
        if need <= wilds:
            out.append((sub << 4 * (rank - 1), need, k * (per_card + rank), None))
        sub = (sub - 1) & suits
    if len(_GROUP) > _CACHE_LIMIT:
        _GROUP.clear()
    got = _GROUP[key] = tuple(out)
    return got


def hand_melds(sm: list[int], wilds: int, per_card: int, count_need: int,
               count_weight: int) -> list:
    """Every short meld of a hand: ``sm[suit]`` has bit r set for rank r
    held; ``count_need`` WILDs (0: none) meld the one or two COUNT cards."""
    melds: list = []
    by_rank = [0] * 14                  # rank -> suits held
    for s in range(4):
        m = sm[s]
        if m:
            melds.extend(_suit_melds(m, s, wilds, per_card))
            while m:
                low = m & -m
                by_rank[low.bit_length() - 1] |= 1 << s
                m ^= low
    for r in range(1, 14):
        if by_rank[r]:
            melds.extend(_group_melds(r, by_rank[r], wilds, per_card))
    if 0 < count_need <= wilds:
        melds.append((_COUNT_BIT, count_need, count_weight, None))
    return melds


def pack_search(melds: list, wilds: int) -> tuple[int, int, list]:
    """(weight covered, WILDs used, melds chosen): the heaviest cover of the
    cards by disjoint melds using at most ``wilds`` WILDs."""
    by_low: dict[int, list] = {}
    live = 0
    for meld in melds:
        m = meld[0]
        live |= m
        low = m & -m
        got = by_low.get(low)
        if got is None:
            by_low[low] = [meld]
        else:
            got.append(meld)
    if not live:
        return 0, 0, []
    get_moves = by_low.get
    if wilds:
        width = wilds + 1
        tails = [tuple(range(k, width)) for k in range(4)]   # budgets a need fits
        memo: dict = {0: (0,) * width}
        memo_get = memo.get

        def best(mask: int):
            """v[w]: the heaviest cover of ``mask`` with at most w WILDs."""
            low = mask & -mask
            moves = get_moves(low)
            rest = mask ^ low
            v = memo_get(rest) or best(rest)
            if moves is not None:
                v = list(v)
                for mm, need, weight, _desc in moves:
                    if mm & mask == mm:
                        left = mask ^ mm
                        sub = memo_get(left) or best(left)
                        for w in tails[need]:
                            t = weight + sub[w - need]
                            if t > v[w]:
                                v[w] = t
            memo[mask] = v
            return v

        def value(mask: int, w: int) -> int:
            return (memo_get(mask) or best(mask))[w]
    else:
        memo0: dict = {0: 0}
        memo0_get = memo0.get

        def best0(mask: int) -> int:
            """The heaviest cover of ``mask`` without WILDs."""
            low = mask & -mask
            rest = mask ^ low
            v = memo0_get(rest)
            if v is None:
                v = best0(rest)
            moves = get_moves(low)
            if moves is not None:
                for mm, _need, weight, _desc in moves:
                    if mm & mask == mm:
                        left = mask ^ mm
                        t = memo0_get(left)
                        if t is None:
                            t = best0(left)
                        t += weight
                        if t > v:
                            v = t
            memo0[mask] = v
            return v

        def value(mask: int, w: int) -> int:
            got = memo0_get(mask)
            return best0(mask) if got is None else got

    top = value(live, wilds)
    chosen = []
    used = 0
    mask, left_w, target = live, wilds, top
    while target:
        low = mask & -mask
        rest = mask ^ low
        moves = get_moves(low)
        if moves is None or value(rest, left_w) == target:
            mask = rest
            continue
        for meld in moves:
            mm, need, weight, _desc = meld
            if need <= left_w and mm & mask == mm:
                left = mask ^ mm
                if weight + value(left, left_w - need) == target:
                    chosen.append(meld)
                    used += need
                    mask, left_w, target = left, left_w - need, target - weight
                    break
        else:   # pragma: no cover - the memo always explains its answer
            raise AssertionError("pack_search: no move explains the best cover")
    return top, used, chosen


def build_melds(chosen: list, card_at, counts) -> tuple[list[Meld], int]:
    """Melds for the chosen short melds (sequences of one suit that touch
    are joined into one), and the mask of the cards they hold."""
    used = 0
    melds = []
    runs: list[list] = []
    for mask, need, _weight, desc in chosen:
        used |= mask
        if mask == _COUNT_BIT:
            melds.append(make_count_group(counts, need))
        elif desc is None:
            naturals = []
            while mask:
                low = mask & -mask
                b = low.bit_length() - 1
                naturals.append(card_at[b // 4 + 1][b % 4])
                mask ^= low
            melds.append(make_group(naturals, need))
        else:
            suit = ((mask & -mask).bit_length() - 1) % 4
            runs.append([suit, desc[0], list(desc[1])])
    runs.sort()
    joined: list[list] = []
    for run in runs:
        last = joined[-1] if joined else None
        if last and last[0] == run[0] and last[1] + len(last[2]) == run[1]:
            last[2].extend(run[2])
        else:
            joined.append(run)
    for s, start, flags in joined:
        melds.append(make_sequence(SUITS[s], start, flags))
    return melds, used


class _GiveUp(Exception):
    pass


def pack_cover(melds: list, target: int, wilds: int, node_limit: int) -> list | bool | None:
    """Disjoint melds covering every card of ``target`` with at most
    ``wilds`` WILDs; False if there are none, None if the search gave up.
    Such a cover is an optimal layout: every card left over could never
    meld.

    Depth first over the cards in a fixed order (the next card to cover is
    the first free one; melds needing fewer WILDs first), failures
    remembered per (free cards, WILDs left).  Such searches sometimes take
    very long in one order and no time in another, so three orders are
    tried, each for at most ``node_limit`` steps: the cards with the fewest
    melds first, then rank order, then kings first.  A search that ends
    without giving up is a proof that there is no cover."""
    melds = [m for m in melds if m[1] <= wilds]
    union = 0
    per_card: dict[int, int] = {}
    for meld in melds:
        m = meld[0]
        union |= m
        while m:
            low = m & -m
            per_card[low] = per_card.get(low, 0) + 1
            m ^= low
    if target & ~union:
        return False
    if not target:
        return []
    for order in (sorted(per_card, key=lambda b: (per_card[b], b)), sorted(per_card),
                  sorted(per_card, reverse=True)):
        try:
            got = _cover_in_order(melds, target, wilds, order, node_limit)
        except _GiveUp:
            continue
        return False if got is None else got
    return None


def _cover_in_order(melds: list, target: int, wilds: int, order: list, node_limit: int):
    """``pack_cover``'s search with the cards renumbered in ``order``; of the
    first ``COVER_WINDOW`` free cards in that order it covers next the one
    with the fewest melds that still fit (none: this branch fails at once).
    Raises _GiveUp after ``node_limit`` steps."""
    new_bit = {b: 1 << i for i, b in enumerate(order)}
    containing: dict[int, list] = {}
    for meld in melds:
        m, nm = meld[0], 0
        while m:
            low = m & -m
            nm |= new_bit[low]
            m ^= low
        entry = (nm, meld[1], meld[2], meld)
        m = nm
        while m:
            low = m & -m
            containing.setdefault(low, []).append(entry)
            m ^= low
    for lst in containing.values():
        lst.sort(key=lambda t: (t[1], -t[2]))
    start = 0
    m = target
    while m:
        low = m & -m
        start |= new_bit[low]
        m ^= low
    failed: dict[int, int] = {}
    budget = [node_limit]
    window = COVER_WINDOW

    def cover(mask: int, w: int):
        if failed.get(mask, -1) >= w:
            return None
        budget[0] -= 1
        if budget[0] < 0:
            raise _GiveUp
        moves = None
        m = mask
        for _ in range(window):
            low = m & -m
            fit = [t for t in containing.get(low, ()) if t[1] <= w and t[0] & mask == t[0]]
            if moves is None or len(fit) < len(moves):
                moves = fit
                if len(fit) <= 1:
                    break
            m ^= low
            if not m:
                break
        for mm, need, _weight, meld in moves:
            left = mask ^ mm
            if not left:
                return [meld]
            got = cover(left, w - need)
            if got is not None:
                got.append(meld)
                return got
        failed[mask] = w
        return None

    return cover(start, wilds)
