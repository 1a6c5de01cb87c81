"""The phonetic space by sound: words placed by their pronunciations, not their spellings.

Every pronunciation of the vocabulary (the lexicon's for its words) is a vector of hashed phone
n-grams in a FAISS index; a query's pronunciations (the lexicon's, or the G2P's n-best for a
word outside it) fetch candidates from it, which are then ranked by the exact phone distance
(paper appendix A.1), more frequent words first among equals. So `knows` finds *nose* and
`flour` *flower*, whatever the spelling; the character-level embedder, which reads spellings,
only judges respellings (``embedder``).

Lookups need numpy and FAISS; torch only to pronounce a word outside the lexicon.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..assets import ArtifactError, Component, cached_component, load_component, rebuild_hint
from ..assets.index import VectorIndex, normalise
from .names import CLASSES, COMPONENT, SEQ2SEQ

BOUNDS = (0.1, 0.3)  # identical 0 < very similar ≤ 0.1 < similar ≤ 0.3 < different
DIM = 128            # hashed phone 1-, 2- and 3-grams (boundaries marked)
FETCH = 64           # candidates fetched from the index per pronunciation, at least
PRONUNCIATIONS, COUNTS = "pronunciations.txt", "counts.npy"
G2P_BEST = 3         # pronunciations the G2P proposes for a word outside the lexicon

Pron = tuple[str, ...]


def phone_distance(a: Sequence[str], b: Sequence[str]) -> float:
    """Phone edit distance over the shorter pronunciation (paper eq. 3 is one minus this)."""
    from rapidfuzz.distance import Levenshtein

    if not a or not b:
        raise ValueError("cannot compare an empty pronunciation")
    return Levenshtein.distance(a, b) / min(len(a), len(b))


def sound_class(distance: float, bounds: Sequence[float] = BOUNDS) -> str:
    """The class of a phone distance (``names.CLASSES``), bins closed on the right: one phone
    edit in a 10-phone word is very similar, cat/cut (0.33) different."""
    very, similar = bounds
    if distance == 0:
        return CLASSES[0]
    if distance <= very + 1e-12:
        return CLASSES[1]
    return CLASSES[2] if distance <= similar + 1e-12 else CLASSES[3]


def _grams(pron: Sequence[str]) -> list[str]:
    padded = ("#", *pron, "#")
    return [" ".join(padded[i:i + n]) for n in (1, 2, 3) for i in range(len(padded) - n + 1)
            if padded[i:i + n] != ("#",)]


def _slot(gram: str, dim: int) -> tuple[int, float]:
    """A stable (bucket, sign) for an n-gram: blake2b, not Python's salted ``hash``."""
    h = int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "little")
    return h % dim, 1.0 if (h >> 32) & 1 else -1.0


def phone_vectors(prons: Sequence[Sequence[str]], dim: int = DIM) -> np.ndarray:
    """Unit vectors of hashed phone n-grams, one row per pronunciation: pronunciations one
    phone apart share most n-grams, so they are near; identical ones are the same vector."""
    slots: dict[str, tuple[int, float]] = {}
    rows, cols, signs = [], [], []
    for r, pron in enumerate(prons):
        for g in _grams(pron):
            s = slots.get(g)
            if s is None:
                s = slots[g] = _slot(g, dim)
            rows.append(r)
            cols.append(s[0])
            signs.append(s[1])
    out = np.zeros((len(prons), dim), dtype=np.float32)
    np.add.at(out, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)),
              np.asarray(signs, dtype=np.float32))
    return normalise(out)


def sound_files(words: Sequence[str], prons: Sequence[Sequence[Pron]],
                counts: Sequence[int], factories: Sequence[str], min_agreement: float
                ) -> tuple[dict[str, bytes], dict]:
    """The files of the sound index for ``words`` (row i: its pronunciations ``prons[i]`` and
    corpus count ``counts[i]``) and what to record of it: the pipeline's export step."""
    from ..assets.index import choose_index
    from ..assets.store import npy_bytes

    keys = np.array([i for i, ps in enumerate(prons) for _ in ps], dtype=np.uint32)
    flat = [p for ps in prons for p in ps]
    if not flat:
        raise ValueError("no pronunciations to index")
    index, agreement = choose_index(phone_vectors(flat), keys, list(factories), FETCH,
                                    min_agreement)
    text = "".join(" ".join(p) + "\n" for p in flat)
    files = {**index.files("index"), PRONUNCIATIONS: text.encode("utf-8"),
             COUNTS: npy_bytes(np.asarray(counts, dtype=np.uint64))}
    meta = {"pronunciations": len(flat), "dims": DIM, "index_agreement": agreement,
            "index_factory": list(factories)[len(agreement) - 1],
            "words_without_pronunciation": sum(1 for ps in prons if not ps)}
    return files, meta


