"""Words spelled with accents in a language a reader of English meets (café, naïve, crème,
résumé, Zürich, José, Málaga, Pokémon): a correctly spelled word is not an attack, whatever its
script. From the word frequency lists ``pyspellchecker`` ships (OpenSubtitles counts), read on
the first non-ASCII word, each list's words kept compiled in the user's cache (reading the
seven lists was a second of the first such word's).
"""
from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from ..data import compiled, spellchecker_path, spellchecker_text

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
    return frozenset(w for language in LANGUAGES
                     for w in compiled(_accented, spellchecker_path(language)))


def _accented(path: Path) -> tuple[str, ...]:
    """`accented_words` of the one list at ``path``, sorted."""
    found: set[str] = set()
    for word, count in _NON_ASCII_ENTRY.findall(spellchecker_text(path)):  # its few non-ASCII keys
        if int(count) >= MIN_COUNT:
            bare = plain(word)
            if bare.isascii() and bare.isalpha():
                found.add(unicodedata.normalize("NFC", word.lower()))
    return tuple(sorted(found))


def is_accented_word(token: str) -> bool:
    """Whether ``token`` is a correctly spelled accented word of one of `LANGUAGES`."""
    if token.isascii():
        return False
    return unicodedata.normalize("NFC", token.lower()) in accented_words()
