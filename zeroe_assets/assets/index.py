"""The vector index: a FAISS index over exported vectors, keyed (row i ↔ ``keys[i]``: code points
for the visual space, rows of ``words.txt`` for the phonetic one), and exact search.

It travels through the artifact store as plain files (``<prefix>.faiss`` + ``.keys.npy``): a
pipeline exports it with ``files()`` and the runtime reads it back with ``from_component``.
This is the only module that imports FAISS, and only when an index is built, loaded or searched
exactly: the tables (``tables.py``) need numpy alone.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .hints import rebuild_hint
from .store import ArtifactError, Component, npy_bytes


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

    def vectors(self) -> np.ndarray:
        """Every stored (possibly quantised) vector, one row per key."""
        return self.index.reconstruct_n(0, len(self))

    def exact_neighbours(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``exact_neighbours`` over the stored vectors: every row's ``k`` nearest rows."""
        return exact_neighbours(self.vectors(), k)

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
                                f"product; the files of {component.name!r} do not match, "
                                f"{rebuild_hint(component.name)}")
        try:
            return cls(index, component.load_npy(f"{prefix}.keys.npy"))
        except ValueError as e:
            raise ArtifactError(f"{path}: {e}; the files of {component.name!r} do not match, "
                                f"{rebuild_hint(component.name)}") from e


def exact_top_k(vectors: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force inner-product top-k (scores, row ids): the reference quantised indexes are
    measured against."""
    index = _faiss().IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index.search(np.ascontiguousarray(queries, dtype=np.float32), k)


def exact_neighbours(vectors: np.ndarray, k: int,
                     chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` rows (ids, scores) for every row of ``vectors``, itself excluded; chunked
    so the score matrix stays small. ``k`` is capped at the number of other rows."""
    k = min(k, len(vectors) - 1)
    if k < 1:
        raise ValueError("need at least two vectors for neighbours")
    ids = np.zeros((len(vectors), k), dtype=np.int64)
    sims = np.zeros((len(vectors), k), dtype=np.float32)
    for start in range(0, len(vectors), chunk):
        part = vectors[start:start + chunk]
        s, i = exact_top_k(vectors, part, k + 1)
        own = i == np.arange(start, start + len(part))[:, None]
        keep = np.argsort(own, axis=1, kind="stable")[:, :k]  # self last, then dropped
        ids[start:start + len(part)] = np.take_along_axis(i, keep, 1)
        sims[start:start + len(part)] = np.take_along_axis(s, keep, 1)
    return ids, sims


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
