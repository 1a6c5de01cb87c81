"""The Zéroe attack protocol (paper §3.1), shared by every perturber, plus composition and Mischief.

``protocol="paper"``: per sample, draw word indices uniformly without replacement; for each, flip
a coin with probability p and attack on heads; a word counts as perturbed only if it changed;
stop once ⌈p·n⌉ words are perturbed or no indices are left.
``protocol="reference"``: the original code's behaviour, no coin: attack each drawn word until
⌈p·n⌉ have changed (so exactly that many whenever enough words are attackable).

Randomness: a user seed (int) or ``numpy.random.Generator`` gives a base seed; sample i of a
batch uses a private ``random.Random`` seeded from (base, i). Results therefore do not depend
on batching, process count or ``PYTHONHASHSEED``, and ``attack(s, seed)`` equals
``attack([s], seed)[0]``.
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Sequence
from typing import Union

import numpy as np

from . import tokenize
from .perturbers.base import Perturber
from .perturbers.shuffle import InnerShufflePerturber

LEVELS = {"low": 0.2, "mid": 0.5, "high": 0.8}
PROTOCOLS = ("paper", "reference")
Seed = Union[int, np.random.Generator, None]
_MASK64 = (1 << 64) - 1


def resolve_level(level: float | str, what: str = "level") -> float:
    """``low``/``mid``/``high`` or a number in [0, 1]."""
    if isinstance(level, str):
        key = level.strip().lower()
        if key in LEVELS:
            return LEVELS[key]
        try:
            value = float(key)
        except ValueError:
            raise ValueError(f"{what} must be one of {', '.join(LEVELS)} or a number in [0, 1], "
                             f"got {level!r}") from None
    else:
        value = float(level)
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise ValueError(f"{what} must be in [0, 1], got {level!r}")
    return value


def base_seed(seed: Seed) -> int:
    """One 64-bit integer from an int seed, a Generator, or fresh OS entropy (None)."""
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 1 << 63))
    if seed is None:
        return int(np.random.SeedSequence().entropy) & _MASK64
    if isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int or a numpy.random.Generator, got {seed!r}")
    return int(seed) & _MASK64


def sample_rng(base: int, index: int) -> random.Random:
    """The private generator of sample ``index``: splitmix64 of (base, index), no global state."""
    z = (base + (index + 1) * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return random.Random(z ^ (z >> 31))


class Attack:
    """Something that perturbs one text with a given generator; callable on a str or a list."""

    name = "attack"

    def perturb(self, text: str, rng: random.Random) -> str:
        raise NotImplementedError

    def __call__(self, texts: str | Sequence[str], seed: Seed = None):
        if isinstance(texts, str):
            return self.perturb(texts, sample_rng(base_seed(seed), 0))
        base = base_seed(seed)
        return [self.perturb(_check_text(t), sample_rng(base, i)) for i, t in enumerate(texts)]

    def stream(self, texts: Iterable[str], seed: Seed = None, processes: int = 1,
               chunksize: int = 256) -> Iterator[str]:
        """Perturb a (possibly huge) iterable lazily, in order, optionally over processes.

        Output is identical for any ``processes``/``chunksize``: sample i always gets
        ``sample_rng(base, i)``.
        """
        from .parallel import stream  # multiprocessing only when asked for

        return stream(self, texts, base_seed(seed), processes, chunksize)


def _check_text(text) -> str:
    if not isinstance(text, str):
        raise ValueError(f"expected str samples, got {type(text).__name__}")
    return text


class Attacker(Attack):
    """One perturber under the Zéroe protocol at word level p and character level φ."""

    def __init__(self, perturber: Perturber, level: float | str = "mid",
                 phi: float | str | None = None, protocol: str = "paper"):
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
        self.perturber = perturber
        self.name = perturber.name
        self.p = resolve_level(level)
        self.phi = self.p if phi is None else resolve_level(phi, "phi")
        self.protocol = protocol

    def __repr__(self) -> str:
        return (f"Attacker({self.name!r}, p={self.p}, phi={self.phi}, "
                f"protocol={self.protocol!r})")

    def perturb(self, text: str, rng: random.Random) -> str:
        return self.perturb_counted(text, rng)[0]

    def perturb_counted(self, text: str, rng: random.Random) -> tuple[str, int, int]:
        """``(perturbed text, words perturbed, words in the sample)``."""
        _check_text(text)
        words, gaps = tokenize.split(text)
        n = len(words)
        target = math.ceil(self.p * n - 1e-9)
        if target == 0:
            return text, 0, n
        order = list(range(n))
        rng.shuffle(order)
        p, phi, perturber = self.p, self.phi, self.perturber
        coin = self.protocol == "paper"
        attackable = perturber.attackable
        done = bytearray(n)  # changed already (segment changes several words at once)
        changed = 0
        for k in order:
            if coin and rng.random() >= p:
                continue
            if done[k] or not attackable(words[k]):
                continue
            for i in perturber.attack_at(words, gaps, k, phi, rng, done):
                if not done[i]:
                    done[i] = 1
                    changed += 1
            if changed >= target:
                break
        if changed == 0:
            return text, 0, n
        return tokenize.join(words, gaps), changed, n


class Chain(Attack):
    """Attackers applied one after the other, each with its own level (``intrude+visual``)."""

    def __init__(self, attacks: Sequence[Attack]):
        if not attacks:
            raise ValueError("a chain needs at least one attacker")
        self.attacks = list(attacks)
        self.name = "+".join(a.name for a in self.attacks)

    def perturb(self, text, rng):
        for attack in self.attacks:
            text = attack.perturb(text, rng)
        return text


class Mix(Attack):
    """Each sample attacked by one attacker drawn uniformly (the BERT-Defense "rand" sets)."""

    def __init__(self, attacks: Sequence[Attack]):
        if not attacks:
            raise ValueError("a random mix needs at least one attacker")
        self.attacks = list(attacks)
        self.name = "|".join(a.name for a in self.attacks)

    def perturb(self, text, rng):
        return self.attacks[rng.randrange(len(self.attacks))].perturb(text, rng)


class Mischief(Attack):
    """Mischief (Rawlinson-style, see papers/mischief-2020): a dataset-level protocol.

    Each sample is selected with probability ``p``; in a selected sample every word longer than
    three letters has its inner letters permuted with probability ``r``.
    """

    name = "mischief"

    def __init__(self, level: float | str = "mid", r: float | str | None = None):
        self.p = resolve_level(level)
        self.r = self.p if r is None else resolve_level(r, "r")
        self._shuffle = InnerShufflePerturber(min_length=4)

    def __repr__(self) -> str:
        return f"Mischief(p={self.p}, r={self.r})"

    def perturb(self, text, rng):
        _check_text(text)
        if rng.random() >= self.p:
            return text
        words, gaps = tokenize.split(text)
        for i, word in enumerate(words):
            if rng.random() < self.r and len(word) > 3:
                words[i] = self._shuffle.perturb_word(word, self.r, rng)
        return tokenize.join(words, gaps)
