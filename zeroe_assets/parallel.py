"""Streaming, order-preserving multiprocessing for perturbations (identical to the 1-process run).

When the input fails (invalid UTF-8, a sample that is not a str), every sample read before the
failure is still perturbed and yielded, in order, before the error is raised: a run writes the
same lines with any number of processes.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
from collections.abc import Iterable, Iterator

from .rng import BLOCK, check_text, sample_rngs

_worker_attack = None  # the worker's Perturbation, set once by the pool initializer


def ignore_interrupts() -> None:
    """Pool initializer part: Ctrl-C is the parent's to handle (one message, not one per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def share_cores(processes: int) -> None:
    """Pool initializer part: each worker's torch gets its share of the cores (a forked torch
    runs every core in each worker, so -j 2 was 3x slower than -j 1). Never imports torch: one
    imported later reads ``OMP_NUM_THREADS`` (a user's own setting is kept)."""
    threads = max(1, (os.cpu_count() or 1) // processes)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)
    else:
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies


def exit_with_parent() -> None:
    """Pool initializer part: a worker whose parent is killed (``kill -9``) ends quietly instead
    of printing a BrokenPipeError traceback when it sends a result to no one: writing to a pipe
    nobody reads ends it (SIGPIPE's default), and on Linux the parent's death itself does
    (the parent-death signal, SIGTERM), so it does not finish its chunk first."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(0)


def start_worker(processes: int) -> None:
    """What every pool worker of the toolkit does first (`perturb -j`, `bench generate -j`,
    `search -j`)."""
    ignore_interrupts()
    exit_with_parent()
    share_cores(processes)


def pool_context():
    """The multiprocessing context of every pool of the toolkit: fork where there is one (loaded
    tables and victims stay shared copy-on-write), spawn elsewhere (what a worker needs is
    pickled to it once). multiprocessing is imported here: a one-process run never needs it."""
    import multiprocessing as mp

    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


_stop = None  # the worker's copy of its pool's stop event (`worker_pool`)


def _start(stop, processes: int, initializer, initargs: tuple) -> None:
    global _stop
    _stop = stop
    start_worker(processes)
    if initializer is not None:
        initializer(*initargs)


def _unless_stopped(job: tuple):
    function, argument = job
    return None if _stop.is_set() else function(argument)


class WorkerPool:
    """The ``imap`` and ``imap_unordered`` of a `worker_pool`, whose jobs not yet started when
    it ends are skipped."""

    def __init__(self, pool):
        self._pool = pool

    def imap(self, function, jobs: Iterable) -> Iterator:
        return self._pool.imap(_unless_stopped, zip(itertools.repeat(function), jobs))

    def imap_unordered(self, function, jobs: Iterable) -> Iterator:
        return self._pool.imap_unordered(_unless_stopped, zip(itertools.repeat(function), jobs))


@contextlib.contextmanager
def worker_pool(processes: int, initializer=None, initargs: tuple = ()) -> Iterator[WorkerPool]:
    """The one pool of the toolkit (`perturb -j`, `bench generate -j`, `search -j`): each worker
    runs `start_worker`, then ``initializer(*initargs)``. It ends without killing a worker: the
    jobs not yet started are skipped and the workers exit on their own, so an error or early end
    waits only for the jobs in progress. ``Pool.terminate`` can hang for good: a worker it kills
    while sending a result keeps the result queue's lock (seen one run in a few hundred of
    ``zeroe search -j 2`` with a victim that raises). Ctrl-C still terminates: it should not
    wait."""
    ctx = pool_context()
    stop = ctx.Event()
    pool = ctx.Pool(processes, initializer=_start, initargs=(stop, processes, initializer,
                                                             initargs))
    try:
        yield WorkerPool(pool)
    except KeyboardInterrupt:
        pool.terminate()
        raise
    finally:
        stop.set()
        pool.close()
        pool.join()


def _init(attack) -> None:
    global _worker_attack
    _worker_attack = attack


def perturb_at(attack, texts, base: int, start: int, before=()) -> list:
    """``attack.perturb`` of ``texts`` as the samples at positions ``start``, ``start`` + 1, ...
    of the stream seeded by ``base``, exactly as one process gives them. ``before``: the samples
    of ``start``'s block that precede it (``start % BLOCK`` of them), perturbed and dropped to
    bring the block's generator to its state there. A ``None`` is a missing value: kept, no
    draws, its position used up."""
    lead = start % BLOCK
    if len(before) != lead:
        raise ValueError(f"position {start} needs the {lead} samples before it, got {len(before)}")
    rngs = sample_rngs(base, start - lead)
    for text, rng in zip(before, rngs):
        if text is not None:
            attack.perturb(text, rng)
    return [None if t is None else attack.perturb(t, rng) for t, rng in zip(texts, rngs)]


def _run(job: tuple[int, int, list[str]]) -> list[str]:
    base, start, texts = job
    return perturb_at(_worker_attack, texts, base, start)


class Checked:
    """The samples of ``texts`` up to the first failure (reading or type), which is kept in
    ``error`` to be raised once everything read before it is out."""

    def __init__(self, texts: Iterable[str]):
        self._it, self.error = iter(texts), None

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.error is not None:
            raise StopIteration
        try:
            return check_text(next(self._it))
        except StopIteration:
            raise
        except Exception as e:  # raised again by stream() after the output before it
            self.error = e
            raise StopIteration from None


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
    source = Checked(texts)
    if processes == 1:
        for text, rng in zip(source, sample_rngs(base)):
            yield attack.perturb(text, rng)
    else:
        yield from _pooled(attack, source, base, processes, chunksize)
    if source.error is not None:
        raise source.error


def _pooled(attack, texts: Iterable[str], base: int, processes: int,
            chunksize: int) -> Iterator[str]:
    chunksize = -(-chunksize // BLOCK) * BLOCK  # whole blocks, so workers see the same streams
    with worker_pool(processes, _init, (attack,)) as pool:
        # imap is lazy on results but eager on input; bound memory by feeding it in windows
        jobs = _chunks(texts, base, chunksize)
        while window := list(itertools.islice(jobs, processes * 4)):
            for out in pool.imap(_run, window):
                yield from out
