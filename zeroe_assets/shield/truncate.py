"""Truncation: the words of three letters or more that lose their last letter to become the token
(and, less surely, those that lose two: a word truncated twice)."""
from __future__ import annotations

from .base import LIMIT, Restorer



class TruncateRestorer(Restorer):
    name = "truncate"

    def candidates(self, word):
        low = word.lower()
        if len(low) < 2 or not low.isalpha():
            return {}
        found = {w: 0.5 for w in self.lexicon.by_double_truncation.get(low, ())[:LIMIT]}
        found.update((w, 1.0) for w in self.lexicon.by_truncation.get(low, ())[:LIMIT])
        return found
