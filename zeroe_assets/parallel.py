"""Streaming, order-preserving multiprocessing for perturbations (identical to the 1-process run)."""
from __future__ import annotations

import itertools
import multiprocessing as mp
from collections.abc import Iterable, Iterator

from .rng import BLOCK, check_text, sample_rngs

_worker_attack = None  # the worker's Perturbation, set once by the pool initializer


def _init(attack) -> None:
    global _worker_attack
    _worker_attack = attack


def _run(job: tuple[int, int, list[str]]) -> list[str]:
    base, start, texts = job
    return [_worker_attack.perturb(check_text(t), rng)
            for t, rng in zip(texts, sample_rngs(base, start))]


def _chunks(texts: Iterable[str], base: int, size: int):
    it, start = iter(texts), 0
    while chunk := list(itertools.islice(it, size)):
        yield base, start, chunk
        start += len(chunk)


def stream(attack, texts: Iterable[str], base: int, processes: int,
           chunksize: int) -> Iterator[str]:
    """``attack.perturb`` over ``texts`` with the generators of ``rng.sample_rngs(base)``."""
    if processes < 1 or chunksize < 1:
        raise ValueError(f"processes and chunksize must be >= 1, got {processes}, {chunksize}")
    if processes == 1:
        for text, rng in zip(texts, sample_rngs(base)):
            yield attack.perturb(check_text(text), rng)
        return
    chunksize = -(-chunksize // BLOCK) * BLOCK  # whole blocks, so workers see the same streams
    # fork keeps loaded tables shared copy-on-write; spawn elsewhere pickles the attack once.
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with ctx.Pool(processes, initializer=_init, initargs=(attack,)) as pool:
        # imap is lazy on results but eager on input; bound memory by feeding it in windows
        jobs = _chunks(texts, base, chunksize)
        while window := list(itertools.islice(jobs, processes * 4)):
            for out in pool.imap(_run, window):
                yield from out
