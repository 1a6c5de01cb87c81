"""Phonetic attack (paper §3.2 "Phonetic", §3.3): replace a word by a respelling that sounds the
same (night → nite, their → there), drawn uniformly from its row of the prebuilt table
(``zeroe_assets.phonetic``: back-transliterations, phonetic-index neighbours, lexicon homophones
and slang respellings judged to sound identical or very similar).

This module is the policy: which words (function words, abbreviations, acronyms and words under
``MIN_LETTERS`` stay), which respellings (the table's, or for words outside it the same models
run on the fly when torch and the exported seq2seq models are there: ``oov="auto"``, in batches
and cached), the text's case pattern and apostrophes, and the order the protocol visits words in
(``attack_drawn``), which makes the output independent of whether the OOV path is there.
"""
from __future__ import annotations

import functools
import importlib.util
import random
import warnings
from math import trunc
from pathlib import Path
from typing import Iterable

from ..assets import load_component
from ..phonetic.names import SEQ2SEQ
from ..phonetic.space import load_phonetic
from ..data import stopwords
from ..tokenize import match_case, stem
from ._cache import LIMIT, PerWord
from .base import CANDIDATE_PHI, Perturber
from ..validate import NeedsTorch, check_int

# Words of one or two letters are not respelled: their rows are mostly readings, not
# respellings (tv → television, st → street, us → asse): in the shipped table 49% of the 211
# two-letter words' respellings are twice as long or start with another letter, against 19% for
# three letters and at most 11% from four on.
MIN_LETTERS = 3
# An all-capital word this short is read letter by letter (US, UK, NASA), not as a word.
ACRONYM_LETTERS = 4
# Before a full stop these are abbreviations, read as what they stand for (Dr. → Doctor, not
# the lexicon's Drive): titles, street and company words, months and days, common Latin ones.
ABBREVIATIONS = frozenset("""
mr mrs ms dr prof rev hon gen col lt sgt capt gov sen rep jr sr st mt ave blvd rd ln hwy
inc ltd corp co bros dept univ assn est approx etc vs viz cf al fig vol ch no nos pp ed eds
jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
""".split())
_SEPARATORS = "'\u2019-"


def _key(word: str) -> str:
    """How the table spells ``word``: lower case, with straight apostrophes (teacher’s)."""
    return word.lower().replace("\u2019", "'")


def _like(word: str, respelling: str) -> str | None:
    """``respelling`` in the case pattern of ``word``, with the text's apostrophe (teacher’s);
    None when an inner capital has no place in it. An inner capital after a separator goes after
    the same separator (O'Neill → O'Neal), else after the same letters (McDonald → McDonnald)."""
    new = match_case(word, respelling)
    if "\u2019" in word:
        new = new.replace("'", "\u2019")
    if _plain_case(word):
        return new
    for i in (i for i in range(1, len(word)) if word[i].isupper()):
        if word[i - 1] in _SEPARATORS:
            nth = sum(c in _SEPARATORS for c in word[:i])
            at = [j + 1 for j, c in enumerate(new) if c in _SEPARATORS]
            j = at[nth - 1] if len(at) >= nth else len(new)
        else:
            j = i if new[:i].lower() == word[:i].lower() else len(new)
        if j >= len(new) or not new[j].isalpha():
            return None
        new = new[:j] + new[j].upper() + new[j + 1:]
    return new


def _plain_case(word: str) -> bool:
    """Whether ``word`` has no inner capital to place (night, Night, NIGHT)."""
    return word[1:].islower() or word.isupper() or not any(c.isupper() for c in word[1:])


def oov_available() -> bool:
    """Whether the OOV path can run here: torch is installed (found, not imported)."""
    return importlib.util.find_spec("torch") is not None


