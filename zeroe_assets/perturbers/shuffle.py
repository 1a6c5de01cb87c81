"""Inner- and full-shuffle (paper §3.2): permute a word's letters, with or without its ends.

Both work on user-perceived characters (base + combining marks) and always return a different
word when one exists (uniformly among the different orders, by rejection: ≤ 2 tries expected).
"""
from __future__ import annotations

import random

from ..rng import shuffle
from ..tokenize import clusters
from ._cache import PerWord
from .base import Perturber
from ..validate import check_int


def _reordered(units: tuple[str, ...], rng: random.Random) -> str:
    """A uniformly random different order of ``units`` (at least two different ones), joined."""
    shuffled = [*units]
    shuffle(shuffled, rng)
    while tuple(shuffled) == units:  # the same order: another
        shuffle(shuffled, rng)
    return "".join(shuffled)


def _reorderable(units: list[str]) -> bool:
    """Whether some order of ``units`` differs from theirs (two of them differ)."""
    return len(set(units)) > 1


def _units(word: str) -> tuple[str, ...] | None:
    """``word``'s units when some order of them differs, else None. Cached per spelling, as
    tuples of strings, which the garbage collector stops tracking (lists it walks again and
    again as the cache grows)."""
    units = tuple(clusters(word))
    return units if _reorderable(units) else None


class InnerShufflePerturber(Perturber):
    """Shuffle all letters but the first and last; words of length ≥ 3."""

    name = "inner-shuffle"
    keeps_ends = True
    description = "shuffle the inner letters, keeping the first and last (Rawlinson)"

    def __init__(self, min_length: int = 3):
        self.min_length = check_int("inner-shuffle's min_length", min_length, 3)
        self._parts = PerWord(self._split)

    def _split(self, word: str) -> tuple[str, tuple[str, ...], str] | None:
        """(first, inner units, last) of a word whose inner units can be reordered, else None
        (tuples: see `_units`)."""
        units = clusters(word)
        inner = tuple(units[1:-1])
        if len(units) < self.min_length or not _reorderable(inner):
            return None
        return units[0], inner, units[-1]

    def can_change(self, word: str) -> bool:
        return self._parts[word] is not None

    def perturb_word(self, word, phi, rng):
        parts = self._parts[word]
        if parts is None:
            return word
        first, inner, last = parts
        return first + _reordered(inner, rng) + last


class FullShufflePerturber(Perturber):
    """Shuffle all letters; words of length ≥ 2."""

    name = "full-shuffle"
    description = "shuffle all letters of a word"

    def __init__(self):
        self._units = PerWord(_units)

    def can_change(self, word: str) -> bool:
        return self._units[word] is not None

    def perturb_word(self, word, phi, rng):
        units = self._units[word]
        return word if units is None else _reordered(units, rng)
