"""Segmentation (paper §3.2): join a word with the following ones.

The protocol's coin (probability p = φ) makes the first join; each further join of the same run
happens with φ², φ³, … so runs stay short. A run never absorbs a word that is already part of
another run, so runs do not chain into giant words at high p. Only whitespace gaps without a
line break are joined (punctuation in the gap is kept: "Hello, world" → "Hello,world").
"""
from __future__ import annotations

import random

from .base import Perturber


def _joinable(gap: str) -> bool:
    """Whitespace within one line: no line break of any kind (\\n, \\r, U+2028, \\f …)."""
    return any(c.isspace() for c in gap) and gap.splitlines() == [gap]


def _join(gap: str) -> str:
    return "".join(c for c in gap if not c.isspace())


class SegmentPerturber(Perturber):
    name = "segment"
    keeps_ends = True
    description = "join adjacent words (not for token-aligned tasks such as POS)"
    scope = "context"
    reference = "sentence"
    token_aligned = False

    def can_change(self, word: str) -> bool:
        """A word alone never changes: segment joins it with the next one (``attack_at``)."""
        return False

    def attack_at(self, words: list[str], gaps: list[str], k: int, phi: float,
                  rng: random.Random, done: bytearray) -> list[int]:
        n = len(words)
        if k + 1 >= n or done[k + 1] or not _joinable(gaps[k + 1]):
            return []
        gaps[k + 1] = _join(gaps[k + 1])
        j, power = k + 1, 2
        while (j + 1 < n and not done[j + 1] and _joinable(gaps[j + 1])
               and rng.random() < phi ** power):
            gaps[j + 1] = _join(gaps[j + 1])
            j, power = j + 1, power + 1
        return list(range(k, j + 1))

    def reference_sentence(self, words, gaps, p, phi, rng):
        """The original code: every joinable boundary between two words is joined on its own
        with probability p, whatever the target count."""
        joined = [j for j in range(1, len(words)) if _joinable(gaps[j]) and rng.random() < p]
        touched = set()
        for j in joined:
            gaps[j] = _join(gaps[j])
            touched.update((j - 1, j))
        return len(touched)
