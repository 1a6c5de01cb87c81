"""Visual attack (paper §3.2 "Visual", §3.3): each character of an attacked word is replaced,
i.i.d. with probability φ, by one of its top-n visual nearest neighbours in the VAE-GAN space,
sampled in proportion to similarity. The look-alikes come from ``zeroe_assets.visual``. Where
the table says how often readers read each neighbour (``reads``: the export's re-ranking of the
letters), only a row's most readable neighbours are drawn: the attack is an adversarial example
only while people still read the word, and a glyph some reader misreads is not drawn at all
while one that every reader read is there (docs/visual.md).
Apostrophes and clitics are characters of the word like the others (``whole_words``): the
paper and the original code replaced every character, and a substitution moves no letter.
"""
from __future__ import annotations

import bisect
import random
from pathlib import Path

from ..visual.space import load_visual
from .base import Perturber
from ..validate import check_int


class VisualPerturber(Perturber):
    name = "visual"
    description = "replace characters by visually similar ones (VAE-GAN glyph embeddings)"
    reference = "sentence"
    whole_words = True

    def __init__(self, top_n: int | None = None, root: Path | str | None = None):
        """``top_n``: how many of each character's nearest look-alikes to draw from; default the
        paper's 20, or the table's k where it was exported with fewer."""
        self.space = load_visual(root)
        self.top_n = check_int("top_n (at most the table's k)",
                               self.space.default_n if top_n is None else top_n, 1, self.space.k)
        self._options: dict[str, tuple[list[str], list[float], float] | None] = {}
        self._rows: dict[str, tuple[str, ...]] = {}

    def look_alikes(self, ch: str) -> tuple[str, ...]:
        """Every one of ``ch``'s top n look-alikes, nearest first, whether the attack draws it or
        not: what a defense must read and a certificate cover (the draws are among them)."""
        found = self._rows.get(ch)
        if found is None:
            i = self.space.rows.get(ch)
            found = () if i is None else tuple(
                chr(c) for c in self.space.table.neighbours[i, :self.top_n].tolist())
            self._rows[ch] = found
        return found

    def _choices(self, ch: str) -> tuple[list[str], list[float], float] | None:
        """Candidates and cumulative weights (∝ similarity) for ``ch``, built on first use: of
        its top n, those read back most often where the table measured it (``reads``)."""
        i = self.space.rows.get(ch)
        if i is None:
            found = None
        else:
            table, n = self.space.table, self.top_n
            pairs = zip(table.neighbours[i, :n].tolist(), table.scores[i, :n].tolist())
            if table.reads is not None:
                reads = table.reads[i, :n]
                pairs = [pair for pair, best in zip(pairs, reads == reads.max()) if best]
            cands, weights = [], []
            for c, s in pairs:
                cands.append(chr(c))
                weights.append(max(s, 1e-6))
            cum, total = [], 0.0
            for w in weights:
                total += w
                cum.append(total)
            cum[-1] = float("inf")  # rand() * total can round up to total; never index past the end
            found = (cands, cum, total)
        self._options[ch] = found
        return found

    def can_change(self, word: str) -> bool:
        """Some character has a look-alike among its top n other than itself."""
        options = self._options
        for ch in word:
            found = options[ch] if ch in options else self._choices(ch)
            if found is not None and any(c != ch for c in found[0]):
                return True
        return False

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

    def reference_sentence(self, words, gaps, p, phi, rng):
        """The original's sentence-level use: every character of the text is replaced with
        probability φ (= p unless given), no target count; here every character of every word,
        apostrophes and clitics included, as the original did (punctuation and numbers, which
        live in the gaps, stay)."""
        changed = 0
        for k, word in enumerate(words):
            new = self.perturb_word(word, phi, rng)
            if new != word:
                words[k] = new
                changed += 1
        return changed

    def __repr__(self) -> str:
        return f"VisualPerturber(top_n={self.top_n})"


__all__ = ["VisualPerturber"]
