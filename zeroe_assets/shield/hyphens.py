"""A hyphen an attack moved: TextAttack's character recipes (Pruthi2019's and DeepWordBug's
adjacent swaps) take a hyphenated compound for one word and swap any two of its inner
characters, the hyphen too: ``coming-of-age`` comes out as ``coming-ofa-ge`` or
``coming-o-fage``, ``hip-hop`` as ``hiph-op``. The tokenizer cuts at the hyphen, so each
restorer sees a piece (``ofa``, ``ge``) that is no word and no one edit of the word it was. Put
back, the hyphen makes every piece a word again; writers do not type compounds so.
"""
from __future__ import annotations

from collections.abc import Callable, Container


def moved(pieces: list[str], lexicon: Container[str], pair: Callable[[str, str], bool]
          ) -> list[str] | None:
    """The pieces of one compound (its hyphens taken out) with the hyphen that was swapped with
    a letter next to it put back, or None: some piece is no lexicon word, and exactly one such
    swap makes every piece a lexicon word, in one case or capitalised (not ``Filet-O-Fish`` →
    *File-tO-Fish*), and each two pieces next to each other words that ``pair`` says a text
    has written in a row (``['coming', 'ofa', 'ge']`` → *coming, of, age*; not ``pre-dawn``
    → *pred-awn*, ``ex-pat`` → *exp-at*)."""
    if all(p.lower() in lexicon for p in pieces):
        return None
    found = []
    for j in range(len(pieces) - 1):
        left, right = pieces[j], pieces[j + 1]
        for new_left, new_right in ((left[:-1], left[-1:] + right), (left + right[:1], right[1:])):
            if new_left and new_right:
                cand = pieces[:j] + [new_left, new_right] + pieces[j + 2:]
                if all(p.lower() in lexicon and (p.islower() or p.isupper() or p.istitle())
                       for p in cand) \
                        and all(pair(a.lower(), b.lower()) for a, b in zip(cand, cand[1:])):
                    found.append(cand)
    return found[0] if len(found) == 1 else None


def hyphens(words: list[str], gaps: list[str], lexicon: Container[str],
            pair: Callable[[str, str], bool], protected: Container[int] = ()) -> list[str]:
    """``words`` with each compound whose hyphen an attack moved read back (`moved`): a run of
    two or more pieces of letters joined by single hyphens, none of them ``protected`` (a
    link's, a hashtag's)."""
    out, i = list(words), 0
    while i < len(words):
        j = i
        while j + 1 < len(words) and gaps[j + 1] == "-":
            j += 1
        run = range(i, j + 1)
        if j > i and all(words[k].isascii() and words[k].isalpha() and k not in protected
                         for k in run):
            found = moved(words[i:j + 1], lexicon, pair)
            if found:
                out[i:j + 1] = found
        i = j + 1
    return out
