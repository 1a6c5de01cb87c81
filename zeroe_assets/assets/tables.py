"""The two precomputed tables the runtime draws from, written by the exports and read here.

``NeighbourTable``: top-k neighbours per key (the visual space: code point → look-alikes), as
``<prefix>.keys/neighbours/scores.npy``. ``PhoneticTable``: per vocabulary word its sound-alike
respellings, best first, as ``words.txt`` + ``table.*`` (text for the strings, ``.npy`` for the
rest). numpy alone reads both; no pickle.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .hints import rebuild_hint
from .store import ArtifactError, Component, npy_bytes

SOURCES = {"p2g": 1, "index": 2, "slang": 4, "homophone": 8}  # bit flags: a respelling's origins


@dataclass(frozen=True)
class NeighbourTable:
    """Precomputed top-k neighbours: ``neighbours[i, j]`` is the j-th nearest key of ``keys[i]``
    and ``scores[i, j]`` its similarity. ``reads[i, j]``, where a table has it (the visual
    export's re-ranking), is the share of the tuning words every reader read back with that
    neighbour in place (1 in the rows it did not re-rank); None: never measured."""

    keys: np.ndarray
    neighbours: np.ndarray
    scores: np.ndarray
    reads: np.ndarray | None = None

    def __post_init__(self):
        n = len(self.keys)
        if (self.neighbours.shape[0] != n or self.scores.shape != self.neighbours.shape
                or (self.reads is not None and self.reads.shape != self.neighbours.shape)):
            raise ValueError(f"table shapes disagree: keys {self.keys.shape}, neighbours "
                             f"{self.neighbours.shape}, scores {self.scores.shape}"
                             + ("" if self.reads is None else f", reads {self.reads.shape}"))

    @property
    def k(self) -> int:
        return int(self.neighbours.shape[1])

    def files(self, prefix: str = "table") -> dict[str, bytes]:
        found = {f"{prefix}.keys.npy": npy_bytes(self.keys),
                 f"{prefix}.neighbours.npy": npy_bytes(self.neighbours),
                 f"{prefix}.scores.npy": npy_bytes(self.scores)}
        if self.reads is not None:
            found[f"{prefix}.reads.npy"] = npy_bytes(self.reads)
        return found

    @classmethod
    def from_component(cls, component: Component, prefix: str = "table") -> "NeighbourTable":
        parts = ["keys", "neighbours", "scores"]
        if f"{prefix}.reads.npy" in component.files:
            parts.append("reads")
        try:
            return cls(*(component.load_npy(f"{prefix}.{part}.npy") for part in parts))
        except ValueError as e:
            raise ArtifactError(f"{component.path}: {e}; the files of {component.name!r} do not "
                                f"match, {rebuild_hint(component.name)}") from e


def _lines(data: str) -> list[str]:
    return data.split("\n")[:-1] if data else []


@dataclass(frozen=True)
class PhoneticTable:
    """Per word ``words[i]``: candidates ``candidates[offsets[i]:offsets[i + 1]]``, best first,
    with the embedder's score (P(identical) + P(very similar)) and their ``SOURCES`` flags."""

    words: list[str]
    offsets: np.ndarray
    candidates: list[str]
    scores: np.ndarray
    sources: np.ndarray

    def __post_init__(self):
        n, m, off = len(self.words), len(self.candidates), self.offsets
        problem = None
        if off.ndim != 1 or len(off) != n + 1:
            problem = f"{len(off)} offsets for {n} words (need words + 1)"
        elif n and (off[0] != 0 or off[-1] != m or np.any(np.diff(off.astype(np.int64)) < 0)):
            problem = f"offsets are not an increasing cover of the {m} candidates"
        elif len(self.scores) != m or len(self.sources) != m:
            problem = f"{m} candidates but {len(self.scores)} scores and {len(self.sources)} sources"
        if problem:
            raise ValueError(f"corrupt phonetic table: {problem}")

    def __len__(self) -> int:
        return len(self.words)

    def row(self, i: int) -> list[tuple[str, float, int]]:
        s, e = int(self.offsets[i]), int(self.offsets[i + 1])
        return list(zip(self.candidates[s:e], self.scores[s:e].tolist(), self.sources[s:e].tolist()))

    def options(self) -> dict[str, tuple[str, ...]]:
        """Word → its candidates, for words that have any (what the perturber draws from)."""
        off, cands = self.offsets.tolist(), self.candidates
        return {w: tuple(cands[off[i]:off[i + 1]]) for i, w in enumerate(self.words)
                if off[i + 1] > off[i]}

    @classmethod
    def build(cls, words: Sequence[str], rows: Sequence[Sequence[tuple[str, float, int]]]):
        """From one list of ``(candidate, score, sources)`` per word."""
        if any("\n" in s for s in words) or any("\n" in c for r in rows for c, _, _ in r):
            raise ValueError("words and candidates must not contain newlines")
        offsets = np.zeros(len(words) + 1, dtype=np.uint32)
        offsets[1:] = np.cumsum([len(r) for r in rows])
        flat = [c for r in rows for c in r]
        return cls(list(words), offsets, [c for c, _, _ in flat],
                   np.array([s for _, s, _ in flat], dtype=np.float16),
                   np.array([f for _, _, f in flat], dtype=np.uint8))

    def files(self) -> dict[str, bytes]:
        return {"words.txt": "".join(w + "\n" for w in self.words).encode(),
                "table.offsets.npy": npy_bytes(self.offsets),
                "table.candidates.txt": "".join(c + "\n" for c in self.candidates).encode(),
                "table.scores.npy": npy_bytes(self.scores),
                "table.sources.npy": npy_bytes(self.sources)}

    @staticmethod
    def words_of(component: Component) -> list[str]:
        """The vocabulary alone (``words.txt``), for what is keyed by its rows."""
        try:
            return _lines(component.file("words.txt").read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise ArtifactError(f"{component.path}: {e}; {rebuild_hint(component.name)}") from e

    @classmethod
    def from_component(cls, component: Component) -> "PhoneticTable":
        words = cls.words_of(component)
        try:
            return cls(words,
                       component.load_npy("table.offsets.npy"),
                       _lines(component.file("table.candidates.txt").read_text(encoding="utf-8")),
                       component.load_npy("table.scores.npy"),
                       component.load_npy("table.sources.npy"))
        except (ValueError, UnicodeDecodeError) as e:
            raise ArtifactError(f"{component.path}: {e}; {rebuild_hint(component.name)}") from e
