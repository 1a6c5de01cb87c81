"""Constraints as a word-pair score and a threshold ε (Morris et al. 2020, eq. 1): a changed word
is accepted when ``score(original word, new word) ≥ ε``, so that the constraint robustness
bench (``zeroe_assets.bench.constraints``) can sweep ε over the score's range.

Sound (the new word must sound like the old; compared in lower case):

- ``phonetic-embedder``: the Siamese embedder's P(identical) + P(very similar).
- ``g2p-distance``: 1 − the phone distance (Levenshtein over phones / the shorter length) of
  the G2P model's best pronunciations, floored at 0.
- ``double-metaphone``: 1 − normalised Levenshtein of the closest Double Metaphone codes
  (primary or secondary) of the two words: 1 when a code matches, graded below.
- ``char-edit``: 1 − normalised Levenshtein of the spellings (distance / the longer length).

Sight (the new word must look like the old; a replacement of characters, case kept; a word
of another length scores 0; per changed character, the word's score is the lowest):

- ``visual-space``: cosine of the learned visual embeddings (``zeroe_assets.visual``); a
  character without a glyph there scores 0.
- ``raw-pixel``: cosine of the raw 24×24 glyph pixels, drawn by DejaVu Sans as the glyph set
  draws them (``visual.glyphs``); a character the font lacks scores 0.
- ``uts39-skeleton``: 1 when the two words' UTS #39 skeletons match, else 0.

Every score is in [0, 1] and cached per pair; the models load on first use.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import tokenize
from .base import Constraint

SOUND, SIGHT = "sound", "sight"


class Score:
    """A word-pair score in [``low``, ``high``]; ``kind`` says which transformation it guards
    (sound: respellings, sight: character replacements)."""

    name, kind, low, high = "", SOUND, 0.0, 1.0

    def __init__(self):
        self._cache: dict[tuple[str, str], float] = {}

    def key(self, word: str) -> str:
        """How a word is compared (sound scores: in lower case)."""
        return word.lower() if self.kind == SOUND else word

    def scores(self, pairs: Sequence[tuple[str, str]], remember: bool = True) -> list[float]:
        """The score of each (original, new) pair, computed in one batch for the new ones;
        ``remember``: keep them (an attack that asks once for thousands of pairs need not)."""
        cache = self._cache
        todo = sorted({p for p in pairs if p not in cache and p[0] != p[1]})
        new = dict(zip(todo, (float(s) for s in self.compute(todo)))) if todo else {}
        if remember:
            cache.update(new)
        return [self.high if a == b else new[a, b] if (a, b) in new else cache[a, b]
                for a, b in pairs]

    def compute(self, pairs: list[tuple[str, str]]) -> list[float]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class EmbedderScore(Score):
    name = "phonetic-embedder"

    def __init__(self, root: Path | str | None = None):
        super().__init__()
        self.root, self._embedder = root, None

    def compute(self, pairs):
        if self._embedder is None:
            from ..phonetic.embedder import load_embedder  # NeedsTorch without torch
            self._embedder = load_embedder(Path(self.root) if self.root else None)
        judged = self._embedder.judge_pairs(pairs)
        return [judged[p].score for p in pairs]


class G2PScore(Score):
    name = "g2p-distance"

    def __init__(self, root: Path | str | None = None):
        super().__init__()
        self.root, self._model = root, None
        self._phones: dict[str, tuple[str, ...]] = {}

    def pronounce(self, words: Sequence[str]) -> list[tuple[str, ...]]:
        """The G2P model's best pronunciation of each word (silent-letter marks dropped);
        a word with a letter the model does not know has none (())."""
        todo = sorted({w for w in words if w not in self._phones})
        if todo:
            if self._model is None:
                from ..phonetic.seq2seq import load_transliterator  # NeedsTorch without torch
                self._model = load_transliterator("g2p", Path(self.root) if self.root else None)
            for w, prons in zip(todo, self._model.pronounce(todo)):
                self._phones[w] = prons[0] if prons else ()
        return [self._phones[w] for w in words]

    def compute(self, pairs):
        from ..phonetic.sound import phone_distance

        words = sorted({w for p in pairs for w in p})
        phones = dict(zip(words, self.pronounce(words)))
        return [max(0.0, 1.0 - phone_distance(phones[a], phones[b]))
                if phones[a] and phones[b] else 0.0 for a, b in pairs]


class MetaphoneScore(Score):
    name = "double-metaphone"

    def compute(self, pairs):
        try:
            from metaphone import doublemetaphone
        except ImportError:
            raise ValueError(f"{self.name} needs metaphone: pip install metaphone (the [bench] "
                             "extra)") from None
        from .overlap import normalised_distance

        codes: dict[str, set[str]] = {}
        for w in {w for p in pairs for w in p}:
            codes[w] = {c for c in doublemetaphone(w) if c} or {""}
        return [max(1.0 - normalised_distance(x, y) for x in codes[a] for y in codes[b])
                for a, b in pairs]


class CharEditScore(Score):
    name = "char-edit"

    def compute(self, pairs):
        from .overlap import normalised_distance

        return [1.0 - normalised_distance(a, b) for a, b in pairs]


class CharacterScore(Score):
    """A sight score from a score per character pair: the lowest over the changed characters
    of two words of one length (0 for words of different lengths)."""

    kind = SIGHT

    def __init__(self):
        super().__init__()
        self._per: dict[tuple[str, str], float] = {}

    def compute(self, pairs):
        per = self._per
        todo = sorted({(x, y) for a, b in pairs if len(a) == len(b)
                       for x, y in zip(a, b) if x != y and (x, y) not in per})
        if todo:
            per.update(zip(todo, self.characters(todo)))
        return [min(per[x, y] for x, y in zip(a, b) if x != y) if len(a) == len(b) else 0.0
                for a, b in pairs]

    def characters(self, pairs: list[tuple[str, str]]) -> list[float]:
        raise NotImplementedError


def _cosines(vectors: dict[str, np.ndarray], pairs: list[tuple[str, str]]) -> list[float]:
    """Cosine of each pair's vectors, in [0, 1]; 0 where a character has none (or a blank)."""
    chars = sorted(vectors)
    if not chars:
        return [0.0] * len(pairs)
    row = {c: i for i, c in enumerate(chars)}
    m = np.stack([vectors[c] for c in chars]).astype(np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    m = np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)
    a = np.array([row.get(x, -1) for x, _ in pairs])
    b = np.array([row.get(y, -1) for _, y in pairs])
    sims = np.clip(np.einsum("ij,ij->i", m[a], m[b]), 0.0, 1.0)
    sims[(a < 0) | (b < 0)] = 0.0
    return sims.tolist()


