"""Intruders (paper §3.2): insert one symbol, repeated, between characters of a word."""
from __future__ import annotations

import string
from math import trunc

from ..tokenize import clusters, length
from ._sampling import at_least_one, none_came_up
from .base import Perturber

SYMBOLS = string.punctuation + " "  # the paper's list, "including whitespace"


class IntrudePerturber(Perturber):
    """Between each two characters insert the word's symbol with probability φ (≥ 1 insertion)."""

    name = "intrude"
    keeps_ends = True
    description = "insert a repeated punctuation symbol or space between letters"

    def __init__(self, symbols: str = SYMBOLS):
        if not isinstance(symbols, str) or not symbols:
            raise ValueError(f"intrude needs a string of at least one symbol to insert, "
                             f"got {symbols!r}")
        self.symbols = symbols

    def can_change(self, word: str) -> bool:
        return length(word) >= 3

    def perturb_word(self, word, phi, rng):
        units = list(word) if word.isascii() else clusters(word)  # clusters' own fast path, inline
        if len(units) < 3:
            return word
        rand = rng.random
        symbol = self.symbols[trunc(rand() * len(self.symbols))]  # = int(), without its type call
        gaps = len(units) - 1
        if 0.0 < phi < 1.0:
            # at_least_one's Bernoulli draws inline (a call less per word), in a loop that also
            # inserts (a comprehension is a call on Python 3.11)
            some = False
            for j in range(gaps):
                if rand() < phi:
                    units[j] += symbol  # after unit j: one pass, however long the word
                    some = True
            if some:
                return "".join(units)
            chosen = none_came_up(gaps, phi, rng)
        else:
            chosen = at_least_one(gaps, phi, rng)
        for gap in chosen:
            units[gap] += symbol
        return "".join(units)
