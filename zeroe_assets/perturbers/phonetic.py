"""Phonetic attack (paper §3.2 "Phonetic", §3.3): replace a word by a respelling that sounds the
same (night → nite, their → there), drawn uniformly from its row of the prebuilt table
(``zeroe_assets.phonetic``: back-transliterations, phonetic-index neighbours, lexicon homophones
and slang respellings judged to sound identical or very similar).

This module is the policy: which words (function words stay), which respellings (the table's, or
for words outside it the same models run on the fly when torch and the exported seq2seq models
are there: ``oov="auto"``, in batches and cached), and the text's case and apostrophes.
"""
from __future__ import annotations

import random
import warnings
from importlib import resources
from pathlib import Path
from typing import Iterable

from ..assets import ArtifactError
from ..phonetic.space import load_phonetic
from .base import CANDIDATE_PHI, Perturber, check_int
from .natural import match_case


def stopwords() -> frozenset[str]:
    """The packaged English function words (``data/stopwords.txt``)."""
    text = resources.files("zeroe_assets").joinpath("data/stopwords.txt").read_text(encoding="utf-8")
    return frozenset(w for w in text.splitlines() if w and not w.startswith("#"))


def _key(word: str) -> str:
    """How the table spells ``word``: lower case, with straight apostrophes (teacher’s)."""
    return word.lower().replace("\u2019", "'")


def _like(word: str, respelling: str) -> str:
    """``respelling`` in the case of ``word``, with the text's apostrophe (teacher’s)."""
    new = match_case(word, respelling)
    return new.replace("'", "\u2019") if "\u2019" in word else new


class PhoneticPerturber(Perturber):
    """Options: ``skip_stopwords`` (function words stay, as in the reference), ``oov`` ("auto":
    respell words outside the table when torch and the seq2seq models are there; "off"), and
    the OOV path's ``n_best``/``beam`` (default: the export's)."""

    name = "phonetic"
    description = "replace a word by a sound-alike respelling (G2P→P2G, Siamese phonetic embedder)"
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

    def _can_respell(self) -> bool:
        """Loads the OOV models on first need; False (warned once) when they cannot load."""
        if self.oov == "off":
            return False
        if self._respeller is None:
            try:
                from ..phonetic.respell import Respeller

                self._respeller = Respeller(self.root, self.settings)
            except (ImportError, ArtifactError) as e:
                warnings.warn(f"phonetic: words outside the table are not attackable ({e}); "
                              "respelling them needs torch and the seq2seq models",
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
        """The respellings ``word`` may get (lower case, straight apostrophes); empty when it is
        not attackable."""
        low = _key(word)
        if low not in self.lookup:
            self.prepare([low])
        return self.lookup[low]

    def candidates(self, word: str, k: int, rng: random.Random,
                   phi: float = CANDIDATE_PHI) -> list[str]:
        """The first ``k`` distinct forms of ``word``'s row (table order, or the OOV
        respellings' order) that differ from it, in its case and apostrophes; ``rng`` and
        ``phi`` are not used (the row is the candidates)."""
        k = check_int("k", k)
        found = dict.fromkeys(_like(word, r) for r in self.respellings(word))
        found.pop(word, None)
        return list(found)[:k]

    def can_change(self, word: str) -> bool:
        """Whether some respelling differs from ``word`` as the text spells it (an unknown word
        is respelled to find out)."""
        return any(_like(word, r) != word for r in self.respellings(word))

    def perturb_word(self, word: str, phi: float, rng: random.Random) -> str:
        found = self.lookup.get(_key(word))
        if found is None:
            found = self.respellings(word)
        if not found:
            return word
        return _like(word, found[int(rng.random() * len(found))])

    def __repr__(self) -> str:
        return (f"PhoneticPerturber(skip_stopwords={bool(self.skip)}, oov={self.oov!r}, "
                f"words={len(self.space.options)})")


__all__ = ["PhoneticPerturber", "stopwords"]
