"""``zeroe search --engine ray``: a run's examples attacked by Ray actors.

Each actor builds the run's attack and loads its victim once (`search.run.worker`, as a ``-j``
process does), on a GPU of its own where the cluster has one for each of them (an equal share of
one where it has fewer), and attacks one example at a time. The next example goes to whichever
actor is free, and the results come back in example order as soon as the ones before them are
in. Example i draws from its own random stream whichever actor attacks it, so the driver writes
a ``results.jsonl`` byte for byte that of ``-j 1``, line by line, and a run resumes as any other
(`search.run.run`).

The examples travel from the driver; the victim is loaded by each actor from the run's
settings, so on a cluster of several machines its model file (``--victim-path``) must be at the
same path on every node, as the artifacts are for the perturbers (docs/integrations.md).
"""
from __future__ import annotations

import math
from collections.abc import Iterator

from ..search.run import RunSettings, attack_one, worker
from ..validate import check_int
from .ray_data import connect


class RayEngine:
    """`search.run.run`'s ``engine``: ``workers`` actors on the Ray cluster at ``address``
    (None: a local instance of ``workers`` CPUs), at most as many as the cluster has CPUs
    (an actor waiting for a CPU that never frees would stall the examples handed to it)."""

    def __init__(self, workers: int = 2, address: str | None = None):
        self.workers, self.address = check_int("workers", workers), address

    def __call__(self, settings: RunSettings, jobs: list) -> Iterator[tuple[str, float, float]]:
        """`search.run.attack_one`'s (line, victim seconds, seconds) of each (index, example)
        job, in job order."""
        if not jobs:
            return
        ray = connect(self.address, self.workers)
        from ray.exceptions import RayTaskError

        resources = ray.cluster_resources()
        count = max(1, min(self.workers, len(jobs), int(resources.get("CPU", 1))))
        gpus = int(resources.get("GPU", 0))
        share = 1 / math.ceil(count / gpus) if gpus else 0  # every actor fits on the GPUs
        remote = ray.remote(_Attacker).options(num_cpus=1, num_gpus=share)
        actors = [remote.remote(settings) for _ in range(count)]
        try:
            yield from _in_order(ray, actors, jobs)
        except RayTaskError as e:  # the actor's own error (a victim that failed, ...)
            raise e.cause from None
        finally:
            for actor in actors:
                ray.kill(actor)


class _Attacker:
    """One actor: the run's attack and timed victim, built once."""

    def __init__(self, settings: RunSettings):
        self.worker = worker(settings)

    def attack(self, index: int, example) -> tuple[str, float, float]:
        return attack_one(*self.worker, index, example)


def _in_order(ray, actors: list, jobs: list) -> Iterator[tuple[str, float, float]]:
    """Each job to the first free actor, one at a time; the results in job order (a finished
    job frees its actor at once, even while an earlier one is still running: Ray's ordered
    ``ActorPool.map`` would keep it idle until then)."""
    idle, running, finished, pending = list(actors), {}, {}, iter(enumerate(jobs))
    for position in range(len(jobs)):
        while position not in finished:
            for actor, (i, (index, example)) in zip(list(idle), pending):
                idle.remove(actor)
                running[actor.attack.remote(index, example)] = i, actor
            (ready,), _ = ray.wait(list(running), num_returns=1)
            i, actor = running.pop(ready)
            finished[i] = ray.get(ready)
            idle.append(actor)
        yield finished.pop(position)
