"""Natural typos (paper §3.2): replace a word by a misspelling humans actually made.

Default source: codespell's misspelling dictionary (inverted), shipped with the `codespell`
package; Belinkov & Bisk's Wikipedia-edit ``en.natural`` file can be given as ``source``.
"""
from __future__ import annotations

from pathlib import Path

from ..data import codespell_dictionary, read_misspellings
from ..tokenize import match_case
from ._cache import PerWord
from .base import Perturber
from ..validate import check_int


class NaturalPerturber(Perturber):
    name = "natural-typo"
    description = "replace a word by a natural misspelling (codespell or en.natural)"

    def __init__(self, source: str | Path | None = None):
        self.source = Path(source) if source else codespell_dictionary()
        self.typos = read_misspellings(self.source)
        self._cased = PerWord(self.row)  # perturb_word's own lookups

    def row(self, word: str) -> tuple[str, ...]:
        """``word``'s misspellings in the table's order, in its case (repeats kept: each is one
        draw): what `perturb_word` draws from (`Perturber.row`). Not cached here: the protocol
        keeps each spelling's row itself, and a second cache in front of it cost a lookup, a
        call and an entry for every new spelling of a command-line run."""
        found = self.typos.get(word.lower())
        if not found or word.islower():  # the table's own row (lower case) as it is
            return found or ()
        return tuple([match_case(word, typo) for typo in found])

    def can_change(self, word: str) -> bool:
        return any(typo != word for typo in self._cased[word])

    def perturb_word(self, word, phi, rng):
        options = self._cased[word]
        return options[int(rng.random() * len(options))] if options else word

    def candidates(self, word, k, rng, phi=None):
        """The word's misspellings in the table's order, cased like ``word`` (no draw)."""
        k = check_int("k", k)
        found = dict.fromkeys(self._cased[word])
        found.pop(word, None)
        return list(found)[:k]
