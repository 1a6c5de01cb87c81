"""Words spelled with accents in a language a reader of English meets (café, naïve, crème,
résumé, Zürich, José, Málaga, Pokémon): a correctly spelled word is not an attack, whatever its
script. From the word frequency lists ``pyspellchecker`` ships (OpenSubtitles counts), read on
the first non-ASCII word.
"""
from __future__ import annotations

import functools
import gzip
import re
import unicodedata
from importlib import resources

LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl")
MIN_COUNT = 50  # the lists' floor: every listed word counts
# a key of the lists' flat JSON object (``{"word": count, ...}``) with a non-ASCII character
_NON_ASCII_ENTRY = re.compile(r'"([^"\\]*[^\x00-\x7f][^"\\]*)": (\d+)')


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word)
                   if not unicodedata.combining(c))


@functools.lru_cache(maxsize=1)
def accented_words() -> frozenset[str]:
    """The lower-case (NFC) listed words that carry an accent on plain Latin letters."""
    found: set[str] = set()
    folder = resources.files("spellchecker") / "resources"
    for language in LANGUAGES:
        with (folder / f"{language}.json.gz").open("rb") as f:
            text = gzip.decompress(f.read()).decode("utf-8")
        for word, count in _NON_ASCII_ENTRY.findall(text):  # the JSON's few non-ASCII keys
            if int(count) >= MIN_COUNT:
                plain = _plain(word)
                if plain.isascii() and plain.isalpha():
                    found.add(unicodedata.normalize("NFC", word.lower()))
    return frozenset(found)


def is_accented_word(token: str) -> bool:
    """Whether ``token`` is a correctly spelled accented word of one of `LANGUAGES`."""
    if token.isascii():
        return False
    return unicodedata.normalize("NFC", token.lower()) in accented_words()
