"""A letter the attack marked: random-character attacks (DeepWordBug's substitutions and
insertions, TextAttack's ``WordSwapRandomCharacter*``) draw the new letter from both cases, so
about half their edits leave one capital inside a lower-case word (``tNee``, ``coUld``,
``biLkes``). People do not type that, so the capital says *where* the edit is: the word is one
of the lexicon words that letter's substitution or deletion gives, whatever its frequency next
to the readings elsewhere in the word (``tNee`` is *tree*, not the commoner *teen*). Camel-case
names (iPhone, eBay) rarely have such a reading, any with two capitals (McCain, DeVos, YouTube)
is left alone, and so is a capitalised word whose letters were shuffled (``mWoan``), which moves
its own capital inside.
"""
from __future__ import annotations

import string

from .lexicon import Lexicon

MIN_LENGTH = 4  # kWh, dB, pH: short mixed-case tokens are units, not attacked words


def marked(stem: str) -> int | None:
    """The position of the one capital inside an otherwise lower-case ASCII word, or None."""
    if len(stem) < MIN_LENGTH or not (stem.isascii() and stem.isalpha()):
        return None
    capitals = [i for i, c in enumerate(stem) if c.isupper()]
    return capitals[0] if len(capitals) == 1 and capitals[0] > 0 else None


def marked_readings(stem: str, lexicon: Lexicon) -> list[str]:
    """The lexicon words the marked letter's substitution by another letter or its deletion
    gives (lower case; the token as typed is not one of them), or [] when no letter is marked."""
    at = marked(stem)
    if at is None:
        return []
    low = stem.lower()
    if any(w.startswith(low[at]) for w in lexicon.by_sorted.get("".join(sorted(low)), ())):
        return []  # a capitalised word shuffled (mWoan: Woman), its capital moved inside
    head, own, tail = low[:at], low[at], low[at + 1:]
    found = [head + c + tail for c in string.ascii_lowercase if c != own] + [head + tail]
    return [w for w in dict.fromkeys(found) if w in lexicon]
