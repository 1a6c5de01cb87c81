"""Checkpoint → runtime embedder, and the vocabulary's nearest neighbours in the phonetic space."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from train.checks import load_module
from zeroe_assets.assets.index import exact_top_k
from zeroe_assets.embedder import Embedder

from .siamese import PhoneticModule


def load_checkpoint(path: str | Path) -> PhoneticModule:
    """The module of a Lightning checkpoint (tensors and plain hyper-parameters only)."""
    what = "a phonetic embedder checkpoint (written by train.phonetic)"
    return load_module(path, PhoneticModule, what, optimizer=None)[0]


def load_embedder_checkpoint(path: str | Path, meta: dict | None = None) -> Embedder:
    return load_checkpoint(path).embedder(meta)


def nearest_words(vectors: np.ndarray, k: int, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` rows (ids, cosine) for every row of the unit-length ``vectors``, itself
    excluded; chunked so the score matrix stays small."""
    k = min(k, len(vectors) - 1)
    if k < 1:
        raise ValueError("need at least two words for neighbours")
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
