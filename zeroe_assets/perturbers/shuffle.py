"""Inner- and full-shuffle (paper §3.2): permute a word's letters, with or without its ends.

Both work on user-perceived characters (base + combining marks) and always return a different
word when one exists (uniformly among the different orders, by rejection: ≤ 2 tries expected).
"""
from __future__ import annotations

import random

from ..rng import shuffle
from ..tokenize import clusters, length
from .base import Perturber
from ..validate import check_int


def _shuffle_changed(units: list[str], rng: random.Random) -> list[str] | None:
    """A uniformly random different order of ``units``, or None if every order is the same."""
    if len(set(units)) < 2:
        return None
    shuffled = units[:]
    while shuffled == units:
        shuffle(shuffled, rng)
    return shuffled


class InnerShufflePerturber(Perturber):
    """Shuffle all letters but the first and last; words of length ≥ 3."""

    name = "inner-shuffle"
    description = "shuffle the inner letters, keeping the first and last (Rawlinson)"

    def __init__(self, min_length: int = 3):
        self.min_length = check_int("inner-shuffle's min_length", min_length, 3)

    def can_change(self, word: str) -> bool:
        units = clusters(word)
        return len(units) >= self.min_length and len(set(units[1:-1])) > 1

    def perturb_word(self, word, phi, rng):
        units = clusters(word)
        if len(units) < self.min_length:
            return word
        inner = _shuffle_changed(units[1:-1], rng)
        return word if inner is None else units[0] + "".join(inner) + units[-1]


class FullShufflePerturber(Perturber):
    """Shuffle all letters; words of length ≥ 2."""

    name = "full-shuffle"
    description = "shuffle all letters of a word"

    def can_change(self, word: str) -> bool:
        return len(set(clusters(word))) > 1

    def perturb_word(self, word, phi, rng):
        units = _shuffle_changed(clusters(word), rng)
        return word if units is None else "".join(units)
