"""Zéroe's mechanisms as TextAttack transformations, for users' own TextAttack recipes.

Needs TextAttack (``pip install 'zeroe[textattack]'``; offline, call
``textattack_offline.prepare(cache)`` before this import). One class per mechanism —
``ZeroeInnerShuffle``, ``ZeroeFullShuffle``, ``ZeroeIntrude``, ``ZeroeDisemvowel``,
``ZeroeTruncate``, ``ZeroeSegment``, ``ZeroeKeyboardTypo``, ``ZeroeNaturalTypo``,
``ZeroePhonetic``, ``ZeroeVisual`` — or ``ZeroeTransformation(name)``; ``zeroe_composite()``
is TextAttack's ``CompositeTransformation`` of several. ``VictimWrapper`` puts a Zéroe victim
behind TextAttack's ``ModelWrapper``.

All but segment are ``WordSwap``\\ s: the replacements of one TextAttack word are the
perturber's ``candidates`` (through ``search.transformations``, as our own search gets them),
applied with ``AttackedText.replace_word_at_index``. They change characters inside the word;
what stays a word is TextAttack's business (a symbol that intrude inserts splits it into
several TextAttack words, as TextAttack's own character swaps may). Segment joins a word with
the next one: a merge, not a word swap (TextAttack's ``GreedyWordSwapWIR`` takes word swaps
only; beam and greedy search take all ten).

Deterministic: a word's candidates depend only on the seed and the word, never on the order
TextAttack asks for them, so ``deterministic`` is true and TextAttack may cache them.
"""
from __future__ import annotations

import hashlib
import random

import numpy as np
from textattack.models.wrappers import ModelWrapper
from textattack.shared.utils import words_from_text
from textattack.transformations import CompositeTransformation, Transformation, WordSwap

from .. import registry, tokenize
from ..perturbers.base import CANDIDATE_PHI
from ..validate import check_int
from ..rng import base_seed, block_rng
from ..search.transformations import get_transformation
from ..victims import Scorer

K = 50  # candidates per word, the defender benchmark's K (as our textfooler-zeroe)


def _rng(base: int, word: str):
    """The generator behind ``word``'s candidates: from the seed and the word alone."""
    key = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")
    return block_rng(base, key)


def _is_segment(name: str) -> bool:
    return name.strip().lower() == "segment"


class ZeroeTransformation(WordSwap):
    """A Zéroe perturber (any name or alias of ``zeroe list``, or a character operation such as
    ``dwb-swap``) as a TextAttack word swap: up to ``k`` candidates per word, drawn with φ =
    ``phi`` from ``seed``; ``options`` go to the perturber.

    Within a TextAttack word (``@USER``, ``well-known``, ``don't``) the perturber sees what it
    sees under the protocol: the longest of the toolkit's words in it (the first of equals),
    without its apostrophes and clitics (``tokenize.stem``); the rest stays.
    """

    mechanism: str | None = None  # set by the one-mechanism subclasses
    is_black_box = True  # candidates need no gradients

    def __init__(self, name: str | None = None, *, k: int = K, seed: int = 0,
                 phi: float = CANDIDATE_PHI, **options):
        super().__init__()
        if self.mechanism and name is not None:
            raise ValueError(f"{type(self).__name__} is {self.mechanism!r}; give no name, or "
                             f"use ZeroeTransformation({name!r})")
        name = self.mechanism or name
        if name is None:
            raise ValueError("give a transformation name, e.g. ZeroeTransformation('visual')")
        if _is_segment(name):
            raise ValueError("segment joins a word with the next, not a word swap: use "
                             "ZeroeSegment()")
        self.transformation = get_transformation(name, phi, **options)
        self.name = self.transformation.name
        self.k, self.seed, self.phi = check_int("k", k), seed, phi
        self._base = base_seed(seed)

    def _get_replacement_words(self, word):
        inner, gaps = tokenize.split(word)
        if not inner:
            return []
        i = max(range(len(inner)), key=lambda j: (len(inner[j]), -j))
        head, stem, tail = tokenize.stem(inner[i])
        if not stem or not self.transformation.can_change_word(stem):
            return []
        before = tokenize.join(inner[:i], gaps[:i + 1]) + head
        after = tail + tokenize.join(inner[i + 1:], gaps[i + 1:])
        forms = self.transformation.forms(stem, self.k, _rng(self._base, stem))
        # a replacement TextAttack sees no word in would be taken for a deletion
        return [r for r in (before + form + after for form in forms if form != stem)
                if words_from_text(r)]

    def extra_repr_keys(self):
        return ["name", "k", "seed", "phi"]


