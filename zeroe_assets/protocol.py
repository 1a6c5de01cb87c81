"""The Zéroe attack protocol (paper §3.1), shared by every perturber, plus composition and Mischief.

``protocol="paper"``: per sample, draw word indices uniformly without replacement; for each, flip
a coin with probability p and attack on heads; a word counts as perturbed only if it changed;
stop once ⌈p·n⌉ words are perturbed or no indices are left.
``protocol="reference"``: the original code's behaviour, no coin: attack each drawn word until
⌈p·n⌉ have changed (so exactly that many whenever enough words are attackable).

Randomness: a user seed (int) or ``numpy.random.Generator`` gives a base seed; samples come in
blocks of ``BLOCK`` and block b uses a private ``random.Random`` seeded from (base, b), consumed
by its samples in order (seeding a generator per sample would cost a third of the run time).
Results therefore do not depend on how a stream is split into chunks, process count or
``PYTHONHASHSEED``, and ``attack(s, seed)`` equals ``attack([s], seed)[0]``; a sample's result does
depend on the samples before it in its block (they draw from the same generator).
"""
from __future__ import annotations

import itertools
import math
import numbers
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
    elif isinstance(level, numbers.Real) and not isinstance(level, bool):
        value = float(level)
    else:
        raise ValueError(f"{what} must be one of {', '.join(LEVELS)} or a number in [0, 1], "
                         f"got {level!r}")
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


BLOCK = 64


def block_rng(base: int, index: int) -> random.Random:
    """The private generator of block ``index``: splitmix64 of (base, index), no global state."""
    z = (base + (index + 1) * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return random.Random(z ^ (z >> 31))


def sample_rngs(base: int, start: int = 0) -> Iterator[random.Random]:
    """The generator for each sample from ``start`` on (a multiple of ``BLOCK``)."""
    if start % BLOCK:
        raise ValueError(f"start must be a multiple of {BLOCK}, got {start}")
    for block in itertools.count(start // BLOCK):
        rng = block_rng(base, block)
        for _ in range(BLOCK):
            yield rng


class Attack:
    """Something that perturbs one text with a given generator; callable on a str or a list."""

    name = "attack"

    def perturb(self, text: str, rng: random.Random) -> str:
        raise NotImplementedError

    def __call__(self, texts: str | Sequence[str], seed: Seed = None):
        if isinstance(texts, str):
            return self.perturb(texts, block_rng(base_seed(seed), 0))
        if not isinstance(texts, Iterable):
            raise ValueError(f"expected a str or a sequence of str, got {type(texts).__name__}")
        return [self.perturb(_check_text(t), rng)
                for t, rng in zip(texts, sample_rngs(base_seed(seed)))]

    def stream(self, texts: Iterable[str], seed: Seed = None, processes: int = 1,
               chunksize: int = 256) -> Iterator[str]:
        """Perturb a (possibly huge) iterable lazily, in order, optionally over processes.

        Output is identical for any ``processes``/``chunksize`` (chunks are whole blocks).
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
        # Flipping every coin first and visiting the heads in random order is the same
        # distribution as drawing indices and flipping on the way, with half the shuffling.
        rand = rng.random
        p = self.p
        drawn = [i for i in range(n) if rand() < p] if self.protocol == "paper" else list(range(n))
        rng.shuffle(drawn)
        changed = self._attack(words, gaps, drawn, target, rng)
        if changed == 0:
            return text, 0, n
        return tokenize.join(words, gaps), changed, n

    def _attack(self, words, gaps, drawn, target, rng) -> int:
        """Attack the drawn words in order until ``target`` changed; return how many did.

        Unattackable words come back unchanged and are not counted, so no separate check.
        """
        phi, perturber, changed = self.phi, self.perturber, 0
        if type(perturber).attack_at is Perturber.attack_at:  # word-local: the fast path
            perturb_word = perturber.perturb_word
            for k in drawn:
                word = words[k]
                new = perturb_word(word, phi, rng)
                if new != word:
                    words[k] = new
                    changed += 1
                    if changed >= target:
                        break
            return changed
        done = bytearray(len(words))  # context perturbers (segment) change several words
        for k in drawn:
            if done[k]:
                continue
            for i in perturber.attack_at(words, gaps, k, phi, rng, done):
                if not done[i]:
                    done[i] = 1
                    changed += 1
            if changed >= target:
                break
        return changed


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
