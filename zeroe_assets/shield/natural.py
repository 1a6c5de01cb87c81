"""Natural typos (the mirror of `perturbers/natural.py`): the corrections of a misspelling
dictionary of errors people actually made (codespell's, the table the natural-typo perturber
draws from).
"""
from __future__ import annotations

from ..data import codespell_dictionary, read_misspellings
from .base import Restorer


class NaturalTypoRestorer(Restorer):
    """Misspelling → the words it is a known misspelling of (codespell, or ``en.natural``)."""

    name = "natural-typo"

    def __init__(self, source=None):
        corrections: dict[str, dict[str, float]] = {}
        for correct, typos in read_misspellings(source or codespell_dictionary()).items():
            for typo in typos:
                corrections.setdefault(typo.lower(), {})[correct.lower()] = 1.0
        self.corrections = corrections

    def candidates(self, word):
        return dict(self.corrections.get(word.lower(), {}))