class PhoneticPerturber(Perturber):
    """Options: ``skip_stopwords`` (function words stay, as in the reference), ``oov`` ("auto":
    respell words outside the table when torch and the seq2seq models are there; "off"), and
    the OOV path's ``n_best``/``beam`` (default: the export's).

    With torch installed, ``oov="auto"`` needs the seq2seq models: a missing or corrupt one is an
    ``ArtifactError`` here (not a different result later). Without torch the OOV path is off,
    with one warning when a word needs it.
    """

    name = "phonetic"
    description = "replace a word by a sound-alike respelling (G2P→P2G, Siamese phonetic embedder)"
    scope = "drawn"
    prepares = True

    def __init__(self, root: Path | str | None = None, skip_stopwords: bool = True,
                 oov: str = "auto", n_best: int | None = None, beam: int | None = None):
        if oov not in ("auto", "off"):
            raise ValueError(f"oov must be 'auto' (respell unknown words when torch and the "
                             f"seq2seq models are there) or 'off', got {oov!r}")
        n_best, beam = (None if v is None else check_int(k, v) for k, v in
                        (("n_best", n_best), ("beam", beam)))
        self.root = Path(root) if root else None
        self.space = load_phonetic(root)
        if oov == "auto" and oov_available():
            load_component(SEQ2SEQ, self.root)  # verified now: ArtifactError with the rebuild hint
        self.skip = stopwords() if skip_stopwords else frozenset()
        self.oov = oov
        # the OOV path decodes like the export did (its config is in the manifest)
        self.settings = dict(self.space.component.meta.get("export_config") or {})
        self.settings.update({k: v for k, v in (("n_best", n_best), ("beam", beam))
                              if v is not None})
        self.respelled = (self.space.respelled.setdefault(
            tuple(sorted((k, str(v)) for k, v in self.settings.items())), {})
            if oov == "auto" else {})  # oov="off": only the table, whatever others decoded
        # one dict for the hot path: table words, OOV words decoded so far, stopwords (no draw)
        self.lookup: dict[str, tuple[str, ...]] = {**self.space.options, **self.respelled,
                                                   **dict.fromkeys(self.skip, ())}
        self._respeller = None  # phonetic.respell.Respeller, loaded on first need
        # the policy worked out once per spelling: a word's forms, and how a drawn word is visited;
        # the table's own rows (lower case, as most words of a text are) are visited from the
        # start, so that a first pass over a corpus finds them too
        self._forms = PerWord(self.forms)
        rows = _row_visits(self.space, self.skip)
        self._visits = PerWord(self._visit, limit=LIMIT + len(rows))
        self._visits.update(rows)

    def _can_respell(self) -> bool:
        """Loads the OOV models on first need; False (warned once) without torch."""
        if self.oov == "off":
            return False
        if self._respeller is None:
            try:
                from ..phonetic.respell import Respeller

                self._respeller = Respeller(self.root, self.settings)
            except NeedsTorch as e:
                warnings.warn(f"phonetic: words outside the table are not attackable ({e})",
                              stacklevel=3)
                self.oov = "off"
                return False
        return True

    def prepare(self, words: Iterable[str]) -> int:
        """Respell the new out-of-vocabulary words of ``words`` in one batch and cache them
        (``perturb_word`` does this one word at a time); returns how many were decoded."""
        lookup, shared = self.lookup, self.respelled
        todo = sorted({low for low in map(_key, words) if low not in lookup})
        lookup.update((w, shared[w]) for w in todo if w in shared)  # decoded by another perturber
        todo = [w for w in todo if w not in shared]
        if not todo:
            return 0
        if not self._can_respell():
            lookup.update(dict.fromkeys(todo, ()))
            return 0
        letters = [w for w in todo if self._respeller.can_spell(w)]
        found = dict.fromkeys(todo, ())
        found.update(zip(letters, self._respeller(letters)))
        shared.update(found)
        lookup.update(found)
        return len(letters)

    def respellings(self, word: str) -> tuple[str, ...]:
        """The respellings ``word``'s row holds (lower case, straight apostrophes); empty when
        it has none. The word policy is ``forms``'."""
        low = _key(word)
        if low not in self.lookup:
            self.prepare([low])
        return self.lookup[low]

    @staticmethod
    def _allowed(word: str) -> bool:
        """The policy on ``word`` itself: at least ``MIN_LETTERS`` letters and not an acronym
        (all capitals, at most ``ACRONYM_LETTERS``). Abbreviations need the next character:
        ``attack_drawn``."""
        if len(word) > 2 * ACRONYM_LETTERS:  # the hot path: no need to count
            return True
        letters = len(word) if word.isalpha() else sum(c.isalpha() for c in word)
        return letters >= MIN_LETTERS and not (word.isupper() and letters <= ACRONYM_LETTERS)

    def _row(self, word: str, low: str) -> tuple[str, ...]:
        """``word``'s respellings (``low``: its key) where the policy lets it change, else ()."""
        if not self._allowed(word):
            return ()
        found = self.lookup.get(low)
        return self.respellings(word) if found is None else found

    def forms(self, word: str) -> list[str]:
        """The forms ``word`` may take, in its case and apostrophes (repeats kept: each is one
        draw); empty when the policy leaves it alone."""
        row = self._row(word, _key(word))
        if word.islower() and "\u2019" not in word:  # the row's own case and apostrophes
            return list(row)
        return [f for f in (_like(word, r) for r in row) if f is not None]

    def candidates(self, word: str, k: int, rng: random.Random,
                   phi: float = CANDIDATE_PHI) -> list[str]:
        """The first ``k`` distinct forms of ``word`` (table order, or the OOV respellings'
        order) that differ from it; ``rng`` and ``phi`` are not used (the row is the
        candidates)."""
        k = check_int("k", k)
        found = dict.fromkeys(self.forms(word))
        found.pop(word, None)
        return list(found)[:k]

    def can_change(self, word: str) -> bool:
        """Whether some form differs from ``word`` as the text spells it (an unknown word is
        respelled to find out)."""
        return any(f != word for f in self.forms(word))

    def perturb_word(self, word: str, phi: float, rng: random.Random) -> str:
        """One form of ``word`` drawn uniformly; always one random number, whatever the word."""
        return self._pick(word, rng.random())

    def _pick(self, word: str, u: float) -> str:
        """``forms(word)[int(u · len)]``, or ``word`` when it has none."""
        found = self._forms[word]
        return found[int(u * len(found))] if found else word

    def _visit(self, word: str) -> tuple[tuple[str, ...], bool, bool, str, str, str]:
        """How ``attack_drawn`` visits ``word``: what it may become (whole, with its apostrophes
        and clitics around the stem: `tokenize.stem`; one entry per draw), whether the stem is
        outside the table (visited second, its forms looked up only then: ``()`` here), whether
        it is an abbreviation (left alone before a full stop), and its head, stem and tail."""
        head, body, tail = stem(word)
        low = _key(body)
        outside = low not in self.space.options and low not in self.skip
        choices = () if outside else tuple(head + f + tail for f in self._forms[body])
        return choices, outside, low in ABBREVIATIONS, head, body, tail

    def attack_drawn(self, words: list[str], gaps: list[str], drawn: list[int], target: int,
                     phi: float, rng: random.Random) -> int:
        """The protocol's visits for this attack (``protocol._attack``): change the drawn words
        in order until ``target`` changed; return how many did.

        Why not the generic visits: words outside the table change only where the OOV path is
        there, so with it a sentence would reach its target sooner and leave later words as
        they were, and the random draws of everything after would shift. Here every drawn word
        gets its random number up front (one each, whatever it is), the table's words (and
        function words) are visited first, and words outside the table only make up what the
        table's words left of the target. So a word of the table gets the same respelling, and
        the next sentence the same draws, with or without the OOV path. An abbreviation (a word
        of ``ABBREVIATIONS`` before a full stop) stays; apostrophes and clitics stay in place,
        only the stem is respelled (`tokenize.stem`), as under every attack. A word's forms are
        looked up (decoded, outside the table) only when it is visited.
        """
        rand, visits = rng.random, self._visits
        draws = [rand() for _ in drawn]
        changed, outside = 0, []
        for k, u in zip(drawn, draws):
            word = words[k]
            choices, later, abbreviation, _, _, _ = visits[word]
            if later:
                outside.append((k, u))
            elif choices and not (abbreviation and gaps[k + 1][:1] == "."):
                new = choices[trunc(u * len(choices))]  # = int(), without its type call
                if new != word:
                    words[k] = new
                    changed += 1
                    if changed >= target:
                        return changed
        for k, u in outside:  # what the table's words left of the target
            _, _, abbreviation, head, body, tail = visits[words[k]]
            if abbreviation and gaps[k + 1][:1] == ".":
                continue
            new = head + self._pick(body, u) + tail
            if new != words[k]:
                words[k] = new
                changed += 1
                if changed >= target:
                    return changed
        return changed

    def __repr__(self) -> str:
        return (f"PhoneticPerturber(skip_stopwords={bool(self.skip)}, oov={self.oov!r}, "
                f"words={len(self.space.options)})")


@functools.lru_cache(maxsize=4)
def _row_visits(space, skip: frozenset) -> dict[str, tuple]:
    """``PhoneticPerturber._visit`` of every word of ``space``'s table and every function word
    (``skip``) spelled as the table spells it (lower case, no apostrophe), worked out once per
    loaded table: the choices are the row itself (``forms`` of such a word), or none where the
    policy leaves the word alone. Once, not per perturber: 116k rows were most of the 0.1 s
    each ``z.perturb(text, "phonetic")`` call spent building its perturber."""
    allowed, options = PhoneticPerturber._allowed, space.options
    rows = {key: () if key in skip else row for key, row in options.items()}
    rows.update((key, ()) for key in skip)
    return {key: (row if allowed(key) else (), False, key in ABBREVIATIONS, "", key, "")
            for key, row in rows.items() if key.islower() and "'" not in key}


__all__ = ["ABBREVIATIONS", "ACRONYM_LETTERS", "MIN_LETTERS", "PhoneticPerturber", "oov_available"]
