"""Visual attack (paper §3.2 "Visual", §3.3): each character of an attacked word is replaced,
i.i.d. with probability φ, by one of its top-n visual nearest neighbours in the VAE-GAN space,
sampled in proportion to similarity. The neighbour table is prebuilt (``artifacts/visual``);
FAISS is loaded only for queries beyond the table's k.
"""
from __future__ import annotations

import bisect
import random
import unicodedata
from pathlib import Path

from ..assets import default_root, load_component, read_manifest
from ..assets.index import NeighbourTable, VectorIndex
from .base import Perturber, check_int

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


_SPACES: dict[tuple[Path, str], VisualSpace] = {}


def load_visual(root: Path | str | None = None) -> VisualSpace:
    """The visual assets under ``root``, loaded and verified once per process (and again only
    when a new export replaces them)."""
    root = Path(root) if root else default_root()
    entry = read_manifest(root)["components"].get(COMPONENT)
    if entry is None:  # load_component words the error and says how to rebuild
        load_component(COMPONENT, root)
    key = (root.resolve(), entry.get("created", "") + str(entry["files"].get("table.neighbours.npy")))
    if key not in _SPACES:
        _SPACES[key] = VisualSpace(root)
    return _SPACES[key]


def neighbours(char: str, k: int = 20, root: Path | str | None = None) -> list[tuple[str, float]]:
    """Module-level shortcut: the ``k`` visual neighbours of ``char`` with similarities."""
    return load_visual(root).neighbours(char, k)


class VisualPerturber(Perturber):
    name = "visual"
    description = "replace characters by visually similar ones (VAE-GAN glyph embeddings)"

    def __init__(self, top_n: int | None = None, root: Path | str | None = None):
        """``top_n``: how many of each character's nearest look-alikes to draw from; default the
        paper's 20, or the table's k where it was exported with fewer."""
        self.space = load_visual(root)
        self.top_n = check_int("top_n (at most the table's k)",
                               self.space.default_n if top_n is None else top_n, 1, self.space.k)
        self._options: dict[str, tuple[list[str], list[float], float] | None] = {}

    def _choices(self, ch: str) -> tuple[list[str], list[float], float] | None:
        """Candidates and cumulative weights (∝ similarity) for ``ch``, built on first use."""
        i = self.space.rows.get(ch)
        if i is None:
            found = None
        else:
            cands = [chr(c) for c in self.space.table.neighbours[i, :self.top_n].tolist()]
            weights = [max(s, 1e-6) for s in self.space.table.scores[i, :self.top_n].tolist()]
            cum, total = [], 0.0
            for w in weights:
                total += w
                cum.append(total)
            cum[-1] = float("inf")  # rand() * total can round up to total; never index past the end
            found = (cands, cum, total)
        self._options[ch] = found
        return found

    def can_change(self, word: str) -> bool:
        rows = self.space.rows
        return any(ch in rows for ch in word)

    def perturb_word(self, word: str, phi: float, rng: random.Random) -> str:
        rand, options = rng.random, self._options
        out = []
        for ch in word:
            if rand() < phi:
                found = options[ch] if ch in options else self._choices(ch)
                if found is not None:
                    cands, cum, total = found
                    ch = cands[bisect.bisect_right(cum, rand() * total)]
            out.append(ch)
        return "".join(out)

    def __repr__(self) -> str:
        return f"VisualPerturber(top_n={self.top_n})"


__all__ = ["COMPONENT", "INVISIBLE_LETTERS", "VisualPerturber", "VisualSpace", "is_candidate",
           "load_visual", "neighbours"]
