"""Visual look-alikes: each character that is not a plain letter goes back to the letters it may
stand for, by every account the toolkit has, scored together rather than trusting one table:

- what Unicode says it is: the letter its name spells (``CYRILLIC SMALL LETTER A``, ``CIRCLED
  LATIN SMALL LETTER A``: VIPER's description-based look-alikes), its NFKD base (é → e), its
  UTS #39 confusable class (``confusable-homoglyphs``) and ``anyascii``'s transliteration;
- what the learned VAE-GAN space sees: the letters whose top-n neighbours it is, the letters in
  its own row, and the letters nearest to it in the space as a whole (at any rank), so another
  tool's look-alikes are read even where our table never drew them.

Invisible characters (zero-width spaces and joiners, soft hyphens, bidi controls) and combining
marks read as nothing; digits inside a word (h3ll0) read as the letters nearest to their glyphs.
The readings of the whole word that are dictionary words are its candidates; a word whose
look-alikes are undone but is still no word goes on to the other restorers (`shield.core`).
"""
from __future__ import annotations

import functools
import re
import string
import unicodedata
from itertools import islice

import numpy as np

from ..assets import ArtifactError
from ..visual.confusables import confusables_of, reads_as
from .base import Restorer
from .lexicon import Lexicon
from .keyboard import KeyboardTypoRestorer

LETTERS = string.ascii_letters + string.digits
OPTIONS = 3  # letters kept per look-alike
READINGS = 64  # readings of one word tried against the lexicon, most similar first
# how surely each account of a character names the letter it stands for; the learned space's
# accounts score by their cosine similarity instead
SURE = {"name": 0.95, "nfkd": 0.95, "uts39": 0.9, "anyascii": 0.8}
AGREE = 0.02  # added for each further account naming the same letter
NEAREST = 0.1  # the space's nearest letters at any rank count this much less than a table's


def invisible(char: str) -> bool:
    """A character a reader does not see: a format control (zero-width space or joiner, soft
    hyphen, bidi control) or a combining mark (its base letter is what is read)."""
    return unicodedata.category(char) in ("Cf", "Mn", "Me")


@functools.lru_cache(maxsize=4096)
def name_letter(char: str) -> str | None:
    """The plain letter a character's Unicode name spells (``LATIN SMALL LETTER A WITH GRAVE``,
    ``MODIFIER LETTER SMALL A``, ``CYRILLIC CAPITAL LETTER I``), in its case, or None."""
    try:
        words = unicodedata.name(char).split()
    except ValueError:
        return None
    if not {"LETTER", "SMALL", "CAPITAL"} & set(words):
        return None
    single = [w for w in words if len(w) == 1 and w.isalpha() and w.isascii()]
    if len(single) != 1:
        return None
    return single[0].lower() if "SMALL" in words else single[0]


def _agree(scores: dict[str, float], letter: str, score: float) -> None:
    """Score ``letter``: its best account's score, plus `AGREE` for each further account."""
    scores[letter] = min(1.0, max(scores[letter], score) + AGREE) if letter in scores else score


def _foreign(word: str) -> bool:
    """A word without one plain Latin letter: another script's, unless it only looks Latin."""
    return not any(c in string.ascii_letters for c in word)


def unicode_letters(char: str, strict: bool = False) -> dict[str, float]:
    """The letters Unicode's own data says ``char`` stands for, each with how surely
    (``strict``: only those it looks like, by NFKD and UTS #39; not its name or
    transliteration, which read another script's letters)."""
    found: dict[str, float] = {}

    def add(letter: str, score: float) -> None:
        if letter and letter in LETTERS:
            _agree(found, letter, score)

    letter = None if strict else name_letter(char)
    if letter:
        add(letter, SURE["name"])
    base = unicodedata.normalize("NFKD", char)
    base = "".join(c for c in base if not invisible(c))
    if len(base) == 1:
        add(base, SURE["nfkd"])
    for letter in reads_as(char):
        add(letter, SURE["uts39"])
    if strict:
        return found
    from anyascii import anyascii

    ascii_ = anyascii(char)
    if len(ascii_) == 1:
        add(ascii_, SURE["anyascii"])
    return found


