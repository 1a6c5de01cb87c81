"""What every perturber is: a name, which words it can change, how it changes one, and the
distinct changed forms of a word it can offer.

The protocol (which words, how many, φ) lives in `zeroe_assets.protocol` and is shared by all;
a perturber only transforms a word (TextAttack's "transformation"); search attacks enumerate
``candidates``.
"""
from __future__ import annotations

import random
from collections.abc import Iterable

from ..validate import check_int

CANDIDATE_PHI = 0.5  # φ of the draws behind ``candidates`` unless a caller gives its own


class Perturber:
    """Base class. Subclasses set ``name``/``description`` and override ``perturb_word``.

    ``rng`` is a per-sample ``random.Random`` that the protocol derives from the user's seed, so
    results are identical in any process. ``phi`` is the character-level probability φ.
    """

    name: str = ""
    description: str = ""
    token_aligned: bool = True  # False for perturbers that change the number of tokens (segment)
    prepares: bool = False  # True where ``prepare`` does batch work (phonetic decoding)

    def can_change(self, word: str) -> bool:
        """Whether some draw of ``perturb_word`` returns something other than ``word``: exactly
        the words the protocol may count as perturbed (a property test ties the two)."""
        raise NotImplementedError

    def perturb_word(self, word: str, phi: float, rng: random.Random) -> str:
        raise NotImplementedError

    def candidates(self, word: str, k: int, rng: random.Random,
                   phi: float = CANDIDATE_PHI) -> list[str]:
        """Up to ``k`` distinct changed forms of ``word``, in the order they were found (none
        when it cannot change). Random perturbers sample ``perturb_word`` without duplicates,
        with a bounded number of draws; table-backed ones override this to return their rows
        in order."""
        k = check_int("k", k)
        if not self.can_change(word):
            return []
        found: dict[str, None] = {}
        for _ in range(4 * k + 8):
            new = self.perturb_word(word, phi, rng)
            if new != word:
                found[new] = None
                if len(found) == k:
                    break
        return list(found)

    def prepare(self, words: Iterable[str]) -> int:
        """Batch work for ``words`` before they are perturbed one by one (only where
        ``prepares``); results never depend on it. Returns how many words were prepared."""
        return 0

    def reference_word(self, word: str, phi: float, rng: random.Random) -> str:
        """``perturb_word`` as the original code did it, where that differs from the paper's
        reading (``protocol="reference"``)."""
        return self.perturb_word(word, phi, rng)

    def reference_sentence(self, words: list[str], gaps: list[str], p: float, phi: float,
                           rng: random.Random) -> int | None:
        """The original code's sentence-level use, where it bypassed the word protocol: change
        ``words``/``gaps`` in place and return how many words changed; None (the default) where
        the original attacked ⌈p·n⌉ drawn words."""
        return None

    def attack_drawn(self, words: list[str], gaps: list[str], drawn: list[int], target: int,
                     phi: float, rng: random.Random) -> int | None:
        """The protocol's visits of the ``drawn`` words, for a perturber that needs its own
        (phonetic: draws independent of its OOV path): change them until ``target`` changed and
        return how many did; None (the default) where the protocol's visits serve."""
        return None

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
