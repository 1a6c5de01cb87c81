"""One base for victims that stand in front of another (a timer, a shield): the delegation is
written once, so that goals, the benchmark and reports read a wrapped victim as the victim."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

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
