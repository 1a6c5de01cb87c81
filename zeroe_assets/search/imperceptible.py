"""The four imperceptible perturbations of Boucher et al. 2022, "Bad Characters: Imperceptible
NLP Attacks" (§3): the injections into one word that ``transformations.Imperceptible`` offers
as candidates; the text displays as before (``display.renders_identically`` checks it).

- ``bad-invisible``: a zero-width space, joiner or non-joiner (U+200B, U+200D, U+200C) inserted.
- ``bad-homoglyph``: a letter replaced by a UTS #39 confusable whose glyph in the reference
  font is pixel for pixel the letter's (Latin a → Cyrillic а); Boucher et al. take Unicode's
  intentional confusables, we keep those that draw the same.
- ``bad-reorder``: two neighbouring characters stored swapped, inside Boucher et al.'s bidi
  controls (LRO LRI RLO LRI b PDI LRI a PDI PDF PDI PDF) that display them in the old order.
- ``bad-deletion``: a printable ASCII character followed by BACKSPACE (U+0008) inserted, which
  erases it on display.
"""
from __future__ import annotations

import functools
import string

from .display import BACKSPACE, LRI, LRO, PDF, PDI, RLO, same_glyph

INVISIBLE = ("\u200b", "\u200d", "\u200c")  # ZWSP, ZWJ, ZWNJ
PRINTABLE = tuple(chr(c) for c in range(ord("!"), ord("~") + 1))
KINDS = ("invisible", "homoglyph", "reorder", "deletion")


def swapped(a: str, b: str) -> str:
    """``a`` then ``b`` on display, ``b`` then ``a`` in the stored text (Boucher et al.'s
    encoding of a swap: a right-to-left override of two left-to-right isolates)."""
    return LRO + LRI + RLO + LRI + b + PDI + LRI + a + PDI + PDF + PDI + PDF


@functools.lru_cache(maxsize=1)
def homoglyphs() -> dict[str, tuple[str, ...]]:
    """ASCII letter → the non-ASCII characters of its UTS #39 confusable class whose glyph in
    the reference font is the letter's, pixel for pixel."""
    from ..visual.confusables import confusables_of

    out = {}
    for letter in string.ascii_letters:
        found = tuple(c for c in confusables_of(letter) if not c.isascii() and
                      same_glyph(letter, c))
        if found:
            out[letter] = found
    return out


def can_change(kind: str, word: str) -> bool:
    """Whether ``word`` has a place for an injection of ``kind``."""
    if kind == "homoglyph":
        return any(c in homoglyphs() for c in word)
    return len(word) >= (2 if kind == "reorder" else 1)


def injections(kind: str, word: str) -> list[str]:
    """Every injection of ``kind`` into ``word``: every place, every character."""
    n = len(word)
    if kind == "invisible":
        return [word[:i] + c + word[i:] for i in range(1, n) for c in INVISIBLE] or \
            [word + c for c in INVISIBLE]
    if kind == "homoglyph":
        table = homoglyphs()
        return [word[:i] + h + word[i + 1:] for i, c in enumerate(word)
                for h in table.get(c, ())]
    if kind == "reorder":
        return [word[:i] + swapped(word[i], word[i + 1]) + word[i + 2:]
                for i in range(n - 1) if word[i] != word[i + 1]]
    return [word[:i] + c + BACKSPACE + word[i:] for i in range(n) for c in PRINTABLE]
