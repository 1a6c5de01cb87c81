"""Disemvowelling: the words longer than three letters whose consonant skeleton is the token."""
from __future__ import annotations

from .base import LIMIT, Restorer
from .lexicon import VOWELS



class DisemvowelRestorer(Restorer):
    name = "disemvowel"

    def candidates(self, word):
        low = word.lower()
        if not low.isalpha() or any(v in low for v in VOWELS):
            return {}
        return {w: 1.0 for w in self.lexicon.by_skeleton.get(low, ())[:LIMIT]}
