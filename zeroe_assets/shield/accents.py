"""Words spelled with accents in a language a reader of English meets (café, naïve, crème,
résumé, Zürich, José, Málaga, Pokémon): a correctly spelled word is not an attack, whatever its
script. From the word frequency lists ``pyspellchecker`` ships (OpenSubtitles counts), read on
the first non-ASCII word.
"""
from __future__ import annotations

import functools
import re
import unicodedata

from ..data import spellchecker_list

LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl")
MIN_COUNT = 50  # the lists' floor: every listed word counts
# a key of the lists' flat JSON object (``{"word": count, ...}``) with a non-ASCII character
_NON_ASCII_ENTRY = re.compile(r'"([^"\\]*[^\x00-\x7f][^"\\]*)": (\d+)')


def plain(word: str) -> str:
    """``word`` without its accents (NFKD, combining marks dropped): café → cafe."""
    return "".join(c for c in unicodedata.normalize("NFKD", word)
                   if not unicodedata.combining(c))


@functools.lru_cache(maxsize=1)
def accented_words() -> frozenset[str]:
    """The lower-case (NFC) listed words that carry an accent on plain Latin letters."""
    found: set[str] = set()
    for language in LANGUAGES:
        text = spellchecker_list(language)
        for word, count in _NON_ASCII_ENTRY.findall(text):  # the JSON's few non-ASCII keys
            if int(count) >= MIN_COUNT:
                bare = plain(word)
                if bare.isascii() and bare.isalpha():
                    found.add(unicodedata.normalize("NFC", word.lower()))
    return frozenset(found)


def is_accented_word(token: str) -> bool:
    """Whether ``token`` is a correctly spelled accented word of one of `LANGUAGES`."""
    if token.isascii():
        return False
    return unicodedata.normalize("NFC", token.lower()) in accented_words()
