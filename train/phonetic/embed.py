"""Checkpoint → runtime embedder."""
from __future__ import annotations

from pathlib import Path

from train.checks import load_module
from zeroe_assets.phonetic.embedder import Embedder

from .siamese import PhoneticModule


def load_checkpoint(path: str | Path) -> PhoneticModule:
    """The module of a Lightning checkpoint (tensors and plain hyper-parameters only)."""
    what = "a phonetic embedder checkpoint (written by train.phonetic)"
    return load_module(path, PhoneticModule, what, optimizer=None)[0]


def load_embedder_checkpoint(path: str | Path, meta: dict | None = None) -> Embedder:
    return load_checkpoint(path).embedder(meta)
