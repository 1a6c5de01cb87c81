"""Respelling (paper §3.3): back-transliteration (G2P, then the P2G n-best) and the embedder's
filter that keeps the candidates that sound alike. The export builds the phonetic table with
these two, and ``Respeller`` runs them on the fly for words outside it, so a word respelled at
run time is judged exactly like a table entry.

The models need torch, which ``Respeller`` imports when it loads them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from .names import CLASSES, SOUND_ALIKE

if TYPE_CHECKING:
    from .embedder import Embedder


def back_transliterate(g2p, p2g, words: Sequence[str], n: int = 8, beam: int = 8,
                       prons: Sequence[Sequence[Sequence[str]]] | None = None,
                       batch_size: int = 512, precision: str = "auto") -> list[list[str]]:
    """Respellings of each word (paper §3.3): its pronunciations decoded back into letters by
    the P2G n-best, distinct, in model order. ``prons[i]`` gives known pronunciations; where it
    is empty (or ``prons`` is None) the G2P 1-best stands in. Words with letters the G2P model
    never saw, and pronunciations with phones the P2G model never saw, get no respellings.
    ``precision``: as in ``Transliterator.translate``.
    """
    prons = [list(p) for p in prons] if prons is not None else [[] for _ in words]
    guess = [i for i, w in enumerate(words)
             if not prons[i] and w and g2p.src_vocab.knows(w.lower())]
    for i, hyps in zip(guess, g2p.translate([tuple(words[i].lower()) for i in guess], n=1, beam=1,
                                            batch_size=batch_size, precision=precision)):
        prons[i] = [h.tokens for h in hyps if h.tokens]
    unique = list(dict.fromkeys(tuple(p) for ps in prons for p in ps
                                if p and p2g.src_vocab.knows(p)))
    spelled = dict(zip(unique, p2g.translate(unique, n=n, beam=beam, batch_size=batch_size,
                                             precision=precision)))
    out = []
    for ps in prons:  # homophones share one decoding
        found = {"".join(h.tokens): None for p in ps for h in spelled.get(tuple(p), ()) if h.tokens}
        out.append(list(found))
    return out


def sound_alikes(embedder: Embedder, words: Sequence[str], candidates: Sequence[Sequence[str]],
                 keep: Sequence[str] = SOUND_ALIKE, min_score: float = 0.5,
                 vectors: np.ndarray | None = None,
                 known: Callable[[str, str], str | None] | None = None,
                 ) -> list[list[tuple[str, float]]]:
    """The candidates that sound like their word, spelled differently ignoring case and outer
    apostrophes (pass' is the word pass followed by a quote, not a respelling); best
    embedder score first. A pair passes when its class is in ``keep``: the class ``known``
    returns (e.g. from a pronunciation lexicon) or else the embedder's, whose
    P(identical) + P(very similar) must also reach ``min_score``."""
    keep = set(keep)
    unknown = keep - set(CLASSES)
    if unknown:
        raise ValueError(f"unknown classes {sorted(unknown)}; choose from {CLASSES}")
    kept = []
    for word, cands, judged in zip(words, candidates, embedder.judge(words, candidates, vectors)):
        low, found = word.lower().strip("'"), {}
        for c, j in zip(cands, judged):
            label = known(word, c) if known else None
            ok = label in keep if label else j.label in keep and j.score >= min_score
            if ok and c.lower().strip("'") != low:
                found[c] = j.score
        kept.append(sorted(found.items(), key=lambda kv: -kv[1]))
    return kept


class Respeller:
    """Out-of-vocabulary words through G2P → P2G n-best → the embedder's filter, decoded with
    ``settings`` (the export's config, with the caller's overrides). Cost is bounded per word
    (``can_spell``'s length limit; outputs capped relative to the input, cut-off ones dropped)
    and per batch (``batch_size`` words of at most ``max_letters``)."""

    def __init__(self, root: Path | None, settings: dict):
        from .embedder import load_embedder  # torch: an ImportError without it
        from .seq2seq import load_transliterator

        self.g2p, self.p2g = load_transliterator("g2p", root), load_transliterator("p2g", root)
        self.embedder = load_embedder(root)
        self.settings = settings
        # Past the longest word the models were trained on (CMUdict's filter: 20 letters) the G2P
        # skips syllables (measured on the shipped models: 21-22 letters still sound alike,
        # antidisestablishmentarianism and supercalifragilisticexpialidocious lose whole
        # syllables): a quarter more is the limit, so a 5 MB "word" never reaches a decoder.
        self.max_letters = self.g2p.longest_word * 5 // 4

    def can_spell(self, word: str) -> bool:
        """Whether ``word`` is at most ``max_letters`` long and the G2P model knows every letter
        of it (café: no), so it may respell it."""
        return (len(word) <= self.max_letters and any(c.isalpha() for c in word)
                and self.g2p.src_vocab.knows(word))

    def __call__(self, words: list[str]) -> list[tuple[str, ...]]:
        get = self.settings.get
        cands = back_transliterate(self.g2p, self.p2g, words, get("n_best", 5), get("beam", 5),
                                   batch_size=get("batch_size", 512),
                                   precision=get("precision", "auto"))
        kept = sound_alikes(self.embedder, words, cands, get("keep", SOUND_ALIKE),
                            get("min_score", 0.5))
        return [tuple(c for c, _ in k[:get("max_candidates", 8)]) for k in kept]


__all__ = ["Respeller", "back_transliterate", "sound_alikes"]
