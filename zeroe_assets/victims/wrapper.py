"""One base for victims that stand in front of another (a timer, a shield): the delegation is
written once, so that goals, the benchmark and reports read a wrapped victim as the victim."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from . import Scorer, VictimError, error_text


class WrappedVictim:
    """``victim`` behind a wrapper. ``predict``, and ``scores`` only when ``victim`` is a
    :class:`Scorer`, query it through :meth:`ask` with the batch as it sees it (:meth:`seen`);
    every other attribute (``labels``, ``task``...) is the victim's. ``name``: the one given,
    else the victim's own, else its class's.

    A wrapper overrides what is its own: ``seen`` (a shield restores the texts) or ``ask`` (a
    timer counts the queries); ``rewrites`` says that ``seen`` changes the batch, so reports
    show what the victim saw. An exception the victim raises comes out as a `VictimError`
    naming it, so that a run can tell the victim's failure from its own.
    """

    rewrites = False

    def __init__(self, victim, name: str | None = None):
        self.victim = victim
        self.name = name or getattr(victim, "name", None) or type(victim).__name__

    def seen(self, batch: Sequence) -> Sequence:
        """The batch as the wrapped victim gets it: here, as given."""
        return batch

    def ask(self, method: Callable[[Sequence], list], batch: Sequence) -> list:
        """One query of the wrapped victim: ``method`` (its ``predict`` or ``scores``)."""
        batch = self.seen(batch)
        try:
            return method(batch)
        except VictimError:
            raise  # a wrapped wrapper's: named already
        except Exception as e:  # noqa: BLE001 - whatever the victim's own code raises
            raise VictimError(f"victim {self.name} failed on a batch of {len(batch)}: "
                              f"{error_text(e)}") from e

    def predict(self, batch: Sequence) -> list:
        return self.ask(self.victim.predict, batch)

    def __getattr__(self, name):
        # "victim" is not set yet while copying or unpickling (no recursion); special names are
        # the wrapper's own business (copy.deepcopy must not find the victim's __deepcopy__)
        if name == "victim" or name.startswith("__"):
            raise AttributeError(name)
        if name != "scores":
            return getattr(self.victim, name)
        if not isinstance(self.victim, Scorer):
            raise AttributeError(f"{self.name} gives no class probabilities (scores)")
        scores = self.victim.scores
        return lambda batch: self.ask(scores, batch)


def model_sees(victim, batch: Sequence) -> list:
    """``batch`` as the model inside ``victim`` gets it, through every wrapper's ``seen`` (a
    shield's restoring, a defense's encoding)."""
    while isinstance(victim, WrappedVictim):
        batch = victim.seen(batch)
        victim = victim.victim
    return list(batch)


class TimedVictim(WrappedVictim):
    """The victim, counting the seconds, texts and calls of its queries (a search attack's own
    overhead is the rest of its time). ``name`` (what errors call it): the victim's own, else
    the one given (the ``--victim`` spec)."""

    def __init__(self, victim, name: str | None = None):
        super().__init__(victim, getattr(victim, "name", None) or name)
        self.seconds, self.texts, self.calls = 0.0, 0, 0

    def ask(self, method, batch):
        start = time.perf_counter()
        try:
            return super().ask(method, batch)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts += len(batch)
            self.calls += 1


class Gather:
    """One victim for several threads that each attack an example: a query waits until every
    thread attacking has one waiting, then the waiting queries go to the victim as one call per
    method, their texts in the order the queries came, and each gets its own outputs back (a
    ``hf:`` model then fills its batches from several examples). The victim is only ever called
    by one thread at a time. For results to be those of one example at a time, a text's output
    must not depend on the other texts of its call: true of the built-in scikit-learn victims;
    a transformer pads a batch to its longest text, which can change the last digits of a
    probability.
    """

    def __init__(self, victim, name: str | None = None):
        self.victim = WrappedVictim(victim, name)  # names the victim in its errors
        self._changed = threading.Condition()
        self._members = 0  # threads attacking now
        self._waiting: list[_Query] = []

    @contextmanager
    def member(self) -> Iterator[WrappedVictim]:
        """The victim as one thread queries it while it attacks an example."""
        with self._changed:
            self._members += 1
        try:
            yield _Member(self)
        finally:
            with self._changed:
                self._members -= 1
                self._send_if_all_wait()

    def ask(self, method: Callable[[Sequence], list], batch: Sequence) -> list:
        query = _Query(method, list(batch))
        with self._changed:
            self._waiting.append(query)
            self._send_if_all_wait()
            while not query.done:
                self._changed.wait()
        if query.error is not None:
            raise query.error
        return query.outputs

    def _send_if_all_wait(self) -> None:
        if not self._waiting or len(self._waiting) < self._members:
            return
        calls: dict = {}
        for query in self._waiting:
            calls.setdefault(query.method, []).append(query)
        self._waiting = []
        for method, queries in calls.items():
            texts = [t for q in queries for t in q.batch]
            try:
                outputs = self.victim.ask(method, texts)
            except Exception as e:  # noqa: BLE001 - a VictimError naming it, for every thread
                for q in queries:
                    q.error = e
            else:
                start = 0
                for q in queries:  # a wrong count goes whole to each, for its session to tell
                    q.outputs = outputs[start:start + len(q.batch)] \
                        if len(outputs) == len(texts) else outputs
                    start += len(q.batch)
            for q in queries:
                q.done = True
        self._changed.notify_all()


class _Query:
    __slots__ = ("method", "batch", "outputs", "error", "done")

    def __init__(self, method, batch):
        self.method, self.batch = method, batch
        self.outputs, self.error, self.done = None, None, False


class _Member(WrappedVictim):
    """A thread's view of a `Gather`: the victim, queried through the gathering."""

    def __init__(self, gather: Gather):
        super().__init__(gather.victim.victim, gather.victim.name)
        self.gather = gather

    def ask(self, method, batch):
        return self.gather.ask(method, self.seen(batch))
