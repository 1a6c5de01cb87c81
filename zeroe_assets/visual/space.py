"""The visual space (paper §3.3): the exported top-k look-alike table of every glyph, and the
FAISS index for queries beyond the table's k (loaded only then)."""
from __future__ import annotations

import unicodedata
from pathlib import Path

from ..assets import cached_component, load_component
from ..assets.index import VectorIndex
from ..assets.tables import NeighbourTable

COMPONENT = "visual"


# letters by category that show nothing in running text (fonts such as Unifont draw them as boxes)
INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")  # the Hangul fillers


def is_candidate(ch: str) -> bool:
    """Whether ``ch`` may replace a letter: not whitespace-like, invisible or combining."""
    return unicodedata.category(ch)[0] not in "CZM" and ch not in INVISIBLE_LETTERS


class VisualSpace:
    """The loaded visual assets: the neighbour table, and the FAISS index on demand."""

    def __init__(self, root: Path | None = None):
        self.component = load_component(COMPONENT, root)
        self.table = NeighbourTable.from_component(self.component, "table")
        self.chars = [chr(k) for k in self.table.keys.tolist()]
        self.rows = dict(zip(self.chars, range(len(self.chars))))
        self._index: VectorIndex | None = None

    @property
    def k(self) -> int:
        return self.table.k

    @property
    def default_n(self) -> int:
        """How many neighbours to use unless told: the paper's 20, or fewer if the table has."""
        return min(20, self.k)

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            self._index = VectorIndex.from_component(self.component, "index")
        return self._index

    def row(self, char: str) -> int:
        if len(char) != 1:
            raise ValueError(f"expected one character, got {char!r}")
        try:
            return self.rows[char]
        except KeyError:
            raise ValueError(f"{char!r} (U+{ord(char):04X}) has no glyph in the visual space "
                             f"({len(self.rows)} glyphs from the fonts in "
                             f"{self.component.path.parent / 'manifest.json'})") from None

    def neighbours(self, char: str, k: int = 20) -> list[tuple[str, float]]:
        """The ``k`` nearest look-alikes of ``char`` with their cosine similarity, nearest first."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        i = self.row(char)
        if k <= self.k:
            return [(chr(c), float(s)) for c, s in
                    zip(self.table.neighbours[i, :k].tolist(), self.table.scores[i, :k].tolist())]
        # beyond the table: its k exact ones first, then the index's, searching wider until
        # enough candidates are left once the glyph itself and non-candidates are dropped
        found = self.neighbours(char, self.k)
        index, want = self.index, 2 * k + 1
        while True:
            keys, scores = index.search(index.vector(int(self.table.keys[i])), want)
            seen = {c for c, _ in found} | {char}
            more = [(chr(c), float(s)) for c, s in zip(keys.tolist(), scores.tolist())
                    if chr(c) not in seen and is_candidate(chr(c))]
            if len(found) + len(more) >= k or want >= len(index):
                return (found + more)[:k]
            want = min(4 * want, len(index))


def load_visual(root: Path | str | None = None) -> VisualSpace:
    """The visual assets under ``root``, loaded and verified once per process (and again only
    when a new export replaces them)."""
    return cached_component(COMPONENT, root, VisualSpace)


def neighbours(char: str, k: int = 20, root: Path | str | None = None) -> list[tuple[str, float]]:
    """Module-level shortcut: the ``k`` visual neighbours of ``char`` with similarities."""
    return load_visual(root).neighbours(char, k)


__all__ = ["COMPONENT", "INVISIBLE_LETTERS", "VisualSpace", "is_candidate", "load_visual",
           "neighbours"]
