"""``zeroe search --engine ray``: a run's examples attacked by Ray actors.

Each actor loads the run's victim once (`search.run.build`, as a ``-j`` process does), on a GPU
of its own where the cluster has one for each of them (an equal share of one where it has
fewer), and attacks ``examples`` examples at a time, each in a thread of its own with its own
copy of the recipe; their victim queries are gathered into one call (`victims.wrapper.Gather`),
so that a ``hf:`` model fills its batches from several examples. The next example goes to
whichever actor has room, and the results come back in example order as soon as the ones before
them are in. Example i draws from its own random stream wherever it is attacked, so the driver
writes a ``results.jsonl`` byte for byte that of ``-j 1`` (with ``examples`` > 1: for victims
whose output for a text does not depend on the rest of its batch), line by line, and a run
resumes as any other (`search.run.run`).

The examples travel from the driver; the victim is loaded by each actor from the run's
settings, so on a cluster of several machines its model file (``--victim-path``) must be at the
same path on every node, as the artifacts are for the perturbers (docs/integrations.md).
"""
from __future__ import annotations

import math
import queue
from collections.abc import Iterator

from ..search.run import RunSettings, attack_one, build, recipe
from ..validate import check_int
from ..victims.wrapper import Gather, TimedVictim
from .ray_data import connect, reachable


class RayEngine:
    """`search.run.run`'s ``engine``: ``workers`` actors on the Ray cluster at ``address``
    (None: a local instance of ``workers`` CPUs), at most as many as the cluster has CPUs
    (an actor waiting for a CPU that never frees would stall the examples handed to it), each
    attacking ``examples`` examples at a time."""

    def __init__(self, workers: int = 2, address: str | None = None, examples: int = 1):
        self.workers, self.address = check_int("workers", workers), address
        self.examples = check_int("examples per worker", examples)
        if address:  # refused before the run folder is made, not after
            reachable(address)

    def __call__(self, settings: RunSettings, jobs: list) -> Iterator[tuple[str, float, float]]:
        """`search.run.attack_one`'s (line, victim seconds, seconds) of each (index, example)
        job, in job order."""
        if not jobs:
            return
        ray = connect(self.address, self.workers)
        from ray.exceptions import RayTaskError

        resources = ray.cluster_resources()
        count = max(1, min(self.workers, -(-len(jobs) // self.examples),
                           int(resources.get("CPU", 1))))
        gpus = int(resources.get("GPU", 0))
        share = 1 / math.ceil(count / gpus) if gpus else 0  # every actor fits on the GPUs
        remote = ray.remote(_Attacker).options(num_cpus=1, num_gpus=share,
                                               max_concurrency=self.examples)
        actors = [remote.remote(settings, self.examples) for _ in range(count)]
        try:
            yield from _in_order(ray, [a for a in actors for _ in range(self.examples)], jobs)
        except RayTaskError as e:  # the actor's own error (a victim that failed, ...)
            raise e.cause from None
        finally:
            for actor in actors:
                ray.kill(actor)


class _Attacker:
    """One actor: the victim loaded once and gathered, and a copy of the recipe for each of
    the ``examples`` threads that attack at once."""

    def __init__(self, settings: RunSettings, examples: int):
        attack, victim = build(settings)
        self.recipes = queue.SimpleQueue()
        for copy in [attack] + [recipe(settings) for _ in range(examples - 1)]:
            self.recipes.put(copy)
        self.gather, self.name = Gather(victim, settings.victim), settings.victim

    def attack(self, index: int, example) -> tuple[str, float, float]:
        attack = self.recipes.get()
        try:
            with self.gather.member() as victim:
                return attack_one(attack, TimedVictim(victim, self.name), index, example)
        finally:
            self.recipes.put(attack)


def _in_order(ray, slots: list, jobs: list) -> Iterator[tuple[str, float, float]]:
    """Each job to the first free slot (an actor, once for each example it attacks at once);
    the results in job order (a finished job frees its slot at once, even while an earlier one
    is still running: Ray's ordered ``ActorPool.map`` would keep it idle until then)."""
    idle, running, finished, pending = list(slots), {}, {}, iter(enumerate(jobs))
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
