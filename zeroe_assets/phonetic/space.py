"""The phonetic space: the exported table of respellings, and on demand the sound index
(``sound``: nearest words by pronunciation).

Table lookups need numpy alone; FAISS loads with the sound index, torch only to pronounce a word
outside the lexicon.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..assets import cached_component, load_component
from ..assets.tables import PhoneticTable
from .names import COMPONENT
from .sound import SoundSpace, load_sound


class PhoneticSpace:
    """The loaded phonetic assets: the table, and on demand the sound index."""

    def __init__(self, root: Path | None = None):
        self.root = root
        self.component = load_component(COMPONENT, root)
        self.table = PhoneticTable.from_component(self.component)
        self.options = self.table.options()
        self.rows = {w: i for i, w in enumerate(self.table.words)}
        # out-of-vocabulary words already respelled, per decoding settings: shared by every
        # perturber on these assets, and by worker processes forked after a batch was decoded
        self.respelled: dict[tuple, dict[str, tuple[str, ...]]] = {}

    @property
    def sound(self) -> SoundSpace:
        """The sound index: nearest words by pronunciation (loaded on first use)."""
        return load_sound(self.root)

    def neighbours(self, word: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` vocabulary words that sound most like ``word`` (``SoundSpace.neighbours``)."""
        return self.sound.neighbours(word, k)

    def all_neighbours(self, k: int = 10) -> Iterator[tuple[str, list[str]]]:
        """Every vocabulary word with its ``k`` nearest words by sound."""
        return self.sound.all_neighbours(k)


def load_phonetic(root: Path | str | None = None) -> PhoneticSpace:
    """The phonetic assets under ``root``, loaded and verified once per process (and again when
    a new export replaces them)."""
    return cached_component(COMPONENT, root, PhoneticSpace)


__all__ = ["COMPONENT", "PhoneticSpace", "load_phonetic"]
