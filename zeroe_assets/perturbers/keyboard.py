"""Keyboard typos (paper §3.2, after Belinkov & Bisk 2018): letters → adjacent keys."""
from __future__ import annotations

from pathlib import Path

from ..tokenize import clusters
from ._sampling import at_least_one
from ._tables import data_path, read_neighbour_list
from .base import Perturber


class KeyboardPerturber(Perturber):
    """Replace each letter with a neighbouring key with probability φ (≥ 1 per word).

    The layout is data: ``layout`` is a path in the ``en.key`` format (default: QWERTY).
    Unlike the reference code, the case of a replaced letter is kept.
    """

    name = "keyboard-typo"
    description = "replace letters by neighbouring keys (QWERTY by default)"

    def __init__(self, layout: str | Path | None = None):
        self.layout = Path(layout) if layout else data_path("qwerty.key")
        self.neighbours = read_neighbour_list(self.layout)

    def attackable(self, word: str) -> bool:
        return any(c.lower() in self.neighbours for c in word)

    def perturb_word(self, word, phi, rng):
        table = self.neighbours
        # letters carrying combining marks are not keys: only whole single-character units change
        chars = list(word) if word.isascii() else clusters(word)
        positions = [i for i, c in enumerate(chars) if c.lower() in table]
        if not positions:
            return word
        for j in at_least_one(len(positions), phi, rng):
            i = positions[j]
            options = table[chars[i].lower()]
            new = options[rng.randrange(len(options))]
            chars[i] = new.upper() if chars[i].isupper() else new
        return "".join(chars)
