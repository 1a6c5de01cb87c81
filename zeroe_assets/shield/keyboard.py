"""Keyboard typos (the mirror of `perturbers/keyboard.py`): dictionary words within edit distance
1–2 of the token, looked up in the deletion neighbourhoods SymSpell builds over the lexicon
(``symspellpy``), and the words one QWERTY slip away.
"""
from __future__ import annotations

import functools

from ..data import data_path, read_neighbour_list
from .base import Restorer
from .lexicon import Lexicon


@functools.lru_cache(maxsize=1)
def qwerty() -> dict[str, tuple[str, ...]]:
    """Each key's QWERTY neighbours (``data/qwerty.key``), read once per process for the
    restorer, the noisy channel, the ranker's features and the reading of Pruthi's edits
    (`Shield._inner_real`); shared, so never changed in place."""
    return read_neighbour_list(data_path("qwerty.key"))


class KeyboardTypoRestorer(Restorer):
    """Words at Damerau–Levenshtein distance ≤ 2 (≤ 1 for words of up to four letters) for a
    token that is no word; for any token, the words one keyboard slip away (one letter put for a
    QWERTY neighbour), which may be words themselves (``lady`` for ``lazy``)."""

    name = "keyboard-typo"

    def __init__(self, lexicon: Lexicon, max_distance: int = 2):
        self.lexicon = lexicon
        self.max_distance = max_distance
        self.keys = qwerty()

    def slips(self, low: str) -> dict[str, float]:
        """The words ``low`` is one keyboard slip away from."""
        found, lexicon = {}, self.lexicon
        for i, typed in enumerate(low):
            for meant in self.keys.get(typed, ()):
                word = low[:i] + meant + low[i + 1:]
                if word in lexicon:
                    found[word] = 1.0
        return found

    @property
    def symspell(self):
        return _symspell(self.lexicon, self.max_distance)

    def candidates(self, word):
        low = word.lower()
        if not (low.isascii() and low.isalpha()) or len(low) < 2:
            return {}
        if low in self.lexicon:
            return self.slips(low)
        from symspellpy import Verbosity

        distance = min(self.max_distance, 1 if len(low) <= 4 else 2)
        found = self.symspell.lookup(low, Verbosity.ALL, distance, transfer_casing=False)
        return {s.term: 1.0 / s.distance for s in found if s.distance > 0}


@functools.lru_cache(maxsize=2)
def _symspell(lexicon: Lexicon, max_distance: int):
    """SymSpell's deletion index over the lexicon, built once per process (seconds)."""
    from symspellpy import SymSpell

    index = SymSpell(max_dictionary_edit_distance=max_distance, prefix_length=7)
    for word, count in lexicon.counts.items():
        index.create_dictionary_entry(word, count)
    return index