class VisualSpaceScore(CharacterScore):
    name = "visual-space"

    def __init__(self, root: Path | str | None = None):
        super().__init__()
        self.root, self._space = root, None

    def characters(self, pairs):
        from ..visual import load_visual

        if self._space is None:
            self._space = load_visual(self.root)
        index = self._space.index
        chars = {c for p in pairs for c in p}
        vectors = {c: index.vector(ord(c)) for c in chars if ord(c) in index}
        return _cosines(vectors, pairs)


class RawPixelScore(CharacterScore):
    """``font``: the font file (default: DejaVu Sans as matplotlib ships it, so every machine
    draws the same pixels)."""

    name = "raw-pixel"

    def __init__(self, font: Path | str | None = None):
        super().__init__()
        self.font = Path(font) if font else None
        self._pixels: dict[str, np.ndarray | None] = {}
        self._cmap: set[int] | None = None

    def font_path(self) -> Path:
        """The font file the glyphs are drawn with."""
        if self.font is None:
            try:
                import matplotlib
            except ImportError:
                raise ValueError(f"{self.name} draws with matplotlib's DejaVu Sans: pip install "
                                 "matplotlib, or give a font file") from None
            self.font = Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf"
        if not self.font.is_file():
            raise ValueError(f"{self.name}: font file {self.font} not found")
        return self.font

    def pixels(self, chars: Sequence[str]) -> list[np.ndarray | None]:
        """Each character's 24×24 glyph as floats (None: the font has no glyph for it)."""
        todo = sorted({c for c in chars if c not in self._pixels})
        if todo:
            from ..visual.glyphs import GLYPH, render_font

            font = self.font_path()
            if self._cmap is None:
                from fontTools.ttLib import TTFont

                with TTFont(font, lazy=True) as f:
                    self._cmap = set(f.getBestCmap() or {})
            for c in todo:
                self._pixels[c] = None
            covered = [ord(c) for c in todo if ord(c) in self._cmap]
            images, kept = render_font(font, covered, GLYPH)
            for image, cp in zip(images, kept):
                self._pixels[chr(cp)] = image.ravel()
        return [self._pixels[c] for c in chars]

    def characters(self, pairs):
        chars = sorted({c for p in pairs for c in p})
        vectors = {c: v for c, v in zip(chars, self.pixels(chars)) if v is not None}
        return _cosines(vectors, pairs)


