"""Certificates for encoded victims (``zeroe certify``): a prediction is certified when no choice
of perturbed words, up to ρ_max of them, out of an enumerable attack surface can change it.

The surface is `surface.SURFACE` (one change per word, every instance enumerated). The victim
sees the encoding, word by word (`encoding.RobustEncoder.token`: each word as `encode` reads
it; an NLI pair's hypothesis words read against its premise, which is not attacked): a word is
*stable* when all its perturbations encode as it does. An example whose words are all stable is certified without a query (the victim's input
cannot change). For a victim whose logit is its intercept plus word weights (``tc-monotone``)
the worst choice of unstable words is bounded without a query (`_bounded`). Otherwise every
combination of at most ⌊ρ_max·L⌋ unstable words, each taking each of its other encodings, is
sent to the victim when there are at most ``max_queries`` of them, and the example is certified
when none changes the label. Beyond that, or when the encoding joins words, it is undecided
(counted apart).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, product

from .surface import SURFACE, Surface
from .victim import DefendedVictim

MAX_QUERIES = 256


@dataclass
class Certificate:
    """One example's certificate: ``certified`` (None: too many combinations to check),
    ``correct`` (the clean prediction), the unstable words, the families that moved them and
    the victim queries spent."""

    certified: bool | None
    correct: bool
    words: int
    unstable: list[str] = field(default_factory=list)
    families: dict[str, int] = field(default_factory=dict)
    queries: int = 0


def _label(task, output) -> str:
    return str(int(output >= 0.5)) if task == "tc" else str(output)


def certify_text(victim: DefendedVictim, example, gold, surface: Surface,
                 rho: float = 0.3, max_queries: int = MAX_QUERIES,
                 memo: dict | None = None) -> Certificate:
    """The certificate of one example: a text (``tc``, ``generic``) or an NLI pair, whose
    hypothesis is the attacked text, read against its premise as the victim reads it
    (`encoding.RobustEncoder.encode`'s anchors); ``memo`` keeps each word's other encodings
    across the examples of one run. An example whose encoding is not its words' encodings one
    after the other (words the encoding joins: *st ill*, *s.t.i.l.l*) is undecided: its words
    cannot be enumerated one by one."""
    from ..shield.core import split

    encoder = victim.encoder
    if encoder is None:
        raise ValueError("certificates need a defense with a robust encoding (--parts encode)")
    premise, text = example if victim.kind == "pairs" else (None, example)
    anchor = premise if victim.anchored else None
    words = split(text)[0]
    encoded = [encoder.token(w, anchor) for w in words]

    seen_premise = None if premise is None else victim.one(premise)  # once: never attacked

    def asked(hypothesis: list[str]):
        joined = " ".join(e for e in hypothesis if e)
        return joined if premise is None else (seen_premise, joined)

    clean = victim.victim.predict([asked(encoded)])[0]
    correct = _label(victim.task, clean) == str(gold)
    others: list[tuple[int, list[str]]] = []
    families: dict[str, int] = {}
    memo = {} if memo is None else memo
    for i, w in enumerate(words):
        key = (w, anchor)
        if key not in memo:
            memo[key] = form_encodings(encoder, surface, w, anchor)
            memo[key].pop(encoded[i], None)
        seen = memo[key]
        if seen:
            others.append((i, sorted(seen)))
            for family in sorted(set(seen.values())):
                families[family] = families.get(family, 0) + 1
    cert = Certificate(True, correct, len(words), [words[i] for i, _ in others], families, 1)
    if encoder.encode(text, anchor=anchor) != " ".join(e for e in encoded if e):
        cert.certified = None
        return cert
    if not others:
        return cert
    budget = max(1, math.floor(rho * len(words)))
    if hasattr(victim.victim, "weight") and _bounded(victim.victim, encoded, others, budget):
        return cert
    if _combinations([len(o) for _, o in others], budget) > max_queries:
        cert.certified = None
        return cert
    batch = []
    for r in range(1, min(budget, len(others)) + 1):
        for chosen in combinations(others, r):
            for choice in product(*(o for _, o in chosen)):
                out = list(encoded)
                for (i, _), e in zip(chosen, choice):
                    out[i] = e
                batch.append(asked(out))
    want = _label(victim.task, clean)
    for k in range(0, len(batch), 64):
        if any(_label(victim.task, p) != want for p in victim.victim.predict(batch[k:k + 64])):
            cert.certified = False
            break
    cert.queries += len(batch)
    return cert


def form_encodings(encoder, surface: Surface, word: str,
                   anchor: str | None = None) -> dict[str, str]:
    """Each encoding ``word``'s one-change forms read as (``anchor``: the premise they are read
    against), with the first family, in `SURFACE` order, giving it."""
    found: dict[str, str] = {}
    for form, family in surface.forms(word).items():
        found.setdefault(encoder.token(form, anchor), family)
    return found


def _combinations(sizes, budget: int) -> int:
    """How many choices of 1..``budget`` of the words, each taking one of its ``sizes`` other
    encodings, there are: the elementary symmetric sums, without listing the choices."""
    counts = [1] + [0] * budget
    for size in sizes:
        for r in range(budget, 0, -1):
            counts[r] += counts[r - 1] * size
    return sum(counts[1:])


def _bounded(model, encoded: list[str], others: list[tuple[int, list[str]]],
             budget: int) -> bool:
    """For a model whose logit is its intercept plus the weights of the distinct words present
    (``tc-monotone``: ``logits``, ``weight``, ``words``), whether the prediction holds for every
    choice of at most ``budget`` unstable words. Upwards, a word that takes an encoding of one
    new word adds that word's weight once however many words take it (``unkword`` counts once),
    so those gains are pooled by word; a word whose encodings bring several words, or take away
    negative weight of its own, is one item of its largest gain. Downwards, a word takes away at
    most its own positive weights and brings at most the negative weights of its new encodings.
    The ``budget`` largest items bound the logit's move."""
    text = " ".join(e for e in encoded if e)
    (z,) = model.logits([text])
    present = set(model.words(text))

    def weights(encoding: str) -> list[float]:
        return [model.weight(w) for w in set(model.words(encoding))]

    if z >= 0:
        downs = [sum(w for w in weights(encoded[i]) if w > 0)
                 + max(-sum(w for w in weights(e) if w < 0) for e in alternatives)
                 for i, alternatives in others]
        return z - sum(sorted(downs, reverse=True)[:budget]) >= 0
    pooled: dict[str, float] = {}  # one new word's gain, whichever word brings it
    items: list[float] = []
    for i, alternatives in others:
        own_down = -sum(w for w in weights(encoded[i]) if w < 0)
        largest = 0.0
        for e in alternatives:
            new = {w: model.weight(w) for w in set(model.words(e)) - present}
            gains = {w: g for w, g in new.items() if g > 0}
            if len(gains) == 1 and not own_down:
                (w, g), = gains.items()
                pooled[w] = g
            else:
                largest = max(largest, sum(gains.values()) + own_down)
        if largest:
            items.append(largest)
    return z + sum(sorted(items + list(pooled.values()), reverse=True)[:budget]) < 0


