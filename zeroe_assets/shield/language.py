"""Which language a line is in, by its words alone: a unigram (naive Bayes) language identifier
over the word frequency lists ``pyspellchecker`` ships (OpenSubtitles counts for English,
French, German, Spanish, Italian, Portuguese and Dutch, the same lists as `accents`).

The shield leaves a line of another language alone. Its first test counts English function
words (`core.ENGLISH`: *the*, *of*, *is* …), which an attack removes as readily as any word:
``Four kids pose during summre vacatino .`` has none, and neither has a tweet of hashtags with a
few content words. Here every word a line holds votes with its frequency in each language:
*four*, *kids*, *during* are English words and rare or absent in the others, while *le*,
*chat*, *noir*, *dort* are French. Words no list has (names, the attack's non-words) do not
vote.
"""
from __future__ import annotations

import functools
import heapq
import json
import math
from collections.abc import Iterable
from pathlib import Path

from ..data import compiled, spellchecker_path, spellchecker_text
from .accents import LANGUAGES

TOP = 30_000  # the commonest words kept per language: they hold nearly every running word
FLOOR = -7.0  # log10 of a word a top list lacks (the lists' 30,000th words: −6.4 … −7.1)


@functools.lru_cache(maxsize=1)
def _tables() -> dict[str, dict[str, float]]:
    """Language → {word: log10 share of the language's running words} for its `TOP` words,
    each kept compiled in the user's cache (reading the seven lists was 2 s of every shield's
    start-up)."""
    return {language: compiled(_top, spellchecker_path(language)) for language in LANGUAGES}


def _top(path: Path) -> dict[str, float]:
    """{word: log10 share of the running words} of the `TOP` commonest words of one list."""
    counts = json.loads(spellchecker_text(path))
    total = sum(counts.values())
    top = heapq.nlargest(TOP, counts.items(), key=lambda kv: kv[1])
    return {w: math.log10(c / total) for w, c in top}


def known(word: str) -> bool:
    """Whether any of the languages' lists has ``word`` (lower case)."""
    return any(word in t for t in _tables().values())


def english_odds(words: list[str]) -> float:
    """log10 P(words | English) − the largest log10 P(words | another language), each word
    independent (lower-case words; one no list has counts for no language). Positive: English
    is the likeliest; 0 when no word is known."""
    return odds(votes(words))


def votes(words: Iterable[str], score: dict[str, float] | None = None) -> dict[str, float]:
    """``score`` (log10 P(words | language) for each language over the words some list has;
    empty while none has one) with ``words`` added in order: a line's votes added up a piece
    at a time are its votes read at once."""
    score = dict(score or {})
    for word in words:
        if known(word):
            for lang, table in _tables().items():
                score[lang] = score.get(lang, 0) + table.get(word, FLOOR)
    return score


def odds(score: dict[str, float]) -> float:
    """`english_odds` of a line whose `votes` are ``score``."""
    if not score:
        return 0.0
    return score["en"] - max(v for lang, v in score.items() if lang != "en")


KNOWN = 0.7  # the share of a line's words the lists must know for it to be another language
FOREIGN_ODDS = 6.0  # log10: how much likelier that language must be than English


def other_language(words: list[str]) -> bool:
    """Whether a line is plainly another language although it has English function words
    (Spanish and Portuguese share *a*, *me*, *as* with English): most of its words (``KNOWN``)
    are in the lists, and they make another language ``FOREIGN_ODDS`` likelier. An attacked
    English line is not: its non-words are in no list, and the few that are (*era*, *si*,
    *ni* for *are*, *is*, *in*) tip the odds by less."""
    return foreign(sum(map(known, words)), len(words), votes(words))


def foreign(known_words: int, words: int, score: dict[str, float]) -> bool:
    """`other_language` of a line of ``words`` words, ``known_words`` of them in the lists, whose
    `votes` are ``score``."""
    return known_words >= KNOWN * words and odds(score) <= -FOREIGN_ODDS
