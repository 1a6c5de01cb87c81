"""A noisy channel for typos: how likely ``word`` typed by a person (or a tool imitating one)
comes out as ``typo``. Each edit — a letter put for another, one inserted or dropped, two
adjacent letters swapped, first and last letters included — has a probability learnt from the
errors people actually made (codespell's misspelling list: correct word → typo, aligned edit by
edit), smoothed towards QWERTY neighbours, so a keyboard slip, a doubled letter or a phonetic
slip scores high and an arbitrary edit low.

``Channel.score(typo, word)`` is the sum of the edits' log10 probabilities; the ranker weighs it
against the word's frequency and context (`shield.features`). The counts are learnt on first use
(about a second) from the lists the runtime already ships; no table is stored.
"""
from __future__ import annotations

import functools
import math
import string
from collections import Counter
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from ..data import codespell_dictionary, read_misspellings
from .keyboard import qwerty

ALPHABET = string.ascii_lowercase
KEYBOARD_PRIOR = 20.0  # pseudo-counts an edit to a QWERTY neighbour starts with
PRIOR = 1.0  # pseudo-counts of any other edit
FLOOR = -8.0  # the score of an alignment that needs more than `MAX_EDITS` edits
MAX_EDITS = 3


def edits(word: str, typo: str) -> list[tuple[str, str, str]]:
    """The edits that turn ``word`` into ``typo``: ``(kind, a, b)`` with kind ``sub`` (a put
    as b), ``ins`` (b inserted after a, ``^`` at the start), ``del`` (a dropped after b) or
    ``swap`` (adjacent ab typed as ba)."""
    ops = [tuple(op) for op in Levenshtein.editops(word, typo)]
    found: list[tuple[str, str, str]] = []
    k = 0
    while k < len(ops):
        kind, i, j = ops[k]
        nxt = ops[k + 1] if k + 1 < len(ops) else None
        if _swapped(word, typo, ops[k], nxt):  # Levenshtein spells a swap as two edits
            found.append(("swap", word[i], word[i + 1]))
            k += 2
            continue
        if kind == "replace":
            found.append(("sub", word[i], typo[j]))
        elif kind == "insert":
            found.append(("ins", word[i - 1] if i else "^", typo[j]))
        else:
            found.append(("del", word[i], word[i - 1] if i else "^"))
        k += 1
    return found


def _swapped(word: str, typo: str, op, nxt) -> bool:
    """Whether two consecutive edits only swap ``word[i]`` and ``word[i + 1]``."""
    if nxt is None:
        return False
    kind, i, j = op
    if kind == "insert" and nxt[0] == "delete" and nxt[1] == i + 1 and i + 1 < len(word):
        return typo[j] == word[i + 1] and j + 1 < len(typo) and typo[j + 1] == word[i]
    if kind == "delete" and nxt[0] == "insert" and nxt[1] == i + 2 and i + 1 < len(word):
        return typo[j] == word[i + 1] and j + 1 < len(typo) and typo[j + 1] == word[i]
    return False


class Channel:
    """Edit probabilities from ``pairs`` of (word, typo)."""

    def __init__(self, pairs, keyboard: dict[str, tuple[str, ...]]):
        counts: Counter = Counter()
        letters: Counter = Counter()
        for word, typo in pairs:
            letters.update(word)
            found = edits(word, typo)
            if len(found) <= 2:
                counts.update(found)
        self.counts, self.letters = counts, letters
        self.keyboard = {k: frozenset(v) for k, v in keyboard.items()}

    @functools.lru_cache(maxsize=65536)
    def logp(self, kind: str, a: str, b: str) -> float:
        """log10 P(edit | the letter it happens at)."""
        near = kind == "sub" and b in self.keyboard.get(a, ()) or \
            kind in ("ins", "del") and (a == b or b in self.keyboard.get(a, ()))
        prior = KEYBOARD_PRIOR if near else PRIOR
        count = self.counts.get((kind, a, b), 0) + prior
        base = self.letters.get(a, 0) + len(ALPHABET) * KEYBOARD_PRIOR
        return max(FLOOR, math.log10(count / base))

    def score(self, typo: str, word: str) -> float:
        """log10 P(typo | word) over the edits between them (0 when equal; `FLOOR` per edit
        beyond `MAX_EDITS`, so far readings stay comparable)."""
        if typo == word:
            return 0.0
        found = edits(word, typo)
        if len(found) > MAX_EDITS:
            return FLOOR * len(found)
        return sum(self.logp(*edit) for edit in found)


def _codespell_pairs(path: Path):
    for word, typos in read_misspellings(path).items():
        if word.isascii() and word.isalpha():
            for typo in typos:
                if typo.isascii() and typo.isalpha():
                    yield word, typo


@functools.lru_cache(maxsize=1)
def load_channel() -> Channel:
    """The channel learnt from codespell's list, once per process."""
    return Channel(_codespell_pairs(codespell_dictionary()), qwerty())
