"""A data set's placeholders: the tokens its authors put for what they masked (OLID writes
``@USER`` for every mention and ``URL`` for every link). A victim trained on that text reads them
as words, and an attack changes them as it changes any word (``@USDR``, ``@gUSER``, ``UQRL``,
``RUL``), yet no writer types them: a token one edit from a placeholder, in its place (a mention's
name after ``@``; a link's word elsewhere) and in its capitals, was one.
"""
from __future__ import annotations

from collections.abc import Callable

from rapidfuzz.distance import DamerauLevenshtein

# placeholder (lower case) → the mark written right before it ("" for none); `train.shield`
# leaves the same words out of what it counts
PLACEHOLDERS = {"user": "@", "url": ""}
MARKS = "@#"  # a mention's and a hashtag's mark: a link's placeholder stands after neither
# the lengths a word one edit from a placeholder can have: every word of every line comes here,
# and those of other lengths are let go before any other test
LENGTHS = range(min(map(len, PLACEHOLDERS)) - 1, max(map(len, PLACEHOLDERS)) + 2)


def placeholder(word: str, before: str, known: Callable[[str], bool]) -> str | None:
    """The placeholder (as written: ``USER``, ``URL``) that ``word``, after the gap ``before``,
    was typed for, or None. It must be one edit (a letter put for another, added, dropped, two
    swapped) from it, in capitals but for at most one letter (DeepWordBug draws its letters in
    either case: ``jSER``), where the placeholder stands (``@`` right before a mention's, no
    ``@`` or ``#`` before a link's), and no word ``known`` knows (``UR``, ``URLs``, ``USA``)."""
    if len(word) not in LENGTHS:
        return None
    low = word.lower()
    if not word.isascii() or not word.isalpha() or low in PLACEHOLDERS \
            or sum(c.islower() for c in word) > 1 or known(low):
        return None
    for name, mark in PLACEHOLDERS.items():
        placed = before.endswith(mark) if mark else not before.endswith(tuple(MARKS))
        if placed and DamerauLevenshtein.distance(low, name) == 1:
            return name.upper()
    return None


def placeholders(words: list[str], gaps: list[str], known: Callable[[str], bool]) -> list[str]:
    """``words`` with each that was typed for a placeholder (`placeholder`) read as it."""
    return [placeholder(w, gaps[k], known) or w for k, w in enumerate(words)]
