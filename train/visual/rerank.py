"""Re-rank each Latin letter's look-alikes by how a reader sees them in a word (issue #36).

The learned space ranks glyphs by how they embed alone, so a letter's top 20 fills with accented
and decorated forms and with other letters' shapes (ì among l's). A reader sees a letter in a
word, small and a little blurred. So for each letter: a pool of candidates (its learned nearest
``pool`` and every glyph Unicode says reads as it), each substituted into ``carriers`` tuning
words rendered at ``sizes`` px with a blur of ``blur`` em, scored by how much of the clean word's
ink stays where it was (`word_similarity`); ranked by ``weight`` × that (rescaled to [0, 1] per
letter) + (1 − ``weight``) × the learned cosine + ``bonus`` when Unicode says the glyph reads as
the letter (UTS #39, NFKD, or its name: LATIN SMALL LETTER K WITH HOOK). Plain ASCII letters and
glyphs Unicode reads as another letter are never candidates. The table keeps its format: the
top k by that rank, each with its learned cosine (what samples and thresholds use).
"""
from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np

from zeroe_assets.assets.index import VectorIndex
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.visual.confusables import reads_as
from zeroe_assets.visual.render import WordRenderer
from zeroe_assets.visual.space import is_candidate

from .quality import reads_like


@dataclass(frozen=True)
class Rerank:
    """The settings of `rerank` (``export.rerank`` in ``conf/export/visual.yaml``)."""

    letters: str = string.ascii_letters
    pool: int = 200  # learned nearest neighbours considered per letter
    carriers: int = 6  # tuning words each candidate is seen in
    sizes: tuple[int, ...] = (12, 14, 16)  # px per em: reading sizes on a screen
    blur: float = 1 / 14  # Gaussian σ as a share of the em (1 px at 14 px)
    weight: float = 0.5  # the word's look vs the learned cosine
    bonus: float = 0.5  # for glyphs Unicode says read as the letter


def reads_otherwise(letter: str, ch: str) -> bool:
    """An ASCII letter, or a glyph Unicode reads as another letter only (ì for l)."""
    found = reads_as(ch)
    return ch in string.ascii_letters or (bool(found) and letter.lower() not in found)


def carrier_words(letter: str, words: list[str], n: int) -> list[str]:
    """``n`` tuning words showing ``letter``: lower case inside a word, else anywhere; upper
    case at the start of a capitalised word, else in an upper-case one."""
    low = letter.lower()
    if letter.islower():
        found = [w for w in words if low in w[1:-1]] + [w for w in words if low in (w[0], w[-1])]
    else:
        found = ([w.capitalize() for w in words if w[0] == low] +
                 [w.upper() for w in words if low in w[1:]])
    found = list(dict.fromkeys(found))[:n]
    if not found:
        raise ValueError(f"no tuning word shows {letter!r}: give more words")
    return found


def _blurred(image: np.ndarray, sigma: float) -> np.ndarray:
    from PIL import Image, ImageFilter

    return np.asarray(Image.fromarray(image).filter(ImageFilter.GaussianBlur(sigma)), np.float32)


def word_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """1 − the ink that differs over all ink (two images of one line, left aligned): 1 for the
    same picture, 0 for pictures with no ink in common."""
    width = max(a.shape[1], b.shape[1])
    pa, pb = (np.pad(x, ((0, 0), (0, width - x.shape[1]))) for x in (a, b))
    return 1.0 - float(np.abs(pa - pb).sum() / (pa.sum() + pb.sum() + 1e-9))


def perceptual(letter: str, candidates: list[str], carriers: list[str],
               renderers: list[WordRenderer], blur: float) -> np.ndarray:
    """Mean `word_similarity` of each candidate in place of ``letter`` in the carrier words
    (its first occurrence), over the carriers and the renderers' sizes, after blurring."""
    total = np.zeros(len(candidates))
    for renderer in renderers:
        sigma = blur * renderer.px
        for word in carriers:
            i = word.index(letter)
            clean = _blurred(renderer.render(word), sigma)
            total += [word_similarity(clean, _blurred(
                renderer.render(word[:i] + c + word[i + 1:]), sigma)) for c in candidates]
    return total / (len(renderers) * len(carriers))


def candidate_pool(letter: str, index: VectorIndex, keys: np.ndarray, size: int,
                   covers) -> tuple[list[str], np.ndarray]:
    """The letter's ``size`` nearest in the learned space and every glyph in ``keys`` that reads
    like it, kept if a candidate that the fonts draw (``covers``) and not read as another
    letter; with their learned cosines."""
    v = index.vector(ord(letter)).astype(np.float32)
    found, _ = index.search(v, size + 1)
    chars = [chr(k) for k in found.tolist()]
    chars += [chr(k) for k in keys.tolist() if reads_like(letter, chr(k))]
    chars = [c for c in dict.fromkeys(chars)
             if c != letter and is_candidate(c) and not reads_otherwise(letter, c) and covers(c)]
    vectors = np.stack([index.vector(ord(c)) for c in chars]).astype(np.float32)
    cosines = vectors @ v / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(v) + 1e-12)
    return chars, cosines


def rank(letter: str, chars: list[str], cosines: np.ndarray, looks: np.ndarray,
         settings: Rerank) -> np.ndarray:
    """The order of ``chars``, best first (see the module's docstring)."""
    spread = looks.max() - looks.min()
    looks = (looks - looks.min()) / spread if spread > 0 else np.ones_like(looks)
    liked = np.array([reads_like(letter, c) for c in chars], np.float64)
    score = settings.weight * looks + (1 - settings.weight) * cosines + settings.bonus * liked
    return np.argsort(-score, kind="stable")


def rerank(table: NeighbourTable, index: VectorIndex, words: list[str],
           settings: Rerank = Rerank(), renderers: list[WordRenderer] | None = None
           ) -> tuple[NeighbourTable, dict]:
    """``table`` with the rows of ``settings.letters`` re-ranked by reading (the other rows as
    they were); and per letter its row before and after."""
    renderers = renderers or [WordRenderer(px) for px in settings.sizes]
    rows = {chr(k): i for i, k in enumerate(table.keys.tolist())}
    neighbours, scores = table.neighbours.copy(), table.scores.copy()
    report = {}
    for letter in settings.letters:
        if letter not in rows or ord(letter) not in index:
            continue
        chars, cosines = candidate_pool(letter, index, table.keys, settings.pool,
                                        renderers[0].covers)
        carriers = carrier_words(letter, words, settings.carriers)
        looks = perceptual(letter, chars, carriers, renderers, settings.blur)
        top = rank(letter, chars, cosines, looks, settings)[:table.k]
        if len(top) < table.k:
            raise ValueError(f"only {len(top)} candidates for {letter!r}: raise the pool")
        i = rows[letter]
        report[letter] = {"before": "".join(chr(c) for c in neighbours[i].tolist()),
                          "after": "".join(chars[j] for j in top)}
        neighbours[i] = [ord(chars[j]) for j in top]
        scores[i] = cosines[top].astype(scores.dtype)
    return NeighbourTable(table.keys, neighbours, scores), report


__all__ = ["Rerank", "carrier_words", "perceptual", "rerank", "word_similarity"]
