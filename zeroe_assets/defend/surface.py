"""The enumerable attack surface of certificates and cluster encodings: every one-change
perturbation of a word (`Surface.forms`), and its exact inverse (`Surface.sources`): the words of
a vocabulary that a token is one change away from, found by undoing each change with dictionary
lookups instead of enumerating the vocabulary's forms.

The families (`SURFACE`), one change per word, every instance enumerated:

- ``swap``: two neighbouring inner letters swapped (the smallest inner shuffle);
- ``delete`` / ``insert``: one inner letter deleted, one letter a–z inserted inside the word;
- ``keyboard``: one letter replaced by a QWERTY neighbour (the keyboard-typo perturber's keys);
- ``visual``: one character replaced by one of its look-alikes in the visual table (top 20);
- ``intrude``: one symbol of the intrude perturber's set put between two letters;
- ``truncate``: the last letter cut; ``disemvowel``: every vowel dropped;
- ``natural-typo`` and ``phonetic``: every misspelling and respelling their tables hold.

The first and last letters are changed by ``keyboard``, ``visual`` and ``truncate`` too (RobEn's
typos keep them; these attacks do not).
"""
from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence

from .. import registry

SURFACE = ("swap", "delete", "insert", "keyboard", "visual", "intrude", "truncate",
           "disemvowel", "natural-typo", "phonetic")
VOWELS = frozenset("aeiouAEIOU")
LETTERS = frozenset(string.ascii_lowercase)


class Surface:
    """``forms(word)``: every one-change perturbation of ``word`` the surface holds;
    ``sources(token, words)``: the words of ``words`` (lower case) that ``token`` is a form of."""

    def __init__(self, families: Sequence[str] = SURFACE):
        unknown = [f for f in families if f not in SURFACE]
        if unknown or not families:
            raise ValueError(f"unknown certificate surface {', '.join(unknown) or '(none)'}; "
                             f"choose from {', '.join(SURFACE)}")
        self.families = tuple(f for f in SURFACE if f in families)
        self._perturbers: dict[str, object] = {}
        self._inverse: tuple[object, dict] | None = None

    def _perturber(self, name: str):
        if name not in self._perturbers:
            options = {"oov": "off"} if name == "phonetic" else {}
            self._perturbers[name] = registry.get_perturber(name, **options)
        return self._perturbers[name]

    def forms(self, word: str) -> dict[str, str]:
        """Each perturbation of ``word`` and the first family (in `SURFACE` order) giving it."""
        out: dict[str, str] = {}
        for family in self.families:
            for form in getattr(self, "_" + family.replace("-", "_"))(word):
                out.setdefault(form, family)
        out.pop(word, None)
        return out

    def _swap(self, w):
        return {w[:i] + w[i + 1] + w[i] + w[i + 2:] for i in range(1, len(w) - 2)}

    def _delete(self, w):
        return {w[:i] + w[i + 1:] for i in range(1, len(w) - 1)} if len(w) > 2 else set()

    def _insert(self, w):
        return {w[:i] + c + w[i:] for i in range(1, len(w)) for c in string.ascii_lowercase}

    def _keyboard(self, w):
        table = self._perturber("keyboard-typo").neighbours
        return {w[:i] + (n.upper() if c.isupper() else n) + w[i + 1:]
                for i, c in enumerate(w) for n in table.get(c.lower(), ())}

    def _look_alikes(self, c: str) -> Sequence[str]:
        return self._perturber("visual").look_alikes(c)

    def _visual(self, w):
        return {w[:i] + n + w[i + 1:] for i, c in enumerate(w) for n in self._look_alikes(c)}

    def _intrude(self, w):
        symbols = self._perturber("intrude").symbols
        return {w[:i] + s + w[i:] for i in range(1, len(w)) for s in symbols}

    def _truncate(self, w):
        return {w[:-1]} if len(w) > 2 else set()

    def _disemvowel(self, w):
        out = "".join(c for c in w if c not in VOWELS)
        return {out} if out else set()

    def _natural_typo(self, w):
        return set(self._perturber("natural-typo").candidates(w, 1000, None))

    def _phonetic(self, w):
        return set(self._perturber("phonetic").forms(w))

    # the inverse ---------------------------------------------------------------------------

    def intruded(self, token: str, words) -> set[str]:
        """The words of ``words`` that ``token`` (lower-cased) is with one symbol of intrude's
        set put between two letters."""
        t, symbols = token.lower(), self._perturber("intrude").symbols
        return {u for i in range(1, len(t) - 1)
                if t[i] in symbols and (u := t[:i] + t[i + 1:]) in words}

    def index(self, words: Iterable[str]) -> Mapping[str, set[str]]:
        """The lookups `sources` needs for the vocabulary ``words`` (lower case), built once:
        the families whose inverse is not a handful of edits of the token (deletions, cut
        words, dropped vowels, the two tables) indexed by form, and the look-alikes and
        keyboard keys inverted over the vocabulary's characters."""
        if self._inverse is not None and self._inverse[0] is words:
            return self._inverse[1]
        of = words
        words = frozenset(words)
        tables: dict[str, set[str]] = {"": set(words)}
        indexed = {"delete", "truncate", "disemvowel", "natural-typo", "phonetic"}
        for w in words:
            for family in indexed & set(self.families):
                for form in getattr(self, "_" + family.replace("-", "_"))(w):
                    tables.setdefault(family + ":" + form.lower(), set()).add(w)
        chars = {c for w in words for c in w}
        for c in chars:
            for case in {c, c.upper()}:
                if "visual" in self.families:
                    for n in self._look_alikes(case):
                        tables.setdefault("visual:" + n.lower(), set()).add(c)
                if "keyboard" in self.families:
                    for n in self._perturber("keyboard-typo").neighbours.get(c, ()):
                        tables.setdefault("keyboard:" + n, set()).add(c)
        self._inverse = (of, tables)  # the last vocabulary's, kept while it is the one asked for
        return tables

    def sources(self, token: str, words: Iterable[str]) -> set[str]:
        """The words of ``words`` (lower case) one change of the surface away from ``token``,
        letter case aside (itself excluded): every ``w`` whose lower case is in ``words`` has
        ``w.lower()`` among the sources of each of its `forms`."""
        t = token.lower()
        tables = self.index(words)
        vocabulary = tables[""]
        found: set[str] = set()
        for family in self.families:
            if family in ("delete", "truncate", "disemvowel", "natural-typo", "phonetic"):
                found |= tables.get(family + ":" + t, set())
            elif family == "swap":
                found.update(u for i in range(1, len(t) - 2)
                             if (u := t[:i] + t[i + 1] + t[i] + t[i + 2:]) in vocabulary)
            elif family == "insert":  # an inner letter a–z taken out again
                found.update(u for i in range(1, len(t) - 1)
                             if t[i] in LETTERS and (u := t[:i] + t[i + 1:]) in vocabulary)
            elif family == "intrude":
                found.update(self.intruded(t, vocabulary))
            else:  # keyboard, visual: each character back to the letters it stands for
                for i, c in enumerate(t):
                    for b in tables.get(family + ":" + c, ()):
                        if (u := t[:i] + b + t[i + 1:]) in vocabulary:
                            found.add(u)
        found.discard(t)
        return found
