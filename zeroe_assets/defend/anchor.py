"""Keys that read a token many changes from a word: every shuffle, every letter a key away, any
cut, all vowels dropped, look-alikes and symbols. A lookup of one change (`surface`) finds a
word's forms exactly; these find what a reader still reads after several, and are used only
when they find one word.

Premise anchors: in a sentence pair the attack changes the hypothesis and the premise stays as
written, so a hypothesis token that is a perturbation of a premise word is read as that word.
The premise bounds what a token may be read as: a handful of words, not a vocabulary, so the
keys can be looser there (short words, cuts of three letters, one edit in four letters). An
attacker gains nothing by a token that reads as a premise word: the pair then says what it
said unattacked, or the hypothesis repeats the premise.
"""
from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable

import numpy as np
from rapidfuzz.distance import OSA

VOWELS = frozenset("aeiou")


def letters(token: str) -> str:
    """``token`` as the letters a reader reads: look-alikes transliterated, lower case, symbols
    and digits dropped (*ch!r* → *chr*, *ᴄhoir* → *choir*)."""
    from anyascii import anyascii

    return "".join(c for c in anyascii(token).lower() if "a" <= c <= "z")


class Keys:
    """``of(token)``: the ``words`` (lower-case letters) that ``token`` is a shuffle, the
    consonants, a keyboard slip of every letter, a near form (one edit in four letters) or a cut
    of; ``shortest``: the shortest word and cut they read; ``near``: near forms of words of any
    length (premise anchors; for a vocabulary only of six letters or more)."""

    def __init__(self, words: Iterable[str], shortest: int = 4, near: bool = False):
        self.words = sorted({w for w in words if len(w) >= shortest and w.isascii()
                             and w.isalpha() and w.islower()})
        self.shortest, self.near = shortest, near
        self._keys: dict[str, set[str]] = {}
        by_length: dict[int, list[str]] = {}
        for w in self.words:
            for key in ("s:" + "".join(sorted(w)), "v:" + "".join(c for c in w if c not in VOWELS)):
                self._keys.setdefault(key, set()).add(w)
            by_length.setdefault(len(w), []).append(w)
        self._by_length = {n: (ws, np.frombuffer("".join(ws).encode(), np.uint8).reshape(
            len(ws), n) - ord("a")) for n, ws in by_length.items()}

    def of(self, token: str, first: bool = False) -> set[str]:
        """The words ``token`` may be; ``first``: only those of the first family (shuffles,
        consonants, slips, near forms, cuts) that finds any, so that a token that is a word's
        shuffle is not also ambiguous with the many words it is a looser form of."""
        t = letters(token)
        k = bisect.bisect_left(self.words, t)  # the sorted words: no list scan, no second set
        if k < len(self.words) and self.words[k] == t:
            return {t}
        if len(t) < 2:
            return set()
        found: set[str] = set()
        for family in (self._shuffles, self._consonants, self._slips, self._near, self._cuts):
            found |= family(t)
            if found and first:
                break
        return found

    def _shuffles(self, t: str) -> set[str]:
        return self._keys.get("s:" + "".join(sorted(t)), set())

    def _consonants(self, t: str) -> set[str]:
        return self._keys.get("v:" + t, set())

    def _cuts(self, t: str) -> set[str]:
        """The words ``t`` begins (a cut of at least ``shortest`` letters)."""
        found: set[str] = set()
        if len(t) >= self.shortest:
            k = bisect.bisect_left(self.words, t)
            while k < len(self.words) and self.words[k].startswith(t):
                found.add(self.words[k])
                k += 1
        return found

    def _near(self, t: str) -> set[str]:
        """Within one edit in four letters (typos); for a vocabulary only words of six letters or
        more: shorter ones have too many neighbours."""
        if not self.near and len(t) < 6:
            return set()
        most = max(1, len(t) // 4)
        if self.near:
            words = self.words
        else:  # the words whose length is within the edits allowed
            words = [w for n in range(len(t) - most, len(t) + most + 1)
                     if n in self._by_length for w in self._by_length[n][0]]
        return {w for w in words if OSA.distance(t, w, score_cutoff=most) <= most}

    def _slips(self, t: str) -> set[str]:
        """The words of ``t``'s length whose every letter is ``t``'s or a key next to it."""
        if len(t) not in self._by_length:
            return set()
        words, codes = self._by_length[len(t)]
        allowed = _slipped_from()[np.frombuffer(t.encode(), np.uint8) - ord("a")]  # (n, 26)
        hit = allowed[np.arange(len(t)), codes].all(axis=1)
        return {words[i] for i in np.flatnonzero(hit)}


class Anchors:
    """The premise word a hypothesis token may be read as (`of`)."""

    def __init__(self, premise_words: Iterable[str]):
        self.keys = Keys((letters(p) for p in premise_words), shortest=3, near=True)

    def of(self, token: str) -> str | None:
        """The one premise word ``token`` is a perturbation of; None when it is none or could
        be several (then the encoding decides as for any token)."""
        found = self.keys.of(token)
        return found.pop() if len(found) == 1 else None


@functools.cache
def _slipped_from() -> np.ndarray:
    """``[a, b]``: whether typing letter ``b`` can give ``a`` (the same key or one next to it,
    the keyboard-typo perturber's keys)."""
    from .. import registry

    out = np.eye(26, dtype=bool)
    for b, near in registry.get_perturber("keyboard-typo").neighbours.items():
        for a in near:
            if "a" <= a <= "z" and "a" <= b <= "z":
                out[ord(a) - ord("a"), ord(b) - ord("a")] = True
    return out

