"""What every perturber is: a name, which words it can attack, and how it changes one.

The protocol (which words, how many, φ) lives in `zeroe_assets.protocol` and is shared by all;
a perturber only transforms a word (TextAttack's "transformation").
"""
from __future__ import annotations

import operator
import random


def check_int(name: str, value, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int if it is a whole number (not a bool) in [low, high], else a ValueError
    naming ``name``: the one check for every count a user passes."""
    try:
        number = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        number = None
    if number is None or number < low or (high is not None and number > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ValueError(f"{name} must be an integer {bounds}, got {value!r}")
    return number


class Perturber:
    """Base class. Subclasses set ``name``/``description`` and override ``perturb_word``.

    ``rng`` is a per-sample ``random.Random`` that the protocol derives from the user's seed, so
    results are identical in any process. ``phi`` is the character-level probability φ.
    """

    name: str = ""
    description: str = ""
    token_aligned: bool = True  # False for perturbers that change the number of tokens (segment)

    def attackable(self, word: str) -> bool:
        """Cheap test whether ``perturb_word`` can change ``word``; others are skipped, not counted."""
        return True

    def perturb_word(self, word: str, phi: float, rng: random.Random) -> str:
        raise NotImplementedError

    def attack_at(self, words: list[str], gaps: list[str], k: int, phi: float,
                  rng: random.Random, done: bytearray) -> list[int]:
        """Attack word ``k`` in place; return the indices of the words that changed.

        ``words[i]`` is the i-th word token and ``gaps[i]`` the text before it (``gaps[-1]`` the
        tail); ``done[i]`` is set for words already perturbed. Context-sensitive perturbers
        (segment) override this.
        """
        word = words[k]
        new = self.perturb_word(word, phi, rng)
        if new == word:
            return []
        words[k] = new
        return [k]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
