"""Truncation (paper §3.2): cut the last letter of words of length ≥ 3."""
from __future__ import annotations

from ..tokenize import clusters, length
from .base import Perturber


class TruncatePerturber(Perturber):
    name = "truncate"
    description = "remove the last letter"
    draws = False  # a word's outcome is fixed: the protocol looks it up

    def can_change(self, word: str) -> bool:
        return length(word) >= 3

    def perturb_word(self, word, phi, rng):
        if word.isascii():
            return word[:-1] if len(word) >= 3 else word
        units = clusters(word)
        return "".join(units[:-1]) if len(units) >= 3 else word
