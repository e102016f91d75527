"""Solving a big hand cluster by cluster, and sharing the WILDs out.

When neither the small-hand search nor the cover search answers a hand
(``companion.solver``), its live natural cards split into clusters that can
never share a meld.  Solving each cluster alone is much cheaper than
solving the hand at once, and exact, provided each cluster reports its best
layout for every number of WILDs it may use: a tiny knapsack (``_search``)
then shares the WILDs out between the clusters and the COUNT cards.

Clusters of one or two cards are answered directly; bigger ones run the
position DP (``companion.solver_dp``).  Big clusters -- big hands usually
meld every card -- first run it with a cost limit that widens only as
needed (``_search_widening``), each pass pruned by A* bounds: the answer is
the same as with no limit, found much faster.
"""

from __future__ import annotations

from .solver_dp import _dp, _suffix_bounds
from .solver_rebuild import _CARD_AT

#: Prune the DP passes of big clusters with ``_suffix_bounds`` (A*).
ASTAR = True
#: A big cluster whose DP pass found nothing within its cost limit tries again
#: with the limit this many times wider (a pass costs more the wider its
#: limit: the last one stays within this factor of the cheapest that works).
WIDEN_GROWTH = 1.5


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


# ---------------------------------------------------------------------------
# cost limits that widen only as needed
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
