"""Twins: encoded training examples changed as an attacker of the encoding changes them, so
that the victim learns not to hinge on what one changed word can move.

``with_unknown`` makes one word ``unkword`` at random (what an attack makes of a word the
encoding cannot read). `WorstTwins` is adversarial training on the certificates' own surface
without a search: every word of an example takes each encoding its one-change perturbations
(`surface.Surface.forms`) can give it, and the example's twins are the ``k`` changed encodings
the trained model scores lowest for the gold label (measured on SNLI: docs/defend.md).
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from .certify import form_encodings
from .encoding import UNKNOWN, RobustEncoder
from .surface import Surface

BLOCK = 512  # examples whose changed encodings are scored in one call


def with_unknown(seen: Sequence, gold: Sequence, kind: str, copies: int,
                 seed: int) -> tuple[list, list]:
    """``copies`` twins of each encoded input (and their labels) with one word of three letters
    or more (of a pair, a hypothesis word) made ``unkword``: what the attack makes of a word the
    encoding cannot read, so that the victim learns not to hinge on any one word (measured on
    SNLI: docs/defend.md). Inputs without such a word have no twin."""
    rng = random.Random(seed)
    twins, labels = [], []
    for _ in range(copies):
        for item, label in zip(seen, gold):
            words = (item[1] if kind == "pairs" else item).split()
            at = [i for i, w in enumerate(words) if len(w) >= 3 and w != UNKNOWN]
            if not at:
                continue
            i = rng.choice(at)
            text = " ".join(words[:i] + [UNKNOWN] + words[i + 1:])
            twins.append((item[0], text) if kind == "pairs" else text)
            labels.append(label)
    return twins, labels


class WorstTwins:
    """The changed encodings of training examples and, for a trained model, each example's
    ``k`` worst. A word's other encodings are read without its premise and kept for the run,
    once per word instead of once per pair (with its premise a form may also read as a premise
    word; the twins leave that reading out: they are training data, not a certificate); an
    example whose encoding joins words (its words' encodings one after the other are not
    what the victim sees) has no twin, as it has no certificate."""

    def __init__(self, encoder: RobustEncoder, inputs: Sequence, seen: Sequence, kind: str,
                 surface: Surface | None = None, tick=lambda: None):
        from ..shield.core import split

        surface = surface or Surface()
        others: dict[str, set[str]] = {}
        self.kind, self.seen, self.changed = kind, list(seen), []
        for item, shown in zip(inputs, self.seen):
            tick()
            text, anchor = (item[1], item[0]) if kind == "pairs" else (item, None)
            words = split(text)[0]
            encoded = [encoder.token(w, anchor) for w in words]
            if " ".join(e for e in encoded if e) != (shown[1] if kind == "pairs" else shown):
                self.changed.append([])
                continue
            for w in words:
                if w not in others:
                    others[w] = set(form_encodings(encoder, surface, w))
            self.changed.append([
                " ".join(x for x in encoded[:i] + [e] + encoded[i + 1:] if x)
                for i, w in enumerate(words) for e in sorted(others[w] - {encoded[i]})])

    def __call__(self, model, gold: Sequence, k: int, task: str) -> tuple[list, list]:
        """Each example's ``k`` changed encodings that ``model`` scores lowest for its gold
        label, with that label. The probabilities are read as the search attacks read them
        (`search.goals.Classification.probabilities`: a label victim's scores, ``tc``'s
        P(offensive) as [1 − p, p])."""
        from ..search.goals import Classification

        goal = Classification(task)
        twins, labels = [], []
        for start in range(0, len(self.seen), BLOCK):
            block = range(start, min(start + BLOCK, len(self.seen)))
            asked = [self._pair(j, text) for j in block for text in self.changed[j]]
            if not asked:
                continue
            found = goal.probabilities(model, asked)
            if found is None:
                raise ValueError("worst twins need a victim that gives probabilities")
            names, rows = found
            at = 0
            for j in block:
                n, column = len(self.changed[j]), names.index(goal.check_gold(gold[j]))
                for r in sorted(range(n), key=lambda r: rows[at + r][column])[:k]:
                    twins.append(asked[at + r])
                    labels.append(gold[j])
                at += n
        return twins, labels

    def _pair(self, j: int, text: str):
        return (self.seen[j][0], text) if self.kind == "pairs" else text
