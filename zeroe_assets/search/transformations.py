"""Transformations (TextAttack's first part): the candidate changes of one word of a text.

- ``PerturberSwap``: any Zéroe perturber through its ``candidates`` (segment through
  ``attack_at``: it joins a word with the next); apostrophes and clitics stay in place and the
  perturber sees only the stem (`tokenize.stem`), visual's too, although the random protocol
  hands it whole words (``Perturber.whole_words``): the constraints compare stems.
- ``CharEdit``: the character operations of DeepWordBug (Gao et al. 2018: neighbour swap,
  substitution, deletion, insertion) and of Pruthi et al. 2019 (the same on inner letters, and
  keyboard neighbours from the keyboard perturber's table).
- ``AnyCharacter``: Charmer's edits (Abad Rocamora et al. 2024): any character of an alphabet
  inserted, replaced or deleted at any slot of a word.
- ``Imperceptible``: Boucher et al. 2022's invisible characters, homoglyphs, bidi reorderings
  and backspace deletions (``imperceptible.py``).
- ``Union``: several of them, their candidates interleaved fairly up to k.

Candidates are always changes of the *original* word at a position (no stacking), so a search
computes them once per position and example (``edits``) and applies them to any text.

``lifted(Lifts(...))`` gives a transformation without the restrictions a defense may rely on
(Pruthi's inner letters, a minimum word length, lower-case ASCII letters): the recipes' options
of the same names (``search.recipes``), so that the defender table can ask every recipe for an
attack that ignores them.
"""
from __future__ import annotations

import functools
import random
import string
import unicodedata
from dataclasses import dataclass

from .. import registry, tokenize
from ..perturbers.base import CANDIDATE_PHI, Perturber
from ..validate import check_int
from . import imperceptible
from .text import AttackedText, Edit, respellings

LETTERS = string.ascii_lowercase
# what draws nothing on its own: controls, format characters (zero-width, bidi: Bad Characters'
# domain), surrogates, private use, unassigned code points and spaces
UNDRAWN = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"))


@functools.lru_cache(maxsize=1)
def unicode_characters() -> str:
    """Every code point of this Python's Unicode database that draws something (not in
    ``UNDRAWN``), in code point order: the letters an attack with ``any_unicode`` draws from."""
    return "".join(c for c in map(chr, range(0x110000))
                   if unicodedata.category(c) not in UNDRAWN)


@dataclass(frozen=True)
class Lifts:
    """Restrictions to lift, as the recipes' options name them. ``edit_ends``: the first and
    last character of a word may change (Pruthi's operations keep them: the assumption of
    scRNN-style word recognisers); ``min_word_length``: the shortest word a character operation
    acts on (None: each operation's own); ``edit_capitals``: inserted and substituted letters
    are drawn from a–z and A–Z (defenses that lower-case their input never see them);
    ``any_unicode``: from every character that draws something, and words outside ASCII may
    change too (defenses that map input to ASCII)."""

    edit_ends: bool = False
    min_word_length: int | None = None
    edit_capitals: bool = False
    any_unicode: bool = False

    def letters(self, letters: str) -> str:
        """What insertions and substitutions draw from where they drew from ``letters``."""
        if self.any_unicode:
            return unicode_characters()
        return "".join(dict.fromkeys(letters + letters.upper())) if self.edit_capitals \
            else letters


