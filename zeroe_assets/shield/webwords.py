"""Words the lexicon lacks that people write all the same: names (sayles, seagal, clooney,
soderbergh), rare words and spellings (lackluster, rollerblades), from the English list of
``wordfreq`` (web text, subtitles, Wikipedia, books, tweets), the common ones of six letters or
more. A shield that knows only the lexicon reads such a word as an attack on a lexicon word
(`sayles` → *sales*, `pearce` → *place*) and cannot read an attacked one back (`sayels`,
`laxkluster` stay). The list is used only to keep a word and, for a non-word no text has used,
as its one reading (`Shield._decide`); it is not the lexicon, whose words the restorers, the
ranker and the robust encoding read into. Left out: words of five letters or fewer (an attack on
a short word lands on a list word too often: `flim`, `ture`, `les`, `magi` are in it), codespell's
misspellings (`definately`), two lexicon words written together (`eachother`) and a lexicon word
with its last letter cut (`lookin`: the truncate attack's output).
"""
from __future__ import annotations

import functools
import math
import string
from collections import defaultdict

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from ..data import codespell_dictionary, read_misspellings
from .lexicon import Lexicon

MIN_ZIPF = 2.0  # wordfreq's Zipf value (log10 per billion words): sayles 2.3, dictums 1.2
MIN_LENGTH = 6


class WebWords:
    """The list, and its words indexed by first letter and length for the one-edit lookup."""

    def __init__(self, lexicon: Lexicon):
        misspelt = {m for ms in read_misspellings(codespell_dictionary()).values() for m in ms}
        self.words: frozenset[str] = frozenset(
            w for w, f in english_frequencies().items()
            if len(w) >= MIN_LENGTH and w.isascii() and w.isalpha() and w.islower()
            and math.log10(f) + 9 >= MIN_ZIPF and w not in lexicon and w not in misspelt
            and not joined(w, f * lexicon.total, lexicon)
            and not cut(w, f * lexicon.total, lexicon))
        self._lexicon = lexicon
        index: dict[tuple[str, int], list[str]] = defaultdict(list)
        for w in sorted(self.words):
            index[w[0], len(w)].append(w)
        self._index = dict(index)

    def __contains__(self, word: str) -> bool:
        return word in self.words

    def knows(self, low: str) -> bool:
        """Whether ``low`` (lower case) is a list word, or one with a plural ending
        (``portillos``) that is not a lexicon word cut (``communis``: `cut`)."""
        return low in self.words or low.endswith("s") and not cut(low, 1, self._lexicon) \
            and (low[:-1] in self.words or low.endswith("es") and low[:-2] in self.words)

    @functools.lru_cache(maxsize=65_536)  # noqa: B019 - one list per process (`load_web_words`)
    def near(self, low: str) -> str | None:
        """The list word one edit (Damerau) from ``low`` that keeps its first letter, if exactly
        one is: ``sayels`` is *sayles*, ``laxkluster`` *lackluster*. Cached: the shield's two
        passes over a line ask about the same words."""
        pool = [w for n in (len(low) - 1, len(low), len(low) + 1)
                for w in self._index.get((low[:1], n), ())]
        found = process.extract(low, pool, scorer=DamerauLevenshtein.distance,
                                score_cutoff=1, limit=2)
        return found[0][0] if len(found) == 1 else None


def english_frequencies() -> dict[str, float]:
    """wordfreq's English list (``large``), each word's frequency. wordfreq not importable, or its
    list missing, cut short, not its format or holding no words, is a ValueError that says what
    to reinstall (one line from ``zeroe``), never a traceback or a shield reading without it."""
    fix = "reinstall it: pip install --force-reinstall 'wordfreq>=3.0'"
    try:
        import wordfreq
    except ImportError as e:
        raise ValueError(f"the shield's web-word list needs wordfreq, which is not importable "
                         f"({e}): {fix}") from None
    where = "wordfreq's English list"
    try:
        from wordfreq.util import data_path

        where += f" ({data_path('large_en.msgpack.gz')})"
        found = wordfreq.get_frequency_dict("en", "large")
    except Exception as e:  # noqa: BLE001 - missing (LookupError), cut (EOFError), not gzip …
        raise ValueError(f"{where} could not be read ({type(e).__name__}: {e}): {fix}") from None
    if not found or not all(isinstance(w, str) for w in found):
        held = "entries that are not words" if found else "no words"
        raise ValueError(f"{where} holds {held}: {fix}")
    return found


def joined(word: str, count: float, lexicon: Lexicon, least: int = 1) -> bool:
    """Whether ``word`` is two lexicon words of ``least`` letters or more written together
    that books write apart at least ``count`` times (``eachother``, ``infront``: how tweets
    spell them, which the segment attack writes too; not ``solaris``, *solar is*)."""
    return any(word[:i] in lexicon and word[i:] in lexicon
               and lexicon.bigrams.get((word[:i], word[i:]), 0) >= count
               for i in range(least, len(word) - least + 1))


def cut(word: str, count: float, lexicon: Lexicon) -> bool:
    """Whether ``word`` is a commoner lexicon word with its last letter cut (``lookin``,
    ``machin``, ``privat``): what the truncate attack writes."""
    return any(lexicon.counts.get(word + c, 0) >= count for c in string.ascii_lowercase)


@functools.cache
def load_web_words(lexicon: Lexicon) -> WebWords:
    return WebWords(lexicon)
