"""The phonetic space: the exported table of respellings, and on demand the vocabulary's FAISS
index (nearest words by sound) and the embedder for words outside it.

Lookups need numpy alone; FAISS loads with the index, torch only to embed an unknown word.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import numpy as np

from ..assets import ArtifactError, cached_component, load_component, rebuild_hint
from ..assets.index import VectorIndex, normalise
from ..assets.tables import PhoneticTable
from .names import COMPONENT


class PhoneticSpace:
    """The loaded phonetic assets: the table, and on demand the FAISS index and the embedder."""

    def __init__(self, root: Path | None = None):
        self.root = root
        self.component = load_component(COMPONENT, root)
        self.table = PhoneticTable.from_component(self.component)
        self.options = self.table.options()
        self.rows = {w: i for i, w in enumerate(self.table.words)}
        self._index: VectorIndex | None = None
        # out-of-vocabulary words already respelled, per decoding settings: shared by every
        # perturber on these assets, and by worker processes forked after a batch was decoded
        self.respelled: dict[tuple, dict[str, tuple[str, ...]]] = {}

    @property
    def index(self) -> VectorIndex:
        """The vocabulary's vectors; key ``i`` is row ``i`` of the table's words."""
        if self._index is None:
            self._index = VectorIndex.from_component(self.component, "index")
            if len(self._index) != len(self.table):
                raise ArtifactError(f"{self.component.path}: the index has {len(self._index)} "
                                    f"vectors for {len(self.table)} words; "
                                    f"{rebuild_hint(COMPONENT)}")
        return self._index

    def _vector(self, word: str) -> np.ndarray:
        row = self.rows.get(word.lower())
        if row is not None:
            return self.index.vector(row)
        try:
            from .embedder import load_embedder
        except ImportError as e:
            raise ValueError(f"{word!r} is not in the phonetic vocabulary, and embedding a new "
                             f"word needs torch ({e})") from None
        return normalise(load_embedder(self.root).embed([word]))[0]

    def neighbours(self, word: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` vocabulary words nearest to ``word`` in the phonetic space, with cosine
        similarity; ``word`` itself is left out."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if not word.strip():
            raise ValueError("give a word")
        keys, scores = self.index.search(self._vector(word), k + 1)
        words, low = self.table.words, word.lower()
        found = [(words[r], s) for r, s in zip(keys.tolist(), scores.tolist()) if words[r] != low]
        return found[:k]

    def all_neighbours(self, k: int = 10) -> Iterator[tuple[str, list[str]]]:
        """Every vocabulary word with its ``k`` nearest words: exact search over the stored
        vectors (the quantised index is for single queries)."""
        n = len(self.table)
        if not 1 <= k < n:
            raise ValueError(f"k must be between 1 and {n - 1}, got {k}")
        ids, _ = self.index.exact_neighbours(k)
        words = self.table.words
        for word, row in zip(words, ids.tolist()):
            yield word, [words[j] for j in row]


def load_phonetic(root: Path | str | None = None) -> PhoneticSpace:
    """The phonetic assets under ``root``, loaded and verified once per process (and again when
    a new export replaces them)."""
    return cached_component(COMPONENT, root, PhoneticSpace)


__all__ = ["COMPONENT", "PhoneticSpace", "load_phonetic"]