class Transformation:
    """Base class: ``forms`` (new spellings of one word) or, for context changes, ``edits``."""

    name = ""
    token_aligned = True  # False where an edit changes how many tokens there are (segment)
    keeps_ends = False  # True where no edit changes a word's first or last character
    draws_letters = False  # True where insertions or substitutions draw from an alphabet
    # True where a word's edits depend on the word alone (its one new spelling each), not on
    # the words around it or the text's characters: `search.methods.WordDraws` keys them on it
    word_local = True

    def lifted(self, lifts: Lifts) -> Transformation:
        """This transformation without the restrictions ``lifts`` names (itself where it has
        none of them: what a recipe option cannot change is refused by the recipe)."""
        return self

    def prepare(self, text: AttackedText) -> None:
        """Batch work for the words of ``text`` before their candidates are asked for one by
        one (phonetic: respell its unknown words at once); candidates never depend on it."""

    def can_change(self, text: AttackedText, position: int) -> bool:
        """Whether some candidate may exist at ``position`` (cheap: no candidates drawn). A
        pos token with no word in it for the toolkit (punctuation, a number) stays, as under
        the protocol, where such text lives in the gaps."""
        word = text.word(position)
        if text.kind == "tokens" and not tokenize.words(word):
            return False
        head, stem, tail = tokenize.stem(word)
        return bool(stem) and self.can_change_word(stem)

    def can_change_word(self, word: str) -> bool:
        raise NotImplementedError

    def forms(self, word: str, k: int, rng: random.Random) -> list[str]:
        """Up to ``k`` distinct changed spellings of ``word`` (a stem without apostrophes)."""
        raise NotImplementedError

    def spellings(self, text: AttackedText, position: int, k: int,
                  rng: random.Random) -> list[str]:
        """Up to ``k`` distinct new spellings of the word at ``position``: what ``edits`` puts
        there, without the edits (a word-local transformation's draws, `methods.WordDraws`,
        which keeps only the spellings)."""
        head, stem, tail = tokenize.stem(text.word(position))
        if not stem:
            return []
        return [head + form + tail for form in self.forms(stem, k, rng) if form != stem]

    def edits(self, text: AttackedText, position: int, k: int, rng: random.Random) -> list[Edit]:
        """Up to ``k`` distinct edits of the word at ``position``."""
        s, i = text.locate(position)
        return respellings(s, i, position, self.spellings(text, position, k, rng))

    def candidates(self, text: AttackedText, position: int, k: int,
                   rng: random.Random) -> list[AttackedText]:
        """Up to ``k`` texts, each ``text`` with one candidate change at ``position``."""
        return [text.apply(e) for e in self.edits(text, position, check_int("k", k), rng)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class PerturberSwap(Transformation):
    """A Zéroe perturber's candidates as the search's word swaps (``phi``: the φ of its random
    draws); not a `zeroe_assets.Perturbation`, which perturbs under the random protocol."""

    def __init__(self, perturber: Perturber, phi: float = CANDIDATE_PHI):
        self.perturber, self.phi = perturber, phi
        self.name = perturber.name
        self.token_aligned = perturber.token_aligned
        self.keeps_ends = perturber.keeps_ends
        self._context = perturber.scope == "context"
        self.word_local = not self._context

    def prepare(self, text):
        if self.perturber.prepares:
            self.perturber.prepare({tokenize.stem(text.word(p))[1] for p in range(len(text))})

    def can_change(self, text, position):
        if self._context:  # segment: joins the word with the next over a joinable gap
            s, i = text.locate(position)
            words, gaps = text.segments[s]
            probe = bytearray(len(words))
            return i + 1 < len(words) and bool(self.perturber.attack_at(
                list(words[:i + 2]), list(gaps[:i + 3]), i, 0.0, random.Random(0), probe))
        return super().can_change(text, position)

    def can_change_word(self, word):
        return self.perturber.can_change(word)

    def forms(self, word, k, rng):
        return self.perturber.candidates(word, k, rng, self.phi)

    def edits(self, text, position, k, rng):
        if not self._context:
            return super().edits(text, position, k, rng)
        s, i = text.locate(position)
        words, gaps = text.segments[s]
        found: dict[tuple, Edit] = {}
        for _ in range(2 * k + 2):  # distinct runs of joins, bounded draws as ``candidates``
            new_words, new_gaps = list(words), list(gaps)
            changed = self.perturber.attack_at(new_words, new_gaps, i, self.phi, rng,
                                               bytearray(len(words)))
            if not changed:
                break
            edit = Edit(s, tuple((j, w) for j, (w, old) in enumerate(zip(new_words, words))
                                 if w != old),
                        tuple((j, g) for j, (g, old) in enumerate(zip(new_gaps, gaps))
                              if g != old),
                        tuple(text.position(s, j) for j in changed))
            found.setdefault(edit.words + edit.gaps, edit)
            if len(found) == k:
                break
        return list(found.values())


# the character operations: (name, what it does) — DeepWordBug's four, Pruthi's four
CHAR_OPS = {
    "swap": "swap two neighbouring characters",
    "substitute": "replace a character by a random letter",
    "delete": "delete a character",
    "insert": "insert a random letter",
    "keyboard": "replace a letter by a neighbouring key (QWERTY)",
}


class CharEdit(Transformation):
    """One character operation at random places of a word (``inner``: never the first or last
    character, as Pruthi et al.; words shorter than ``min_length`` are left alone), or with
    ``exhaustive`` every place once (TextAttack's ``random_one=False``), in order. Insertions
    and substitutions draw from ``letters``; ``ascii_only``: words with other characters stay
    (no combining marks to split).
    """

    def __init__(self, op: str, inner: bool = False, exhaustive: bool = False,
                 name: str | None = None, min_length: int = 1, letters: str = LETTERS,
                 ascii_only: bool = True):
        if op not in CHAR_OPS:
            raise ValueError(f"unknown character operation {op!r}; choose from "
                             f"{', '.join(CHAR_OPS)}")
        self.op, self.inner, self.exhaustive = op, inner, exhaustive
        self.min_length, self.letters, self.ascii_only = min_length, letters, ascii_only
        self.name = name or f"char-{op}"
        self.keeps_ends = inner
        self.draws_letters = op in ("substitute", "insert")
        self._keys = None
        if op == "keyboard":
            from ..perturbers.keyboard import KeyboardPerturber

            self._keys = KeyboardPerturber().neighbours

    def lifted(self, lifts):
        return CharEdit(self.op, self.inner and not lifts.edit_ends, self.exhaustive, self.name,
                        lifts.min_word_length or self.min_length, lifts.letters(self.letters),
                        self.ascii_only and not lifts.any_unicode)

    def _places(self, word: str) -> range:
        """Where the operation may act: character indices (swap: i with i + 1; insertion:
        before i)."""
        n, inner = len(word), int(self.inner)
        if n < max(self.min_length, 2):  # a one-letter word has nothing to swap or keep
            return range(0)
        if self.op == "swap":
            return range(inner, n - 1 - inner)
        if self.op == "insert":
            return range(inner, n + 1 - inner)
        return range(inner, n - inner)

    def can_change_word(self, word):
        if self.ascii_only and not word.isascii():
            return False
        if self.op == "keyboard":
            keys = self._keys
            return any(word[i].lower() in keys for i in self._places(word))
        return len(self._places(word)) > 0

    def _at(self, word: str, i: int, rng: random.Random) -> list[str]:
        op = self.op
        if op == "swap":
            return [word[:i] + word[i + 1] + word[i] + word[i + 2:]]
        if op == "delete":
            return [word[:i] + word[i + 1:]]
        letters = self.letters
        if op == "insert":
            return [word[:i] + letters[int(rng.random() * len(letters))] + word[i:]]
        if op == "substitute":
            return [word[:i] + letters[int(rng.random() * len(letters))] + word[i + 1:]]
        near = self._keys.get(word[i].lower(), ())
        up = word[i].isupper()
        return [word[:i] + (c.upper() if up else c) + word[i + 1:] for c in near]

    def forms(self, word, k, rng):
        if not self.can_change_word(word):
            return []
        places = self._places(word)
        found: dict[str, None] = {}
        if self.exhaustive:
            for i in places:
                found.update(dict.fromkeys(self._at(word, i, rng)))
        else:
            for _ in range(2 * k + 2):
                options = self._at(word, places[int(rng.random() * len(places))], rng)
                if options:
                    found[options[int(rng.random() * len(options))]] = None
                    if len(found) > k:
                        break
        found.pop(word, None)
        return list(found)[:k]


class AnyCharacter(Transformation):
    """Charmer's edits (Abad Rocamora et al. 2024, §3): one character of ``alphabet`` inserted
    at any place of a word, or put in place of any of its characters, or a character deleted.
    The places of a word of n characters are its 2n + 1 slots: slot 2i is before character i,
    slot 2i + 1 is character i. ``alphabet`` None: the characters of the text edited, plus
    ``letters`` (Charmer's alphabet is its dataset's characters). As candidates of a word
    (``edits``) only the word's slots; Charmer's search (``search.charmer``) also edits the gap
    after it."""

    name = "any-char"
    DELETE = ""  # the alphabet's stand-in for a deletion
    draws_letters = True

    def __init__(self, alphabet: str | None = None, letters: str = LETTERS):
        self.alphabet = None if alphabet is None else "".join(dict.fromkeys(alphabet))
        self.letters = letters
        self.word_local = alphabet is not None  # else the text's characters are drawn from

    def lifted(self, lifts):
        if lifts.any_unicode:
            raise ValueError("any_unicode cannot apply to any-char (charmer's edits): it tries "
                             "every character of its alphabet at a slot, and Unicode has some "
                             "150,000")
        alphabet = None if self.alphabet is None else lifts.letters(self.alphabet)
        return AnyCharacter(alphabet, lifts.letters(self.letters))

    def characters(self, text: AttackedText) -> list[str]:
        """The alphabet for ``text``, in a fixed order, with the deletion first."""
        chars = self.alphabet if self.alphabet is not None else "".join(sorted(
            set(self.letters).union(*(part for words, gaps in text.segments
                                      for part in (*words, *gaps)))))
        return [self.DELETE, *chars]

    def can_change_word(self, word):
        return bool(word)

    @staticmethod
    def put(word: str, slot: int, char: str) -> str:
        """``word`` with ``char`` inserted at an even slot or replacing the character at an odd
        one ("" deletes it; a deletion at an insertion slot changes nothing)."""
        i = slot // 2
        return word[:i] + char + word[i + slot % 2:]

    @staticmethod
    def slots(text: AttackedText, position: int) -> int:
        """How many slots the word at ``position`` and the gap after it have: the word's 2n + 1,
        then the gap's but its first (the word's last insertion again)."""
        return 2 * len(text.word(position)) + 1 + 2 * len(text.gap_after(position))

    @staticmethod
    def at_slot(text: AttackedText, position: int, slot: int,
                chars: list[str]) -> list[AttackedText]:
        """``text`` with each of ``chars`` at ``slot`` of the word at ``position`` (the word
        itself, not its stem: Charmer edits any character) or of the gap after it, changes
        only; the change counts as the word's."""
        word = text.word(position)
        s, i = text.locate(position)
        at_gap = slot > 2 * len(word)
        old = text.gap_after(position) if at_gap else word
        where = slot - 2 * len(word) if at_gap else slot
        forms = dict.fromkeys(AnyCharacter.put(old, where, c) for c in chars)
        forms.pop(old, None)
        if at_gap:
            return [text.apply(Edit(s, (), ((i + 1, form),), (position,))) for form in forms]
        return [text.apply(Edit(s, ((i, form),), (), (position,))) for form in forms if form]

    def spellings(self, text, position, k, rng):
        """The first ``k`` new spellings of the word at ``position``, slot by slot (no draws)."""
        word, chars = text.word(position), self.characters(text)
        forms = dict.fromkeys(self.put(word, slot, c) for slot in range(2 * len(word) + 1)
                              for c in chars)
        forms.pop(word, None)
        forms.pop("", None)
        return list(forms)[:k]


class Imperceptible(Transformation):
    """One of Boucher et al. 2022's imperceptible perturbations (``imperceptible.KINDS``):
    each candidate is one injection into the word, ``k`` of them drawn from all of them."""

    def __init__(self, kind: str):
        if kind not in imperceptible.KINDS:
            raise ValueError(f"unknown imperceptible perturbation {kind!r}; choose from "
                             f"{', '.join(imperceptible.KINDS)}")
        self.kind, self.name = kind, f"bad-{kind}"

    def can_change_word(self, word):
        return imperceptible.can_change(self.kind, word)

    def forms(self, word, k, rng):
        found = imperceptible.injections(self.kind, word)
        if len(found) <= k:
            return found
        return [found[i] for i in sorted(rng.sample(range(len(found)), k))]


class Union(Transformation):
    """Several transformations: each member's edits, interleaved fairly (first of each, then
    second of each …) up to k, duplicates dropped."""

    def __init__(self, members: list[Transformation]):
        if not members:
            raise ValueError("a set of transformations needs at least one")
        self.members = list(members)
        self.name = "|".join(m.name for m in self.members)
        self.token_aligned = all(m.token_aligned for m in self.members)
        self.keeps_ends = all(m.keeps_ends for m in self.members)
        self.draws_letters = any(m.draws_letters for m in self.members)
        self.word_local = all(m.word_local for m in self.members)

    def lifted(self, lifts):
        return Union([m.lifted(lifts) for m in self.members])

    def prepare(self, text):
        for m in self.members:
            m.prepare(text)

    def can_change(self, text, position):
        return any(m.can_change(text, position) for m in self.members)

    def edits(self, text, position, k, rng):
        if self.word_local:  # the members' spellings, made edits once at the end
            return super().edits(text, position, k, rng)
        return self._interleaved(text, position, k, lambda m, n: m.edits(text, position, n, rng),
                                 lambda e: e.words + e.gaps)

    def spellings(self, text, position, k, rng):
        return self._interleaved(text, position, k,
                                 lambda m, n: m.spellings(text, position, n, rng), str)

    def _interleaved(self, text, position, k, draw, key) -> list:
        """Up to ``k`` of the members' candidates (``draw(member, n)``: its first n), the first
        of each, then the second of each …, the first of those equal by ``key`` kept."""
        # each member draws its share of k; where some have fewer, those that filled their
        # share draw again, for the room the others left (truncate has one or two)
        members = [m for m in self.members if m.can_change(text, position)]
        share = -(-k // max(len(members), 1))
        lists = [draw(m, share) for m in members]
        full = sum(len(found) == share for found in lists)
        room = k - sum(map(len, lists))
        if room > 0 and full:
            more = share + -(-room // full)
            lists = [draw(m, more) if len(found) == share else found
                     for m, found in zip(members, lists)]
        found: dict = {}
        for row in range(max(map(len, lists), default=0)):
            for drawn in lists:
                if row < len(drawn):
                    found.setdefault(key(drawn[row]), drawn[row])
                    if len(found) == k:
                        return list(found.values())
        return list(found.values())


# the named character transformations recipes and users pick from (``--transformations``)
CHAR_TRANSFORMATIONS = {
    # DeepWordBug (Gao et al. 2018): anywhere in the word, one random place per candidate
    "dwb-swap": dict(op="swap"),
    "dwb-substitute": dict(op="substitute"),
    "dwb-delete": dict(op="delete"),
    "dwb-insert": dict(op="insert"),
    # Pruthi et al. 2019: inner letters of words of at least 4 letters, every place
    "pruthi-swap": dict(op="swap", inner=True, exhaustive=True, min_length=4),
    "pruthi-drop": dict(op="delete", inner=True, exhaustive=True, min_length=4),
    "pruthi-add": dict(op="insert", inner=True, exhaustive=True, min_length=4),
    "pruthi-keyboard": dict(op="keyboard", inner=True, exhaustive=True, min_length=4),
}


IMPERCEPTIBLE = tuple(f"bad-{kind}" for kind in imperceptible.KINDS)


def transformation_names() -> tuple[str, ...]:
    """Every name ``get_transformation`` takes: the ten Zéroe perturbers, the character
    operations, Charmer's any character and the imperceptible perturbations."""
    return registry.NAMES + tuple(CHAR_TRANSFORMATIONS) + (AnyCharacter.name,) + IMPERCEPTIBLE


def get_transformation(name: str, phi: float = CANDIDATE_PHI, **options) -> Transformation:
    """A transformation by name (a perturber name or alias, or a character operation);
    ``options`` go to the perturber. The phonetic perturber offers its table's respellings
    only unless ``oov="auto"`` is given: respelling words outside the table runs the seq2seq
    models, seconds per text, far more than the victim's time."""
    key = name.strip().lower()
    if key == AnyCharacter.name:
        return AnyCharacter(**options)
    if key in IMPERCEPTIBLE:
        return Imperceptible(key.removeprefix("bad-"))
    if key in CHAR_TRANSFORMATIONS:
        return CharEdit(name=key, **CHAR_TRANSFORMATIONS[key])
    try:
        canonical = registry.canonical(key)
    except ValueError:
        raise ValueError(f"unknown transformation {name!r}; choose from "
                         f"{', '.join(transformation_names())}") from None
    if canonical == "phonetic":
        options.setdefault("oov", "off")
    return PerturberSwap(registry.get_perturber(canonical, **options), phi)


def get_transformations(names, phi: float = CANDIDATE_PHI, token_aligned: bool = False
                        ) -> Transformation:
    """One transformation or the ``Union`` of several (a list or a comma-separated string);
    ``token_aligned`` (POS) refuses those that change the token count."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    if not names:
        raise ValueError(f"give at least one transformation; choose from "
                         f"{', '.join(transformation_names())}")
    members = [get_transformation(n, phi) for n in names]
    if token_aligned:
        wrong = [m.name for m in members if not m.token_aligned]
        if wrong:
            raise ValueError(f"{', '.join(wrong)} changes the number of tokens, which a "
                             f"token-aligned task (pos) cannot take")
    return members[0] if len(members) == 1 else Union(members)
