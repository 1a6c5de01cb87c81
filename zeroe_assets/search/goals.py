"""Goal functions (TextAttack's third part) and the per-example query session.

A goal turns the victim's outputs into an ``Outcome`` per text: the victim's label, a score
(higher is closer to the goal) and whether the goal is met. Classification (``nli``, ``tc``,
``generic``) is untargeted (the label leaves the gold one; score 1 − p(gold)) or targeted
(the label becomes ``target``; score p(target)); probabilities come from ``victim.scores`` with
``victim.labels`` where the victim has them (``tc``: ``predict``'s probability p, labels 0/1,
scores [1 − p, p]), else from the labels alone (a 0/1 score). Tagging (``pos``) aims at one
token's tag (it leaves the gold tag, or becomes ``target``) or at the sentence's tag accuracy
(below ``max_accuracy``).

The session asks the victim: every batch is one call with the texts not scored before (a text
is never sent twice nor counted twice), counted exactly, never over the budget (a batch is cut
to what is left, and the session says it ran out). The victim's outputs are checked: a wrong
number of them, NaN, values outside [0, 1], rows not summing to 1 or unknown labels are a
``ValueError`` naming the victim.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..tasks import Task, get_task
from ..victims import Scorer
from ..victims.wrapper import model_sees


class Outcome(NamedTuple):
    label: Any     # the victim's label (the tag list for pos)
    score: float   # how close to the goal: higher is closer
    met: bool      # whether the goal is reached


def victim_name(victim) -> str:
    return str(getattr(victim, "name", None) or type(victim).__name__)


class Goal:
    """Base class: ``outcomes`` of a batch of victim inputs for one example's gold."""

    task: Task

    def check_gold(self, gold) -> Any:
        """``gold`` as the goal compares it; a ValueError where the goal cannot use it."""
        return gold

    def bind(self, victim) -> Callable[[list, Any], list[Outcome]]:
        """Checks that need the victim (its labels), once per example; returns ``outcomes`` of
        ``victim`` as a function of (batch, gold): a session's, what the goal needs to know of
        the victim read once."""
        return functools.partial(self.outcomes, victim)

    def outcomes(self, victim, batch: list, gold) -> list[Outcome]:
        raise NotImplementedError

    def session(self, victim, gold, budget: float, aware: bool = False) -> "Session":
        read = self.bind(victim)
        return Session(self, victim, self.check_gold(gold), budget, read, aware)


def _checked_rows(victim, rows, n: int, width: int | None) -> list[list[float]]:
    """``rows`` as probability rows, or a ValueError naming the victim. Rows of plain floats
    (lists, as the scikit-learn victims give, or a float array) that are plainly probabilities
    are checked in Python: 3 µs for one row against numpy's 31 µs (2% of zeroe-fast's
    instructions against a ``generic`` victim, a few texts a call); anything else takes numpy's
    checks and their messages."""
    import numpy as np

    plain = rows.tolist() if type(rows) is np.ndarray and rows.dtype == np.float64 else rows
    if n and width and type(plain) is list and len(plain) == n and all(
            type(row) is list and len(row) == width
            and all(type(p) is float and 0.0 <= p <= 1.0 for p in row)
            and abs(sum(row) - 1.0) <= 1e-4 for row in plain):
        return [list(row) for row in plain]
    name = victim_name(victim)
    rows = list(rows) if rows is not None else []
    if len(rows) != n:
        raise ValueError(f"victim {name} returned {len(rows)} outputs for {n} inputs")
    try:
        arr = np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"victim {name} returned scores that are not rows of numbers") from None
    if arr.ndim != 2 or (width is not None and arr.shape[1] != width):
        raise ValueError(f"victim {name} returned score rows of shape {arr.shape[1:]} for "
                         f"{width} labels")
    if np.isnan(arr).any():
        raise ValueError(f"victim {name} returned NaN scores")
    if (arr < 0).any() or (arr > 1).any():
        raise ValueError(f"victim {name} returned scores outside [0, 1] (not probabilities)")
    if (np.abs(arr.sum(1) - 1) > 1e-3).any():
        raise ValueError(f"victim {name} returned score rows that do not sum to 1 "
                         f"(not probabilities)")
    return arr.tolist()


def _binary_rows(victim, probabilities: list[float], n: int) -> list[list[float]]:
    """[1 − p, p] per probability p, or the ValueError ``_checked_rows`` would raise for those
    rows. Checked without numpy: its checks cost ~100 µs a call, a tenth of a TF-IDF victim's
    call on the few texts of a guided search (rows [1 − p, p] sum to 1 within an ulp)."""
    if len(probabilities) != n:
        return _checked_rows(victim, [[1.0 - p, p] for p in probabilities], n, 2)
    for p in probabilities:
        if not 0.0 <= p <= 1.0:  # NaN or out of range: the checks' own message
            return _checked_rows(victim, [[1.0 - p, p] for p in probabilities], n, 2)
    return [[1.0 - p, p] for p in probabilities]