class ZeroeSegment(Transformation):
    """Segmentation as a TextAttack merge: word i joined with word i + 1 where one space lies
    between them (the segment perturber decides what is joinable; punctuation between would
    leave two TextAttack words, and TextAttack removes one space only). A word already changed
    is not absorbed, as under the protocol; longer runs come from the search joining again. One
    candidate per word, so no randomness."""

    is_black_box = True

    def __init__(self):
        self.perturber = registry.get_perturber("segment")
        self.name = self.perturber.name

    def _get_transformations(self, current_text, indices_to_modify):
        words, text = current_text.words, current_text.text
        spans, start = [], 0
        for word in words:  # TextAttack's words are pieces of its text, in order
            start = text.index(word, start)
            spans.append((start, start + len(word)))
            start += len(word)
        changed = current_text.attack_attrs["modified_indices"]
        out = []
        for i in sorted(indices_to_modify):
            if i + 1 >= len(words) or i + 1 in changed:
                continue
            gaps = ["", text[spans[i][1]:spans[i + 1][0]], ""]
            joins = self.perturber.attack_at(words[i:i + 2], gaps, 0, 0.0, random.Random(0),
                                             bytearray(2))
            if not joins or gaps[1]:
                continue
            joined = text[:spans[i][1]] + text[spans[i + 1][0]:]
            # TextAttack drops one space next to a deleted word, on its left or (first word)
            # its right, so a trailing pair only joins written the other way round
            merged = words[i] + words[i + 1]
            for pair in ([merged, ""], ["", merged]):
                new = current_text.replace_words_at_indices([i, i + 1], pair)
                if new.text == joined:
                    out.append(new)
                    break
        return out

    def extra_repr_keys(self):
        return ["name"]


def zeroe_composite(names=registry.NAMES, **options) -> CompositeTransformation:
    """TextAttack's ``CompositeTransformation`` of the named mechanisms (default: all ten, which
    beam and greedy search take; ``GreedyWordSwapWIR`` wants word swaps only: leave out
    ``segment``). ``options`` (``k``, ``seed``, ``phi``) go to each word swap."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    if not names:
        raise ValueError(f"give at least one mechanism; choose from {', '.join(registry.NAMES)}")
    return CompositeTransformation([
        ZeroeSegment() if _is_segment(n) else ZeroeTransformation(n, **options)
        for n in names])


class ZeroeInnerShuffle(ZeroeTransformation):
    mechanism = "inner-shuffle"


class ZeroeFullShuffle(ZeroeTransformation):
    mechanism = "full-shuffle"


class ZeroeIntrude(ZeroeTransformation):
    mechanism = "intrude"


class ZeroeDisemvowel(ZeroeTransformation):
    mechanism = "disemvowel"


class ZeroeTruncate(ZeroeTransformation):
    mechanism = "truncate"


class ZeroeKeyboardTypo(ZeroeTransformation):
    mechanism = "keyboard-typo"


class ZeroeNaturalTypo(ZeroeTransformation):
    mechanism = "natural-typo"


class ZeroePhonetic(ZeroeTransformation):
    """Its table's respellings only, unless ``oov="auto"``: decoding other words runs the
    seq2seq models (seconds per text)."""

    mechanism = "phonetic"


class ZeroeVisual(ZeroeTransformation):
    mechanism = "visual"


class VictimWrapper(ModelWrapper):
    """A Zéroe victim as a TextAttack model: class probabilities per text, from ``scores``
    where it has them (a :class:`victims.Scorer`), else [1 − p, p] from a ``tc`` victim's
    score p (labels 0 and 1). Not TextAttack's ``SklearnModelWrapper``: it densifies TF-IDF
    features and calls ``get_feature_names``, gone since scikit-learn 1.2."""

    def __init__(self, victim):
        self.model = victim

    def __call__(self, text_input_list):
        batch = list(text_input_list)
        if isinstance(self.model, Scorer):
            return np.asarray(self.model.scores(batch), dtype=float)
        p = np.asarray(self.model.predict(batch), dtype=float)
        if p.ndim != 1:
            raise ValueError("VictimWrapper takes a victim with one score per text (tc) or "
                             f"with class probabilities (scores); got outputs of shape {p.shape}")
        return np.stack([1.0 - p, p], axis=1)
