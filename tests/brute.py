"""A deliberately naive exact solver, used only to check companion.solver."""

from functools import lru_cache
from itertools import combinations

from companion.melds import is_meld


def brute_min_count(cards, per_card=0):
    """Minimum over every partition into melds + leftovers (exponential)."""
    cards = tuple(sorted(cards))

    @lru_cache(maxsize=None)
    def best(rest):
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        result = per_card + first.count + best(others)
        if first.meldable:
            n = len(others)
            for size in range(2, n + 1):
                for idx in combinations(range(n), size):
                    chosen = (first,) + tuple(others[i] for i in idx)
                    if is_meld(chosen):
                        left = tuple(others[i] for i in range(n) if i not in idx)
                        result = min(result, best(left))
        return result

    return best(cards)
