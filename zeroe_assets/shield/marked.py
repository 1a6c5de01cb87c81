"""A letter the attack marked: random-character attacks (DeepWordBug's substitutions and
insertions, TextAttack's ``WordSwapRandomCharacter*``) draw the new letter from both cases
(``string.ascii_letters``), so about half their edits leave a letter in the wrong case. People do
not type that, so the odd case says *where* the edit is: the word is one of the lexicon words
that letter's substitution or deletion gives, whatever its frequency next to the readings
elsewhere in the word (``tNee`` is *tree*, not the commoner *teen*). Three shapes:

- one capital inside a lower-case word (``tNee``, ``coUld``, ``biLkes``); camel-case names
  (iPhone, eBay) rarely have such a reading, and a capitalised word whose letters were shuffled
  (``mWoan``) moves its own capital inside: left alone;
- a capitalised word with one more capital (``TwitOter``, ``WiBliam``, ``RAght``): here names
  are the rule (McCain, DeVos, DeVries), so the token must not be a lexicon word as typed, the
  reading must be a common word (``COMMON``: not *demos* for DeVos, *decries* for DeVries), an
  acronym inflected (RTing, DMed, PhDs) or an initial appended (DaveB, WiiU) is left alone
  (an inserted capital before the first, ``BLook``, is not read: *Obama* from NObama, *Rourke*
  from ORourke were the clean tokens it changed);
- one lower-case letter inside a word in capitals (``NEcD``, ``SInX``, ``CLEARnLY``), with the
  same bounds (IDs, CEOs: a plural is no mark).

Over OLID's 13,240 training tweets and EWT's 12,544 training sentences the last two shapes read
no token; on the transfer benchmark's dev split they read 11 of DeepWordBug's words right and
one wrong (``BLook``: *book*).
"""
from __future__ import annotations

import string

from .lexicon import Lexicon

MIN_LENGTH = 4  # kWh, dB, pH, PhD, DoD: short mixed-case tokens are units, not attacked words
COMMON = -5.0  # log10 frequency a reading of a capitalised or all-caps token needs
SUFFIXES = frozenset({"s", "es", "d", "ed", "ing", "er", "ers"})  # RTing, DMed, PhDs


def marked(stem: str) -> int | None:
    """The position of the letter whose case marks an edit, or None: the one capital inside an
    otherwise lower-case ASCII word, the second capital of a capitalised word, or the one
    lower-case letter of a word in capitals (see the module's bounds)."""
    return _mark(stem)[0]


def _mark(stem: str) -> tuple[int | None, str]:
    if len(stem) < MIN_LENGTH or not (stem.isascii() and stem.isalpha()):
        return None, ""
    capitals = [i for i, c in enumerate(stem) if c.isupper()]
    lowers = [i for i, c in enumerate(stem) if c.islower()]
    if len(capitals) == 1 and capitals[0] > 0:
        return capitals[0], "inside"
    if len(capitals) == 2 and capitals[0] == 0:
        at = capitals[1]
        if at == len(stem) - 1 or stem[at + 1:] in SUFFIXES:
            return None, ""  # DaveB, WiiU; RTing, DMed, PhDs
        return at, "capitalised"
    if len(lowers) == 1 and len(capitals) >= 2:
        at = lowers[0]
        if stem[at:] in SUFFIXES:
            return None, ""  # IDs, CEOs
        return at, "capitals"
    return None, ""


def marked_readings(stem: str, lexicon: Lexicon) -> list[str]:
    """The lexicon words the marked letter's substitution by another letter or its deletion
    gives (lower case; the token as typed is not one of them), or [] when no letter is marked."""
    at, shape = _mark(stem)
    if at is None:
        return []
    low = stem.lower()
    if any(w.startswith(low[at]) for w in lexicon.by_sorted.get("".join(sorted(low)), ())):
        return []  # a capitalised word shuffled (mWoan: Woman), its capital moved inside
    if shape != "inside" and low in lexicon:
        return []  # a word spelled in mixed case (McCain where the lexicon has it)
    head, own, tail = low[:at], low[at], low[at + 1:]
    found = [head + c + tail for c in string.ascii_lowercase if c != own] + [head + tail]
    found = [w for w in dict.fromkeys(found) if w in lexicon and w != low]
    if shape != "inside":
        found = [w for w in found if lexicon.logfreq(w) >= COMMON]
    return found


def unmarked(stem: str) -> str:
    """``stem`` with its marked letter in the case of the rest (``NEcD`` → NECD, ``RAght`` →
    Raght): the casing a reading of it takes (`tokenize.match_case`)."""
    at, shape = _mark(stem)
    if at is None:
        return stem
    return stem.upper() if shape == "capitals" else stem[:1] + stem[1:].lower()