class SkeletonScore(Score):
    name, kind = "uts39-skeleton", SIGHT

    def compute(self, pairs):
        from ..visual.confusables import skeleton

        return [float(skeleton(a) == skeleton(b)) for a, b in pairs]


SCORES = {cls.name: cls for cls in (EmbedderScore, G2PScore, MetaphoneScore, CharEditScore,
                                    VisualSpaceScore, RawPixelScore, SkeletonScore)}


def score_names(kind: str | None = None) -> tuple[str, ...]:
    return tuple(n for n, cls in SCORES.items() if kind is None or cls.kind == kind)


def get_score(name: str) -> Score:
    """The score ``name`` (see ``score_names``), a ValueError for an unknown one."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in SCORES:
        raise ValueError(f"unknown constraint {name!r}; choose from {', '.join(SCORES)}")
    return SCORES[key]()


class Threshold(Constraint):
    """Accept a candidate when every changed word scores at least ``threshold`` against the
    word it replaces (ε = the score's low end accepts everything). A change that is not one
    word for one word (a join) fails."""

    def __init__(self, score: Score | str, threshold: float):
        self.score = get_score(score) if isinstance(score, str) else score
        low, high = self.score.low, self.score.high
        if not isinstance(threshold, (int, float)) or not low <= threshold <= high:
            raise ValueError(f"{self.score.name} scores are in [{low}, {high}]: a threshold "
                             f"of {threshold!r} is outside")
        self.threshold = float(threshold)

    def pairs(self, original, candidate) -> list[tuple[str, str] | None]:
        """(old stem, new stem) of each changed word, as the score compares them; None for a
        change that is not a replacement of one word's stem."""
        key, out = self.score.key, []
        for p in sorted(candidate.modified):
            (h0, old, t0), (h1, new, t1) = (tokenize.stem(original.word(p)),
                                           tokenize.stem(candidate.word(p)))
            out.append((key(old), key(new)) if (h0, t0) == (h1, t1) and old and new else None)
        return out

    def filter(self, original, candidates):
        per = [self.pairs(original, c) for c in candidates]
        flat = [p for pairs in per for p in pairs if p is not None]
        scored = dict(zip(flat, self.score.scores(flat)))
        least = self.threshold - 1e-12
        return [c for c, pairs in zip(candidates, per)
                if all(p is not None and scored[p] >= least for p in pairs)]

    def check(self, original, candidate):
        return bool(self.filter(original, [candidate]))

    def __repr__(self):
        return f"Threshold({self.score.name!r}, {self.threshold})"
