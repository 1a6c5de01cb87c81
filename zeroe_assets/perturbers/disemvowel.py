"""Disemvoweling (paper §3.2): remove a, e, i, o, u from words longer than three letters."""
from __future__ import annotations

from .base import Perturber

VOWELS = "aeiouAEIOU"
_DROP = str.maketrans("", "", VOWELS)


class DisemvowelPerturber(Perturber):
    """Skip words of length ≤ 3 and words made only of vowels (they would vanish)."""

    name = "disemvowel"
    description = "remove the vowels a, e, i, o, u"

    def attackable(self, word: str) -> bool:
        if len(word) <= 3:
            return False
        stripped = word.translate(_DROP)
        return stripped != word and stripped != ""

    def perturb_word(self, word, phi, rng):
        return word.translate(_DROP) if self.attackable(word) else word
