"""Named random recipes built from the perturbers with a protocol of their own (Mischief)."""
from __future__ import annotations

from . import tokenize
from .protocol import Perturbation
from .validate import resolve_level
from .rng import check_text


class Mischief(Perturbation):
    """Mischief (Rawlinson-style, see papers/mischief-2020): a dataset-level protocol.

    Each sample is selected with probability ``p``; in a selected sample every word longer than
    three letters has its inner letters permuted with probability ``r``.
    """

    name = "mischief"

    def __init__(self, level: float | str = "mid", r: float | str | None = None):
        self.p = resolve_level(level)
        self.r = self.p if r is None else resolve_level(r, "r")
        # imported here: `import zeroe_assets` imports this module, and every start of
        # `zeroe perturb` compiled the shuffle module for it
        from .perturbers.shuffle import InnerShufflePerturber

        self._shuffle = InnerShufflePerturber(min_length=4)

    def __repr__(self) -> str:
        return f"Mischief(p={self.p}, r={self.r})"

    def perturb(self, text, rng):
        check_text(text)
        if rng.random() >= self.p:
            return text
        words, gaps = tokenize.split(text)
        for i, word in enumerate(words):
            head, stem, tail = tokenize.stem(word)  # apostrophes and clitics stay in place
            if rng.random() < self.r and len(stem) > 3:
                words[i] = head + self._shuffle.perturb_word(stem, self.r, rng) + tail
        return tokenize.join(words, gaps)
