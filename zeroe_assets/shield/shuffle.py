"""Inner and full shuffles: the words with the same letters, looked up by sorted-letter keys
(all letters for the full shuffle; first, last and the sorted inner ones for the inner shuffle)."""
from __future__ import annotations

import math
from collections import Counter

from .base import LIMIT, Restorer
from .lexicon import inner_key



def arrangements(letters: str) -> int:
    """How many distinct orders ``letters`` have: the fewer, the likelier one given shuffle."""
    count = math.factorial(len(letters))
    for repeats in Counter(letters).values():
        count //= math.factorial(repeats)
    return count


def confidence(letters: str) -> float:
    """1 / (1 + log10 of the other orders): how surely a shuffle of ``letters`` came from one
    particular word, in (0, 1]."""
    return 1.0 / (1.0 + math.log10(max(arrangements(letters) - 1, 1)))


class InnerShuffleRestorer(Restorer):
    name = "inner-shuffle"

    def candidates(self, word):
        low = word.lower()
        if len(low) < 4 or not low.isalpha():
            return {}
        found = self.lexicon.by_inner.get(inner_key(low), ())[:LIMIT]
        return {w: confidence(low[1:-1]) for w in found if w != low}


class FullShuffleRestorer(Restorer):
    name = "full-shuffle"

    def candidates(self, word):
        low = word.lower()
        if len(low) < 2 or not low.isalpha():
            return {}
        key = "".join(sorted(low))
        return {w: confidence(low) for w in self.lexicon.by_sorted.get(key, ())[:LIMIT] if w != low}
