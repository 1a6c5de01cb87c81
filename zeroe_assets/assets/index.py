"""Nearest-neighbour assets: a FAISS index over exported vectors, and precomputed top-k tables.

Both are keyed (row i ↔ ``keys[i]``: code points for the visual space, words for the phonetic
one) and travel through the artifact store as plain files (``<prefix>.faiss`` + ``.npy``), so a
pipeline exports them with ``files()`` and the runtime reads them back with ``from_component``.
FAISS is imported only when an index is built or loaded: table lookups need numpy alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .store import ArtifactError, Component


class Neighbours(NamedTuple):
    keys: np.ndarray
    scores: np.ndarray


def _faiss():
    import faiss

    return faiss


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, so that inner product is cosine similarity."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class VectorIndex:
    """A FAISS index (inner product) whose row ids map to ``keys``."""

    def __init__(self, index: Any, keys: np.ndarray):
        if index.ntotal != len(keys):
            raise ValueError(f"index holds {index.ntotal} vectors but {len(keys)} keys were given")
        self.index, self.keys = index, np.asarray(keys)
        self._rows: dict | None = None

    @classmethod
    def build(cls, vectors: np.ndarray, keys: np.ndarray, factory: str = "Flat") -> "VectorIndex":
        """Index ``vectors`` with a FAISS factory string (``Flat``, ``SQ8``, ``SQfp16``, ``PQ32`` ...)."""
        faiss = _faiss()
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(keys):
            raise ValueError(f"need one vector per key, got vectors {vectors.shape} for {len(keys)} keys")
        index = faiss.index_factory(vectors.shape[1], factory, faiss.METRIC_INNER_PRODUCT)
        if not index.is_trained:
            index.train(vectors)
        index.add(vectors)
        return cls(index, keys)

    def __len__(self) -> int:
        return int(self.index.ntotal)

    @property
    def dim(self) -> int:
        return int(self.index.d)

    def row(self, key) -> int:
        if self._rows is None:
            self._rows = {k: i for i, k in enumerate(self.keys.tolist())}
        try:
            return self._rows[key]
        except KeyError:
            raise KeyError(key) from None

    def __contains__(self, key) -> bool:
        try:
            self.row(key)
        except KeyError:
            return False
        return True

    def vector(self, key) -> np.ndarray:
        """The stored (possibly quantised) vector of ``key``."""
        return self.index.reconstruct(self.row(key))

    def batch_search(self, vectors: np.ndarray, k: int) -> Neighbours:
        """Top-``k`` keys and scores per query row; rows with fewer hits are padded with score -inf."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        queries = np.ascontiguousarray(np.atleast_2d(vectors), dtype=np.float32)
        if queries.shape[1] != self.dim:
            raise ValueError(f"queries have {queries.shape[1]} dims, the index has {self.dim}")
        scores, ids = self.index.search(queries, min(k, len(self)))
        missing = ids < 0
        keys = self.keys[np.where(missing, 0, ids)]
        return Neighbours(keys, np.where(missing, -np.inf, scores))

    def search(self, vector: np.ndarray, k: int) -> Neighbours:
        keys, scores = self.batch_search(vector, k)
        ok = np.isfinite(scores[0])
        return Neighbours(keys[0][ok], scores[0][ok])

    def files(self, prefix: str = "index") -> dict[str, bytes]:
        from .store import npy_bytes

        data = _faiss().serialize_index(self.index)
        return {f"{prefix}.faiss": np.asarray(data).tobytes(), f"{prefix}.keys.npy": npy_bytes(self.keys)}

    @classmethod
    def from_component(cls, component: Component, prefix: str = "index") -> "VectorIndex":
        path = component.file(f"{prefix}.faiss")
        faiss = _faiss()
        try:
            index = faiss.read_index(str(path))
        except RuntimeError as e:
            raise ArtifactError(f"{path} is not a FAISS index FAISS can read ({e})") from e
        dims = component.meta.get("dims")
        if index.metric_type != faiss.METRIC_INNER_PRODUCT or dims not in (None, index.d):
            raise ArtifactError(f"{path} is a {index.d}-dim index with FAISS metric "
                                f"{index.metric_type}, the manifest says {dims} dims and inner "
                                f"product; the files of {component.name!r} do not match, re-run "
                                "its export")
        try:
            return cls(index, component.load_npy(f"{prefix}.keys.npy"))
        except ValueError as e:
            raise ArtifactError(f"{path}: {e}; the files of {component.name!r} do not match") from e


@dataclass(frozen=True)
class NeighbourTable:
    """Precomputed top-k neighbours: ``neighbours[i, j]`` is the j-th nearest key of ``keys[i]``."""

    keys: np.ndarray
    neighbours: np.ndarray
    scores: np.ndarray

    def __post_init__(self):
        n = len(self.keys)
        if self.neighbours.shape[0] != n or self.scores.shape != self.neighbours.shape:
            raise ValueError(f"table shapes disagree: keys {self.keys.shape}, neighbours "
                             f"{self.neighbours.shape}, scores {self.scores.shape}")

    @property
    def k(self) -> int:
        return int(self.neighbours.shape[1])

    def files(self, prefix: str = "table") -> dict[str, bytes]:
        from .store import npy_bytes

        return {f"{prefix}.keys.npy": npy_bytes(self.keys),
                f"{prefix}.neighbours.npy": npy_bytes(self.neighbours),
                f"{prefix}.scores.npy": npy_bytes(self.scores)}

    @classmethod
    def from_component(cls, component: Component, prefix: str = "table") -> "NeighbourTable":
        try:
            return cls(*(component.load_npy(f"{prefix}.{part}.npy")
                         for part in ("keys", "neighbours", "scores")))
        except ValueError as e:
            raise ArtifactError(f"{component.path}: {e}; the files of {component.name!r} do not "
                                "match, re-run its export") from e


def exact_top_k(vectors: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force inner-product top-k (scores, row ids): the reference quantised indexes are
    measured against."""
    index = _faiss().IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index.search(np.ascontiguousarray(queries, dtype=np.float32), k)


def agreement(vectors: np.ndarray, queries: np.ndarray, approx_ids: np.ndarray, k: int) -> float:
    """Share of approximate top-k hits that belong to the exact top-k, ties included: a hit whose
    exact score equals the k-th best counts (identical glyphs make many such ties)."""
    exact_scores, _ = exact_top_k(vectors, queries, k)
    kth = exact_scores[:, -1:]
    true = np.einsum("qd,qkd->qk", queries, vectors[np.maximum(approx_ids, 0)])
    hits = (true >= kth - 1e-5) & (approx_ids >= 0)
    return float(hits.mean())


def choose_index(vectors: np.ndarray, keys: np.ndarray, factories: list[str], k: int,
                 min_agreement: float, sample: int = 2000,
                 seed: int = 0) -> tuple[VectorIndex, dict[str, float]]:
    """Build the first (most compact) factory whose top-k agrees with exact search on a seeded
    sample of queries at least ``min_agreement``; the last factory is the fallback."""
    if not factories:
        raise ValueError("need at least one index factory")
    rng = np.random.default_rng(seed)
    queries = vectors[rng.choice(len(vectors), min(sample, len(vectors)), replace=False)]
    measured: dict[str, float] = {}
    for factory in factories:
        index = VectorIndex.build(vectors, keys, factory)
        _, ids = index.index.search(queries, min(k, len(vectors)))
        measured[factory] = round(agreement(vectors, queries, ids, min(k, len(vectors))), 4)
        if measured[factory] >= min_agreement:
            break
    return index, measured
