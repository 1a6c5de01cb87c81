"""Replaced characters must be look-alikes: each changed character of a changed word is among
the original character's nearest glyphs in the visual table (``zeroe_assets.visual``)."""
from __future__ import annotations

from pathlib import Path

from .base import Constraint


class VisualSimilarity(Constraint):
    """Every changed word keeps its length and each changed character is one of the ``top_n``
    visual neighbours of the one it replaces with similarity ≥ ``min_similarity``. Other
    changes (insertions, deletions, joins) are not character replacements and fail. The
    visual assets load on first use (a clear error names what is missing)."""

    def __init__(self, top_n: int = 20, min_similarity: float = 0.0,
                 root: Path | str | None = None):
        self.top_n, self.min_similarity, self.root = top_n, min_similarity, root
        self._near: dict[str, frozenset[str]] = {}
        self._space = None

    def _neighbours(self, ch: str) -> frozenset[str]:
        near = self._near.get(ch)
        if near is None:
            if self._space is None:
                from ..visual import load_visual

                self._space = load_visual(self.root)
            space = self._space
            row = space.rows.get(ch)
            if row is None:
                near = frozenset()
            else:
                n = min(self.top_n, space.k)
                near = frozenset(chr(c) for c, s in zip(space.table.neighbours[row, :n].tolist(),
                                                         space.table.scores[row, :n].tolist())
                                 if s >= self.min_similarity)
            self._near[ch] = near
        return near

    def similar(self, old: str, new: str) -> bool:
        """Whether ``new`` is ``old`` with some characters replaced by look-alikes."""
        if old == new or len(old) != len(new):
            return False
        return all(a == b or b in self._neighbours(a) for a, b in zip(old, new))

    def check(self, original, candidate):
        return all(self.similar(original.word(p), candidate.word(p)) for p in candidate.modified)

    def __repr__(self):
        return f"VisualSimilarity(top_n={self.top_n}, min_similarity={self.min_similarity})"
