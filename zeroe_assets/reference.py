"""``protocol="reference"``: the original Zéroe code's protocol, where it differs from the
paper's reading (`zeroe_assets.protocol`; the differences and their measured effect are in
``docs/differences.md``).

No coin: each drawn word is attacked until ⌈p·n⌉ have changed (so exactly that many whenever
enough words can change), with n counted as the original counted it, over nltk's tokens
(punctuation, numbers and clitics included). Where the original bypassed the word protocol
(``reference = "sentence"``: segment, visual) the perturber's ``reference_sentence`` does what it
did, and where it changed a word differently (keyboard-typo) its ``reference_word`` is used.
"""
from __future__ import annotations

import math
import random

from . import tokenize
from .rng import shuffle


def perturb_words(perturbation, text: str, words: list[str], gaps: list[str],
                  rng: random.Random) -> int:
    """The reference protocol on ``text`` split into ``words``/``gaps``, in place, for a
    `ZeroePerturbation`; returns how many words changed."""
    p, perturber = perturbation.p, perturbation.perturber
    if p == 0 or not words:
        return 0
    if perturber.reference == "sentence":  # the original's sentence-level use, no target count
        return perturber.reference_sentence(words, gaps, p, perturbation.phi, rng)
    target = math.ceil(p * tokenize.treebank_count(text) - 1e-9)
    if target == 0:
        return 0
    drawn = list(range(len(words)))
    shuffle(drawn, rng)
    return perturbation.attack_drawn(words, gaps, drawn, target, rng)