class Classification(Goal):
    """Untargeted (``target=None``) or targeted classification for ``nli``, ``tc``,
    ``generic``. ``labels``: the label set for a victim that only returns labels (checked
    against its outputs and the target; a victim's own ``labels`` win)."""

    def __init__(self, task: str | Task, target=None, labels: Sequence | None = None):
        self.task = get_task(task)
        if self.task.inputs == "tokens":
            raise ValueError("pos is a tagging task: use the Tagging goal")
        self.binary = self.task.name == "tc"
        self.target = self._label(target) if target is not None else None
        self.known = tuple(self._label(x) for x in labels) if labels is not None else None
        if self.binary:
            self.known = (0, 1)
        if self.target is not None and self.known is not None and self.target not in self.known:
            raise ValueError(self._unknown_target(self.known))

    def _label(self, value):
        if not self.binary:
            return str(value)
        try:
            number = float(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError):
            number = None
        if number not in (0.0, 1.0):
            raise ValueError(f"tc labels are 0 and 1, got {value!r}")
        return int(number)

    def _unknown_target(self, labels) -> str:
        return (f"target label {self.target!r} is not a label of task {self.task.name} here; "
                f"choose from {', '.join(map(str, labels))}")

    def check_gold(self, gold):
        if self.binary and isinstance(gold, (list, tuple)):
            raise ValueError("multi-label toxicity data (one 0/1 label per class) cannot be "
                             "attacked by search: give one 0/1 label per text (e.g. OLID)")
        return self._label(gold)

    def bind(self, victim):
        labels, prober = self._prober(victim)
        if self.target is not None and labels is not None and self.target not in labels:
            raise ValueError(self._unknown_target(labels) + f" (victim {victim_name(victim)})")
        return lambda batch, gold: self._outcomes(victim, prober(batch), batch, gold)

    def probabilities(self, victim, batch) -> tuple[tuple, list] | None:
        """(labels, checked probability rows) for ``batch``; None for a labels-only victim."""
        return self._prober(victim)[1](batch)

    def outcomes(self, victim, batch, gold):
        return self._outcomes(victim, self.probabilities(victim, batch), batch, gold)

    def _prober(self, victim) -> tuple[tuple | None, Callable[[list], tuple | None]]:
        """The victim's label set (``victim.labels`` where it has scores, else the known set)
        and ``probabilities`` of a batch as a function, whether the victim is a `Scorer` and
        its labels read once: the protocol check and a scikit-learn victim's ``labels``
        (through a wrapper's ``__getattr__``) cost several times a call's own checks, and a
        session asks a few texts a query."""
        if self.binary:
            def binary(batch):
                out = victim.predict(batch)
                out = list(out) if out is not None else []
                if any(isinstance(p, (list, tuple)) for p in out):
                    raise ValueError(f"victim {victim_name(victim)} is multi-label (a list of "
                                     "scores per text), which search attacks do not take")
                return (0, 1), _binary_rows(victim, _floats(victim, out), len(batch))
            return self.known, binary
        if isinstance(victim, Scorer):
            labels, scores = tuple(self._label(x) for x in victim.labels), victim.scores
            return labels, lambda batch: (labels, _checked_rows(victim, scores(batch),
                                                                len(batch), len(labels)))
        return self.known, lambda batch: None

    def _outcomes(self, victim, found, batch, gold) -> list[Outcome]:
        """The outcomes of ``batch`` from ``prober``'s answer ``found`` (None: ask labels)."""
        if found is None:
            return self._from_labels(victim, victim.predict(batch), len(batch), gold)
        labels, rows = found
        if gold not in labels:
            raise ValueError(f"gold label {gold!r} is not one of victim "
                             f"{victim_name(victim)}'s labels {list(labels)}")
        gi = labels.index(gold)
        ti = None if self.target is None else labels.index(self.target)
        out = []
        for row in rows:
            # tc: label = p ≥ 0.5 (the contract); else the most probable label
            best = int(row[1] >= 0.5) if self.binary else max(range(len(row)),
                                                               key=row.__getitem__)
            label = labels[best]
            if ti is None:
                out.append(Outcome(label, 1.0 - row[gi], label != gold))
            else:
                out.append(Outcome(label, row[ti], label == self.target))
        return out

    def _from_labels(self, victim, predicted, n, gold):
        name = victim_name(victim)
        predicted = list(predicted) if predicted is not None else []
        if len(predicted) != n:
            raise ValueError(f"victim {name} returned {len(predicted)} outputs for {n} inputs")
        out = []
        for p in predicted:
            if isinstance(p, (list, tuple)) or (isinstance(p, float) and math.isnan(p)):
                raise ValueError(f"victim {name} returned {p!r}, not a label")
            label = self._label(p)
            if self.known is not None and label not in self.known:
                raise ValueError(f"victim {name} returned unknown label {label!r} (labels: "
                                 f"{', '.join(map(str, self.known))})")
            met = label != gold if self.target is None else label == self.target
            out.append(Outcome(label, float(met), met))
        return out


