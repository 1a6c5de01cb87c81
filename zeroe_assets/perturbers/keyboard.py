"""Keyboard typos (paper §3.2, after Belinkov & Bisk 2018): letters → adjacent keys."""
from __future__ import annotations

from math import trunc
from pathlib import Path

from ..tokenize import clusters
from ._cache import PerWord
from ._sampling import at_least_one
from ..data import data_path, read_neighbour_list
from .base import Perturber

_Key = tuple[tuple[str, ...], int]  # a key's neighbours in its case and how many


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
        self._keys = PerWord(self._key)
        self._places = PerWord(self._place)
        self._plans = PerWord(self.slots)  # perturb_word's own lookups

    def _key(self, unit: str) -> _Key | None:
        """The neighbours of ``unit`` in its case and how many, None when it is not a key."""
        options = self.neighbours.get(unit.lower())
        return (_cased(options, unit.isupper()), len(options)) if options else None

    def _place(self, place: tuple[int, str]) -> tuple[int, _Key] | None:
        """The slot of unit ``place[1]`` at index ``place[0]``, None when it is not a key: one
        tuple for each such pair, which every plan with that unit there shares."""
        key = self._keys[place[1]]
        return None if key is None else (place[0], key)

    def slots(self, word: str) -> tuple[tuple[str, ...], tuple[tuple[int, _Key], ...]]:
        """The word's units and, per replaceable unit in order, (index, (neighbours in its case,
        count)): perturb_word's rule as data (`Perturber.slots`). Not cached here: the protocol
        keeps each spelling's plan itself, and a second cache in front of it cost a lookup, a
        call and an entry for every new spelling of a command-line run. Built by C-level
        ``map`` and ``filter``, from slots shared by every plan (`_place`): the command line
        builds one for each new spelling, and a comprehension over the units was a tenth of its
        run, a new tuple per slot half of what was left. Tuples, not lists: the garbage
        collector stops tracking most of a plan's tuples of strings and numbers, while it
        walked every cached list again and again (14% of the command line's CPU time on 978k
        tokens)."""
        # letters carrying combining marks are not keys: only single-character units change
        units = tuple(word) if word.isascii() else tuple(clusters(word))
        return units, tuple(filter(None, map(self._places.__getitem__, enumerate(units))))

    def can_change(self, word: str) -> bool:
        return bool(self._plans[word][1])

    def perturb_word(self, word, phi, rng):
        units, slots = self._plans[word]
        if not slots:
            return word
        rand = rng.random
        # Bernoulli(φ) per slot; if none came up, a draw conditioned on ≥ 1 (see at_least_one).
        # A loop, not a comprehension, and trunc, not int: words have a few slots, and on
        # Python 3.11 the comprehension's call and int()'s type call cost more than the draws
        picks = []
        for slot in slots:
            if rand() < phi:
                picks.append(slot)
        if not picks:
            picks = [slots[j] for j in at_least_one(len(slots), phi, rng)]
        units = [*units]
        for i, (options, count) in picks:
            units[i] = options[trunc(rand() * count)]
        return "".join(units)

    def reference_word(self, word, phi, rng):
        """The original code: exactly one lower-case letter, uniformly among those with keys
        around them, goes to a neighbour (φ and capitals play no part)."""
        units, slots = self._plans[word]
        lower = [slot for slot in slots if units[slot[0]].islower()]
        if not lower:
            return word
        i, (options, count) = lower[int(rng.random() * len(lower))]
        units = [*units]
        units[i] = options[int(rng.random() * count)]
        return "".join(units)


def _cased(options: tuple[str, ...], upper: bool) -> tuple[str, ...]:
    return tuple(o.upper() for o in options) if upper else options
