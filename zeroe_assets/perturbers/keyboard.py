"""Keyboard typos (paper §3.2, after Belinkov & Bisk 2018): letters → adjacent keys."""
from __future__ import annotations

from pathlib import Path

from ..tokenize import clusters
from ._sampling import at_least_one
from ..data import data_path, read_neighbour_list
from .base import Perturber


class KeyboardPerturber(Perturber):
    """Replace each letter with a neighbouring key with probability φ (≥ 1 per word).

    The layout is data: ``layout`` is a path in the ``en.key`` format (default: QWERTY).
    Unlike the original code (``protocol="reference"``, one lower-case letter per word), each
    letter may change and the case of a replaced letter is kept.
    """

    name = "keyboard-typo"
    description = "replace letters by neighbouring keys (QWERTY by default)"

    def __init__(self, layout: str | Path | None = None):
        self.layout = Path(layout) if layout else data_path("qwerty.key")
        self.neighbours = read_neighbour_list(self.layout)
        self._plans: dict[str, tuple[list[str], list[tuple[int, tuple[str, ...], int]]]] = {}

    def _plan(self, word: str):
        """The word's units and, per replaceable unit, (index, neighbours in its case, count);
        cached because corpora repeat words."""
        plan = self._plans.get(word)
        if plan is None:
            # letters carrying combining marks are not keys: only single-character units change
            units = list(word) if word.isascii() else clusters(word)
            table = self.neighbours
            slots = [(i, _cased(table[c.lower()], c.isupper()), len(table[c.lower()]))
                     for i, c in enumerate(units) if table.get(c.lower())]
            if len(self._plans) > 200_000:
                self._plans.clear()
            plan = self._plans[word] = (units, slots)
        return plan

    def can_change(self, word: str) -> bool:
        return bool(self._plan(word)[1])

    def perturb_word(self, word, phi, rng):
        units, slots = self._plan(word)
        if not slots:
            return word
        units = units[:]
        rand = rng.random
        # Bernoulli(φ) per slot; if none came up, a draw conditioned on ≥ 1 (see at_least_one)
        picks = [slot for slot in slots if rand() < phi]
        if not picks:
            picks = [slots[j] for j in at_least_one(len(slots), phi, rng)]
        for i, options, count in picks:
            units[i] = options[int(rand() * count)]
        return "".join(units)

    def reference_word(self, word, phi, rng):
        """The original code: exactly one lower-case letter, uniformly among those with keys
        around them, goes to a neighbour (φ and capitals play no part)."""
        units, slots = self._plan(word)
        lower = [slot for slot in slots if units[slot[0]].islower()]
        if not lower:
            return word
        i, options, count = lower[int(rng.random() * len(lower))]
        units = units[:]
        units[i] = options[int(rng.random() * count)]
        return "".join(units)


def _cased(options: tuple[str, ...], upper: bool) -> tuple[str, ...]:
    return tuple(o.upper() for o in options) if upper else options