def certify(victim: DefendedVictim, inputs: Sequence, gold: Sequence, surface: Surface,
            rho: float = 0.3, max_queries: int = MAX_QUERIES, progress: bool = True) -> dict:
    """Certificates of every example and the summary: clean and certified accuracy (certified
    and right, over all examples), the undecided share and the families behind instability."""
    from ..progress import progress_bar

    certs, memo = [], {}
    with progress_bar(len(inputs), "certify", "ex", enabled=progress) as bar:
        for text, g in zip(inputs, gold):
            certs.append(certify_text(victim, text, g, surface, rho, max_queries, memo))
            bar.update()
    n = len(certs) or 1
    families: dict[str, int] = {}
    for c in certs:
        for f, k in c.families.items():
            families[f] = families.get(f, 0) + k
    return {"examples": len(certs), "surface": list(surface.families), "max_perturbed": rho,
            "max_queries": max_queries,
            "clean_accuracy": 100.0 * sum(c.correct for c in certs) / n,
            "certified_accuracy": 100.0 * sum(bool(c.certified) and c.correct for c in certs) / n,
            "certified": 100.0 * sum(bool(c.certified) for c in certs) / n,
            "stable_examples": 100.0 * sum(not c.unstable for c in certs) / n,
            "undecided": 100.0 * sum(c.certified is None for c in certs) / n,
            "unstable_words_by_family": dict(sorted(families.items(), key=lambda kv: -kv[1])),
            "queries": sum(c.queries for c in certs),
            "certificates": [vars(c) for c in certs]}