def _best_letters(scores: dict[str, float]) -> list[tuple[str, float]]:
    """The `OPTIONS` best letters of ``scores``, case folded ("T" and "t" are one reading)."""
    folded: dict[str, float] = {}
    for letter, score in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])):
        folded.setdefault(letter.lower(), score)
    return list(islice(folded.items(), OPTIONS))


# a number with a unit or a suffix (3rd, 90s, 5km, 10am), or a name with a number (mp3, covid19)
_NUMBER_WORD = re.compile(r"\d+[a-z]{0,2}|[a-z]+\d+", re.IGNORECASE)


def _leet_like(word: str) -> bool:
    """Digits among at least as many letters, and not a number-like word."""
    digits = sum(c.isdigit() for c in word)
    letters = sum(c.isalpha() for c in word)
    return 0 < digits <= letters and not _NUMBER_WORD.fullmatch(word)


class VisualRestorer(Restorer):
    name = "visual"

    def __init__(self, lexicon: Lexicon, keyboard: KeyboardTypoRestorer, root=None,
                 top_n: int = 20):
        from ..visual.space import load_visual

        space = load_visual(root)
        inverse: dict[str, dict[str, float]] = {}
        for letter in LETTERS:
            if letter in space.rows:
                for char, score in space.neighbours(letter, min(top_n, space.k)):
                    if char not in LETTERS:
                        best = inverse.setdefault(char, {})
                        best[letter] = max(best.get(letter, 0.0), score)
        self.space, self.inverse, self.top_n = space, inverse, top_n
        self.lexicon, self.keyboard = lexicon, keyboard
        self._letters: dict[str, list[tuple[str, float]]] = {}
        self._case: dict[str, str] = {}

    @functools.cached_property
    def apostrophes(self) -> frozenset[str]:
        """The characters that look like the apostrophe (՚, ʼ, ´): the look-alikes of ' and ’
        in the learned space, which the visual attack draws, and their UTS #39 class; not the
        backtick, which ASCII text writes on purpose (Yo mama`s) and the attack never draws."""
        found = set(confusables_of("'")) | set(confusables_of("’"))
        for mark in "'’":
            if mark in self.space.rows:
                found.update(c for c, _ in self.space.neighbours(mark, min(self.top_n,
                                                                            self.space.k)))
        return frozenset(c for c in found if not c.isascii() and c != "’")

    @functools.cached_property
    def _letter_vectors(self) -> tuple[str, np.ndarray] | None:
        """The plain letters the space holds and their unit vectors (one matrix)."""
        try:
            index = self.space.index
        except ArtifactError:  # an export without its index: the table's accounts still read
            return None
        have = "".join(c for c in LETTERS if ord(c) in index)
        if not have:
            return None
        vectors = np.stack([index.vector(ord(c)) for c in have]).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-12
        return have, vectors

    def nearest_letters(self, char: str, k: int = OPTIONS) -> dict[str, float]:
        """The ``k`` letters nearest to ``char`` in the whole learned space, by cosine."""
        letters = self._letter_vectors
        if letters is None or ord(char) not in self.space.index:
            return {}
        have, vectors = letters
        v = self.space.index.vector(ord(char)).astype(np.float32)
        sims = vectors @ (v / (np.linalg.norm(v) + 1e-12))
        top = np.argsort(-sims)[:k]
        return {have[i]: float(sims[i]) - NEAREST for i in top}

    def letters(self, char: str) -> list[tuple[str, float]]:
        """The plain letters ``char`` may stand for, most surely first (empty: none known)."""
        return self._cached(char, char, self._read)

    def _cached(self, key: str, char: str, read) -> list[tuple[str, float]]:
        """``read(char)``, once per ``key`` (each kind of reading has its own keys)."""
        found = self._letters.get(key)
        if found is None:
            found = self._letters[key] = read(char)
        return found

    def _read(self, char: str) -> list[tuple[str, float]]:
        accounts = [unicode_letters(char), dict(self.inverse.get(char, {}))]
        if char in self.space.rows:  # the nearest plain letters in the character's own row
            accounts.append({letter: score for letter, score in
                             self.space.neighbours(char, min(self.top_n, self.space.k))
                             if letter in LETTERS})
            accounts.append(self.nearest_letters(char))
        scores: dict[str, float] = {}
        cased: dict[str, tuple[float, str]] = {}  # folded letter → its best-scored case
        for account in accounts:
            for letter, score in account.items():  # case folds: "T" and "t" are one reading
                low = letter.lower()
                _agree(scores, low, score)
                if score > cased.get(low, (-1.0, ""))[0]:
                    cased[low] = (score, letter)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        if ranked and ranked[0][1] > 0:
            self._case[char] = cased[ranked[0][0]][1]
        return [(letter, score) for letter, score in islice(ranked, OPTIONS) if score > 0]

    def looks(self, char: str) -> list[tuple[str, float]]:
        """The letters ``char`` looks like by UTS #39, NFKD or the learned space's own table:
        the strict reading of a word with no plain letter, where its name or a transliteration
        would read a word of another script as English (שלום as *slim*, привет as *privet*)."""
        return self._cached("looks:" + char, char, self._looks)

    def _looks(self, char: str) -> list[tuple[str, float]]:
        accounts = dict(self.inverse.get(char, {}))
        for letter, score in unicode_letters(char, strict=True).items():
            accounts[letter] = max(accounts.get(letter, 0.0), score)
        return _best_letters(accounts)

    def _cased(self, char: str, strict: bool = False) -> str:
        """The single most likely letter for ``char``, in the case it shows (or, for a
        character without case, the case of the letter it is most like: Tifinagh ⴶ → T)."""
        options = self.looks(char) if strict else self.letters(char)
        if not options:
            return char
        best = options[0][0] if strict else self._case.get(char, options[0][0])
        if char.isupper():
            return best.upper()
        return best.lower() if char.islower() else best

    def read(self, word: str) -> str:
        """``word`` with every look-alike replaced by its most likely letter (case kept where
        the letter has it) and invisible characters dropped: what a reader sees, and the
        casing template of a restored word."""
        out, strict = [], _foreign(word)
        for char in word:
            if char in LETTERS:
                out.append(char)
            elif invisible(char):
                continue
            elif not char.isalpha() and unicodedata.category(char)[0] not in "LNS":
                out.append(char)
            else:
                out.append(self._cased(char, strict))
        return "".join(out)

    def digit_letters(self, digit: str) -> list[tuple[str, float]]:
        """The letters a digit inside a word may stand for (leet: h3ll0, c0st): the letters
        nearest to its glyph in the learned space, digits left out."""
        return self._cached("digit:" + digit, digit, lambda d: _best_letters(
            {c: v for c, v in self.nearest_letters(d, len(LETTERS)).items() if c.isalpha()}))

    def candidates(self, word):
        mixed = word.isascii() and _leet_like(word)
        if word.isascii() and not mixed:
            return {}
        slots, strict = [], _foreign(word)
        for char in word:
            if mixed and char.isdigit() and char.isascii():
                slots.append(self.digit_letters(char) or [(char, 1.0)])
            elif char in LETTERS:
                slots.append([(char.lower(), 1.0)])
            elif invisible(char):
                continue
            else:
                options = self.looks(char) if strict else self.letters(char)
                if not options:
                    return {}
                slots.append(options)
        readings = [("", 1.0)]
        for options in slots:  # a beam over the word, most similar readings first
            readings = sorted(((r + letter, s * score) for r, s in readings
                               for letter, score in options), key=lambda rs: -rs[1])[:READINGS]
        found = {r: s for r, s in readings if r in self.lexicon}
        if found:
            top = max(found.values())
            return {r: s / top for r, s in found.items()}
        return {c: 0.5 * v for c, v in self.keyboard.candidates(readings[0][0]).items()}
