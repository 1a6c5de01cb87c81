"""Disemvoweling (paper §3.2): remove a, e, i, o, u from words longer than three letters."""
from __future__ import annotations

from ..tokenize import clusters
from .base import Perturber

VOWELS = "aeiouAEIOU"
_DROP = str.maketrans("", "", VOWELS)


class DisemvowelPerturber(Perturber):
    """Skip words of length ≤ 3 and words made only of vowels (they would vanish).

    Only the five plain vowels count, as in the paper: accented vowels (é, ü) are kept.
    """

    name = "disemvowel"
    description = "remove the vowels a, e, i, o, u"

    def attackable(self, word: str) -> bool:
        if len(word) <= 3:
            return False
        stripped = word.translate(_DROP)
        return stripped != word and stripped != ""

    def perturb_word(self, word, phi, rng):
        if not self.attackable(word):
            return word
        if word.isascii():
            return word.translate(_DROP)
        # a decomposed accented vowel (e + U+0301) is é, not a plain vowel: keep it whole
        return "".join(c for c in clusters(word) if c not in VOWELS) or word
