"""Inner and full shuffles: the words with the same letters, looked up by sorted-letter keys
(all letters for the full shuffle; first, last and the sorted inner ones for the inner shuffle)."""
from __future__ import annotations

from .base import Restorer
from .lexicon import Lexicon, inner_key

LIMIT = 20  # candidates per key, most frequent first


class InnerShuffleRestorer(Restorer):
    name = "inner-shuffle"

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon

    def candidates(self, word):
        low = word.lower()
        if len(low) < 4 or not low.isalpha():
            return {}
        return {w: 1.0 for w in self.lexicon.by_inner.get(inner_key(low), ())[:LIMIT] if w != low}


class FullShuffleRestorer(Restorer):
    name = "full-shuffle"

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon

    def candidates(self, word):
        low = word.lower()
        if len(low) < 2 or not low.isalpha():
            return {}
        key = "".join(sorted(low))
        return {w: 1.0 for w in self.lexicon.by_sorted.get(key, ())[:LIMIT] if w != low}
