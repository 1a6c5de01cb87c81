"""Seeding and streaming: how a user's seed becomes one generator per sample.

A seed (int) or ``numpy.random.Generator`` gives a 64-bit base seed; samples come in blocks of
``BLOCK`` and block b uses a private ``random.Random`` seeded from (base, b), consumed by its
samples in order (seeding a generator per sample would cost a third of the run time). Results
therefore do not depend on how a stream is split into chunks, process count or
``PYTHONHASHSEED``; a sample's result does depend on the samples before it in its block.
"""
from __future__ import annotations

import hashlib
import itertools
import random
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Union

from .validate import check_seed

if TYPE_CHECKING:  # numpy is imported where a seed needs it: the rule-based CLI runs without it
    import numpy as np

Seed = Union[int, "np.random.Generator", None]
BLOCK = 64
_MASK64 = (1 << 64) - 1


def base_seed(seed: Seed) -> int:
    """One 64-bit integer from an int seed (0 to 2^64 − 1), a Generator, or fresh OS entropy
    (None). numpy is not imported for an int: a Generator or a numpy integer means numpy is
    already loaded, and start-up without it is half the time of a short `zeroe perturb`."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 1 << 63))
    if seed is None:
        import numpy as np

        return int(np.random.SeedSequence().entropy) & _MASK64
    integer = (int, np.integer) if np is not None else int
    if isinstance(seed, (bool, float)) or not isinstance(seed, integer):
        raise ValueError(f"seed must be an int or a numpy.random.Generator, got {seed!r}")
    return check_seed(seed)


def block_rng(base: int, index: int) -> random.Random:
    """The private generator of block ``index``: splitmix64 of (base, index), no global state."""
    z = (base + (index + 1) * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return random.Random(z ^ (z >> 31))


def keyed_rng(base: int, key: str) -> random.Random:
    """The private generator of ``key`` (a word): `block_rng` of a 64-bit digest of the key, the
    same in every process and whatever was drawn before, where a sample's block stream depends
    on the samples before it."""
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8,
                             person=b"zeroe-key").digest()
    return block_rng(base, int.from_bytes(digest, "little"))


def sample_rngs(base: int, start: int = 0) -> Iterator[random.Random]:
    """The generator for each sample from ``start`` on (a multiple of ``BLOCK``)."""
    if start % BLOCK:
        raise ValueError(f"start must be a multiple of {BLOCK}, got {start}")
    for block in itertools.count(start // BLOCK):
        rng = block_rng(base, block)
        for _ in range(BLOCK):
            yield rng


def shuffle(items: list, rng: random.Random) -> None:
    """``rng.shuffle(items)``: the same draws and the same order (a test holds the two together),
    at a third of the cost. The protocol shuffles every sample's drawn words, and
    ``Random.shuffle`` makes a Python method call (``_randbelow``) per element; here each step's
    bound and bit count come from a table (`_steps`)."""
    getrandbits, size = rng.getrandbits, len(items)
    # the table's entry without `_steps`' call where it is there (it is for every sentence)
    for i, n, k in _STEPS[size] if size < len(_STEPS) else _steps(size):
        j = getrandbits(k)
        while j >= n:  # rejection, as Random._randbelow
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


_STEPS: list[tuple[tuple[int, int, int], ...]] = []
_KEPT = 128  # sizes whose steps are kept (a sentence draws a few dozen words at most)


def _steps(size: int):
    """The steps of shuffling ``size`` items: (position, positions to draw from, bits per
    draw) from the last position down to 1, as ``Random.shuffle`` takes them."""
    if size < len(_STEPS):
        return _STEPS[size]
    if size >= _KEPT:
        return ((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
    while len(_STEPS) <= size:
        m = len(_STEPS)
        _STEPS.append(tuple((i, i + 1, (i + 1).bit_length()) for i in range(m - 1, 0, -1)))
    return _STEPS[size]


def check_text(text) -> str:
    """``text`` if it is a str, else the error every stream of samples gives."""
    if not isinstance(text, str):
        raise ValueError(f"expected str samples, got {type(text).__name__}")
    return text
