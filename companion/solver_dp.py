"""The position DP: the exact best layouts of one cluster of cards.

Trying every partition of a hand explodes past ~30 cards, and the spread-out
discard pile and the three-card draw make hands that large real.  So a
cluster of cards that may share melds (``companion.solver_clusters``) is
solved by a dynamic programme over sequence positions A(low)=1, 2 .. K=13,
A(high)=14, whose work is polynomial in the hand size.

DP state after a position (everything to its left decided):

* for each suit, the length of the sequence currently running through that
  suit, capped at "3 or more" (0, 1, 2, 3) -- a run of 1 or 2 must go on;
* how many WILDs the melds so far use (0..3);
* whether any meld exists yet (spare WILDs can then always be placed, see
  ``companion.solver_rebuild._place_spare_wilds``);
* which aces are still waiting: an ace not in a low sequence waits for
  position 14, where it may end a high sequence, join the group of aces, or
  stay unmelded.

At each position every suit's cell is filled by its natural card, by a WILD,
or left empty; the natural cards of that rank not used in sequences either
form one group (topped up with WILDs to three cards) or stay unmelded.  That
is at most 4^4 run states x 4 WILD budgets x 2 x 16 ace masks, and states
another state dominates are dropped (``companion.solver_prune``).

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

A pass may be given a cost limit and A* bounds (``_suffix_bounds``: the same
DP run the other way, relaxed) so that big clusters only explore layouts
that can still win; ``companion.solver_clusters`` chooses the limits.
"""

from __future__ import annotations

from .solver_prune import _POPCOUNT, _prune


# ---------------------------------------------------------------------------
# static tables over the 256 run states (2 bits per suit)
def _build_tables():
    """Per run state: ``_NEXT[runs][fill]``, the run state after the cells
    ``fill`` are filled (the others end their runs); ``_REACHED``, whether
    a filled cell is now in a sequence of three or more (a meld exists); and
    ``_MUST[runs]``, the suits whose run of 1 or 2 has to go on."""
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


def _tables_ge():
    """Per run state, the suits with a run going (``_GE1``) and those with a
    run of exactly 2 (``_EQ2``): where WILDs may fill cells."""
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


# ---------------------------------------------------------------------------
# the moves at one position
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


# ---------------------------------------------------------------------------
# the DP itself, and its mirrored run for the A* bounds
def _dp(comp: list[int], wilds: int, per_card: int, limit: int | None = None,
        mirror: bool = False, bounds: list | None = None, extra: list | None = None):
    """Run the position DP over one cluster; return (final state -> cost, context).

    States costing more than ``limit`` are dropped (see
    ``solver_clusters._search_widening``).  ``bounds`` (from
    ``_suffix_bounds``, with the same limit): a state after position p that
    has used u WILDs is also dropped when its cost plus the least the
    positions after p can cost with the other WILDs exceeds the limit (A*:
    that bound never overestimates, so no layout within the limit is lost).
    ``extra[u]`` (see ``solver_clusters._rest_extra``) lowers the limit of
    states that have used u WILDs (u never decreases along a layout).  ``mirror``:
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