class SoundSpace:
    """The sound index of the ``phonetic`` component, its pronunciations and word counts."""

    def __init__(self, component: Component, words: Sequence[str]):
        where = f"{component.path}: "
        if PRONUNCIATIONS not in component.files:
            raise ArtifactError(f"{where}no pronunciations (an export from before the sound "
                                f"index); {rebuild_hint(COMPONENT)}")
        self.component, self.words, self.root = component, tuple(words), component.path.parent
        self.rows = {w: i for i, w in enumerate(self.words)}
        self.index = VectorIndex.from_component(component, "index")
        lines = component.file(PRONUNCIATIONS).read_text(encoding="utf-8").splitlines()
        self.counts = component.load_npy(COUNTS)
        keys = self.index.keys.astype(np.int64)
        if len(lines) != len(keys) or len(self.counts) != len(self.words) or \
                (len(keys) and keys.max() >= len(self.words)):
            raise ArtifactError(f"{where}{len(lines)} pronunciations, {len(keys)} vectors, "
                                f"{len(self.counts)} counts for {len(self.words)} words do not "
                                f"match; {rebuild_hint(COMPONENT)}")
        self.prons: list[Pron] = [tuple(line.split()) for line in lines]
        order = np.argsort(keys, kind="stable")
        starts = np.searchsorted(keys[order], np.arange(len(self.words) + 1))
        self._of = (order, starts)
        self._g2p = None
        self._pronounced: dict[str, tuple[Pron, ...]] = {}

    def pronunciations(self, word: str) -> tuple[Pron, ...]:
        """The lexicon's pronunciations of ``word`` (any case); () when it has none."""
        row = self.rows.get(word.lower())
        if row is None:
            return ()
        order, starts = self._of
        return tuple(self.prons[j] for j in order[starts[row]:starts[row + 1]].tolist())

    def pronounce(self, words: Iterable[str]) -> list[tuple[Pron, ...]]:
        """Pronunciations of any words: the lexicon's, else the G2P's n-best (torch, batched,
        cached); a word the G2P cannot read (no letters it knows) gets ()."""
        words = [w.lower() for w in words]
        todo = sorted({w for w in words if w not in self.rows and w not in self._pronounced})
        if todo:
            self._pronounced.update(zip(todo, self._transliterator().pronounce(todo, n=G2P_BEST)))
        return [self.pronunciations(w) if w in self.rows else self._pronounced[w]
                for w in words]

    def _transliterator(self):
        if self._g2p is None:
            from .seq2seq import load_transliterator  # NeedsTorch without torch
            self._g2p = load_transliterator("g2p", self.root)
        return self._g2p

    def distance(self, a: str, b: str) -> float | None:
        """The smallest phone distance between the lexicon's pronunciations of two words;
        None when either has none (the oracle for what a listener hears)."""
        pa, pb = self.pronunciations(a), self.pronunciations(b)
        if not pa or not pb:
            return None
        return min(phone_distance(x, y) for x in pa for y in pb)

    def neighbours(self, word: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` vocabulary words that sound most like ``word``, with 1 − their phone
        distance (identical 1.0); ``word`` itself is left out."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if not word.strip():
            raise ValueError("give a word")
        prons = self.pronounce([word])[0]
        if not prons:
            raise ValueError(f"{word!r} has no pronunciation: it is not in the lexicon and the "
                             f"G2P cannot read it")
        return self._ranked(word.lower(), prons, k)

    def _ranked(self, word: str, prons: Sequence[Pron], k: int,
                vectors: np.ndarray | None = None) -> list[tuple[str, float]]:
        fetch = max(FETCH, 4 * k)
        if vectors is None:
            vectors = phone_vectors(prons)
        keys, _ = self.index.batch_search(vectors, fetch)
        order, starts = self._of
        best: dict[int, float] = {}
        own = self.rows.get(word)
        for row in dict.fromkeys(keys.ravel().tolist()):
            if row == own:
                continue
            theirs = [self.prons[j] for j in order[starts[row]:starts[row + 1]].tolist()]
            best[row] = min(phone_distance(p, q) for p in prons for q in theirs)
        counts, words = self.counts, self.words
        ranked = sorted(best, key=lambda r: (best[r], -int(counts[r]), words[r]))[:k]
        return [(words[r], max(0.0, 1.0 - best[r])) for r in ranked]

    def all_neighbours(self, k: int = 10) -> Iterable[tuple[str, list[str]]]:
        """Every vocabulary word with its ``k`` nearest words by sound."""
        n = len(self.words)
        if not 1 <= k < n:
            raise ValueError(f"k must be between 1 and {n - 1}, got {k}")
        for word in self.words:
            prons = self.pronunciations(word)
            yield word, [w for w, _ in self._ranked(word, prons, k)] if prons else []


def load_sound(root: Path | str | None = None) -> SoundSpace:
    """The sound index of the phonetic assets under ``root``, loaded and verified once per
    process (and again when a new export replaces them)."""
    from ..assets.tables import PhoneticTable

    def build(root_: Path) -> SoundSpace:
        component = load_component(COMPONENT, root_)
        return SoundSpace(component, PhoneticTable.words_of(component))

    return cached_component(COMPONENT, root, build, part="sound")


__all__ = ["BOUNDS", "DIM", "SoundSpace", "load_sound", "phone_distance", "phone_vectors",
           "sound_class", "sound_files"]
