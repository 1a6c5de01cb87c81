"""Visual look-alikes: each character that is not a plain letter goes back to the letters it
looks like, read from the VAE-GAN space itself (the letters whose top-n neighbours it is, and
the letters nearest in its own row: VIPER's rule-based recovery done with this toolkit's
embeddings), then Unicode decomposition (é → e) and ``anyascii`` transliteration as fallbacks;
the readings of the whole word that are dictionary words are its candidates.
"""
from __future__ import annotations

import string
import unicodedata
from itertools import islice

from .base import Restorer
from .lexicon import Lexicon
from .keyboard import KeyboardTypoRestorer

LETTERS = string.ascii_letters + string.digits
OPTIONS = 3  # letters kept per look-alike
READINGS = 64  # readings of one word tried against the lexicon, most similar first


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

    def letters(self, char: str) -> list[tuple[str, float]]:
        """The plain letters ``char`` may stand for, most similar first (empty: none known)."""
        found = self._letters.get(char)
        if found is None:
            found = self._read(char)
            self._letters[char] = found
        return found

    def _read(self, char: str) -> list[tuple[str, float]]:
        options = dict(self.inverse.get(char, {}))
        if char in self.space.rows:  # the nearest plain letters in the character's own row
            for letter, score in self.space.neighbours(char, min(self.top_n, self.space.k)):
                if letter in LETTERS:
                    options[letter] = max(options.get(letter, 0.0), score)
        if not options:
            base = unicodedata.normalize("NFKD", char)[:1]
            if base in LETTERS:
                options[base] = 0.9
            else:
                from anyascii import anyascii

                ascii_ = anyascii(char)
                if len(ascii_) == 1 and ascii_ in LETTERS:
                    options[ascii_] = 0.8
        ranked = sorted(options.items(), key=lambda kv: (-kv[1], kv[0]))
        low: dict[str, float] = {}
        for letter, score in ranked:  # case folds together: "T" and "t" are one reading
            low.setdefault(letter.lower(), score)
        return list(islice(low.items(), OPTIONS))

    def read(self, word: str) -> str:
        """``word`` with every look-alike replaced by its most similar letter (case kept where
        the letter has it): what a reader sees, and the casing template of a restored word."""
        out = []
        for char in word:
            if char in LETTERS or not char.isalpha() and not unicodedata.category(char)[0] in "LMNS":
                out.append(char)
                continue
            inv = sorted(self.inverse.get(char, {}).items(), key=lambda kv: (-kv[1], kv[0]))
            found = inv[0][0] if inv else (self.letters(char)[0][0] if self.letters(char) else char)
            out.append(found)
        return "".join(out)

    def candidates(self, word):
        if word.isascii():
            return {}
        slots = []
        for char in word:
            if char in LETTERS:
                slots.append([(char.lower(), 1.0)])
            else:
                options = self.letters(char)
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