def _floats(victim, out) -> list[float]:
    try:
        return [float(p) for p in out]
    except (TypeError, ValueError):
        raise ValueError(f"victim {victim_name(victim)} returned non-numeric scores for tc") \
            from None


class Tagging(Goal):
    """POS: with ``token`` (its index), that token's tag leaves the gold one (or becomes
    ``target``); without, the sentence's tag accuracy falls below ``max_accuracy`` (default
    0.8: at least one tag in five wrong). Tags come as labels: the score is 0/1 for a token,
    the share of wrong tags for the sentence."""

    def __init__(self, token: int | None = None, target: str | None = None,
                 max_accuracy: float = 0.8):
        self.task = get_task("pos")
        if target is not None and token is None:
            raise ValueError("a target tag needs the token it is for (token=INDEX)")
        if token is not None and (isinstance(token, bool) or not isinstance(token, int)
                                  or token < 0):
            raise ValueError(f"token must be a token index (an integer ≥ 0), got {token!r}")
        if not 0 < max_accuracy <= 1:
            raise ValueError(f"max_accuracy must be in (0, 1], got {max_accuracy!r}")
        self.token, self.target, self.max_accuracy = token, target, max_accuracy

    def check_gold(self, gold):
        if isinstance(gold, str) or not isinstance(gold, Sequence):
            raise ValueError(f"pos gold is a list of tags, got {gold!r}")
        if self.token is not None and self.token >= len(gold):
            raise ValueError(f"token {self.token} is not in a sentence of {len(gold)} tokens")
        return list(gold)

    def outcomes(self, victim, batch, gold):
        name = victim_name(victim)
        tags = victim.predict(batch)
        tags = list(tags) if tags is not None else []
        if len(tags) != len(batch):
            raise ValueError(f"victim {name} returned {len(tags)} outputs for {len(batch)} "
                             "inputs")
        out = []
        for sentence, predicted in zip(batch, tags):
            if isinstance(predicted, str) or len(predicted) != len(sentence):
                raise ValueError(f"victim {name} returned {len(predicted)} tags for a "
                                 f"{len(sentence)}-token sentence")
            predicted = [str(t) for t in predicted]
            if self.token is not None:
                tag = predicted[self.token]
                met = tag != gold[self.token] if self.target is None else tag == self.target
                out.append(Outcome(predicted, float(met), met))
            else:
                wrong = sum(a != b for a, b in zip(predicted, gold)) / max(len(gold), 1)
                out.append(Outcome(predicted, wrong, 1.0 - wrong < self.max_accuracy))
        return out


def goal_for(task: str | Task, target=None, **options) -> Goal:
    """The default goal of a task: ``Tagging`` for pos, else ``Classification``."""
    task = get_task(task)
    if task.inputs == "tokens":
        return Tagging(target=target, **options)
    return Classification(task, target, **options)


class Session:
    """One example's queries: batched, cached by text, counted, within ``budget``. ``aware``:
    the attacker also calls the defense in front of the victim (a shield, an encoding: every
    wrapper's ``seen``) freely, so a text the victim would see as one already asked costs no
    query: white-box on the defense, black-box on the model."""

    def __init__(self, goal: Goal, victim, gold, budget: float,
                 read: Callable[[list, Any], list[Outcome]], aware: bool = False):
        self.goal, self.victim, self.gold, self.budget = goal, victim, gold, budget
        self.read = read  # the goal's outcomes of the victim (`Goal.bind`)
        self.queries = 0
        self.exhausted = False  # a query was refused because the budget was spent
        self.cache: dict = {}  # text key → outcome
        self.aware = aware
        self.asked: dict = {}  # what the model was asked (aware: as it saw it) → outcome

    @property
    def left(self) -> float:
        return self.budget - self.queries

    def query(self, texts: list) -> list[tuple[Any, Outcome]]:
        """(text, outcome) for each text scored now or before, in order; texts the budget
        left no room for are dropped (and ``exhausted`` set)."""
        cache, asked = self.cache, self.asked
        fresh = [t for t in dict.fromkeys(texts) if t.key not in cache]
        keys = [t.key for t in fresh]
        if self.aware and fresh:
            keys = [tuple(x) if isinstance(x, list) else x  # token lists, hashable
                    for x in model_sees(self.victim, [t.victim_input() for t in fresh])]
        new: dict = {}  # one text per key the model is asked about
        for t, k in zip(fresh, keys):
            if k not in asked:
                new.setdefault(k, t)
        if len(new) > self.left:
            self.exhausted = True
            new = dict(list(new.items())[:max(0, int(self.left))])
        if new:
            todo = list(new.values())
            outcomes = self.read([t.victim_input() for t in todo], self.gold)
            self.queries += len(todo)
            asked.update(zip(new, outcomes))
        cache.update((t.key, asked[k]) for t, k in zip(fresh, keys) if k in asked)
        return [(t, cache[t.key]) for t in texts if t.key in cache]
