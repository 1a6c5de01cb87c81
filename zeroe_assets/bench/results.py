"""Evaluation results as typed records, with the JSON round trip of ``results.json`` and of the
paper grid's ``summary.json``: ``Record.from_json(r.to_json()) == r``.

Optional fields (Δτ, the baseline's clean score) are left out of the JSON when unset, as the
files have always been written; reading refuses missing or unknown keys with their names.
"""
from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..protocol import resolve_level
from ..victims.wrapper import WrappedVictim


class _Record:
    """The JSON round trip shared by the records: fields in order, ``None`` optionals dropped."""

    _nested: dict[str, Any] = {}  # field name → how to read its JSON value

    def to_json(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.default is None:
                continue
            out[f.name] = _to_json(value)
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = ""):
        what = where or cls.__name__
        if not isinstance(data, dict):
            raise ValueError(f"{what}: expected a JSON object, got {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        required = [f.name for f in fields(cls) if f.default is MISSING]
        missing = [n for n in required if n not in data]
        unknown = sorted(set(data) - names)
        if missing or unknown:
            raise ValueError(f"{what}: not a {cls.__name__} record ("
                             + "; ".join(filter(None, [
                                 missing and "missing " + ", ".join(missing),
                                 unknown and "unknown " + ", ".join(unknown)])) + ")")
        return cls(**{k: cls._nested[k](v, f"{what}.{k}") if k in cls._nested and v is not None
                      else v for k, v in data.items()})


def _to_json(value):
    if isinstance(value, _Record):
        return value.to_json()
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


def _list_of(cls):
    def read(data, where):
        if not isinstance(data, list):
            raise ValueError(f"{where}: expected a list")
        return [cls.from_json(item, f"{where}[{i}]") for i, item in enumerate(data)]
    return read


def _dict_of(cls):
    def read(data, where):
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object")
        return {k: cls.from_json(v, f"{where}.{k}") for k, v in data.items()}
    return read


def _plain(value):
    """Tuples as lists and numpy values as Python's, as they read back from JSON (so that
    records round-trip equal)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Example(_Record):
    """One example for the report: the victim's input clean and attacked, the attacked one as a
    shielded victim saw it (``restored``; None: no shield), gold and the two predictions."""

    index: int
    original: Any
    attacked: Any
    gold: Any
    before: Any
    after: Any
    restored: Any = None

    @classmethod
    def of(cls, victim, index: int, original, attacked, gold, before, after) -> "Example":
        """The example, with the attacked input as ``victim`` saw it when it is a wrapper that
        rewrites its inputs (a `ShieldedVictim`: restored by the shield)."""
        restored = victim.seen([attacked])[0] \
            if isinstance(victim, WrappedVictim) and victim.rewrites else None
        return cls(index, *map(_plain, (original, attacked, gold, before, after, restored)))


@dataclass(frozen=True)
class SetResult(_Record):
    """The victim on one perturbed set: s(p), s*(p) = s(p)/s(0), amount of perturbation, Δτ,
    and a few of its examples."""

    attacker: str
    level: str
    p: float
    score: float
    s_star: float
    edit_distance: float
    file: str
    delta_tau: float | None = None
    examples: list[Example] | None = None

    _nested = {"examples": _list_of(Example)}


@dataclass(frozen=True)
class Rank(_Record):
    rank: int
    attacker: str
    s_star: float


@dataclass(frozen=True)
class Results(_Record):
    """Every number of one victim on one task's sets (``results.json``)."""

    task: str
    victim: str
    split: str
    clean_file: str
    examples: int
    clean_score: float
    chance: float
    metric: str
    sets: list[SetResult]
    ranking_level: str
    ranking: list[Rank]
    seconds: float
    baseline_clean_score: float | None = None
    clean_delta: float | None = None

    _nested = {"sets": _list_of(SetResult), "ranking": _list_of(Rank)}

    @classmethod
    def load(cls, path: Path) -> "Results":
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"cannot read results {path}: {e}") from None
        return cls.from_json(data, str(path))


def levels_by_p(rows: list[SetResult]) -> list[str]:
    """The levels of ``rows``, named and numeric on one axis, by p."""
    return sorted(dict.fromkeys(r.level for r in rows), key=resolve_level)


def ranking_level(rows: list[SetResult]) -> str:
    """``high``, as in the paper's Table 5, or the highest level a custom curve has."""
    levels = levels_by_p(rows)
    return "high" if "high" in levels else levels[-1]


def ranking(rows: list[SetResult], level: str | None = None) -> list[Rank]:
    """Attackers from most to least damaging at ``level`` (default ``ranking_level``; Table 5)."""
    level = level or ranking_level(rows)
    at = [r for r in rows if r.level == level]
    return [Rank(i, r.attacker, r.s_star)
            for i, r in enumerate(sorted(at, key=lambda r: r.s_star), 1)]


def add_delta_tau(results: Results, baseline: Results) -> Results:
    """``results`` with Δτ(p) = σ(p)/s(0) − s*(p) for every (attacker, level) both have, s(0)
    and s*(p) being the clean-trained ``baseline``'s."""
    s0 = baseline.clean_score
    base = {(r.attacker, r.level): r for r in baseline.sets}
    sets = [replace(row, delta_tau=row.score / s0 - base[row.attacker, row.level].s_star)
            if (row.attacker, row.level) in base else row for row in results.sets]
    return replace(results, sets=sets, baseline_clean_score=s0,
                   clean_delta=results.clean_score / s0 - 1.0)


@dataclass(frozen=True)
class Curve(_Record):
    """s* at low/mid/high, ours and the paper's (Table 6 over its clean score; None: not run)."""

    ours: list[float]
    paper: list[float] | None


@dataclass(frozen=True)
class TaskSummary(_Record):
    """One task of the paper grid (``benchmarks/paper_grid.py``) next to the paper's figures."""

    task: str
    victim: str
    clean_score: float
    paper_clean_score: float
    generation_seconds: float
    s_star: dict[str, Curve]
    ranking_high: list[str]
    delta_tau_high: dict[str, dict[str, float]] | None = None  # trained on α → tested on β

    _nested = {"s_star": _dict_of(Curve)}


@dataclass(frozen=True)
class Summary(_Record):
    """The paper grid's ``summary.json``: every task run, keyed by task (and victim)."""

    seed: int
    tasks: dict[str, TaskSummary]

    _nested = {"tasks": _dict_of(TaskSummary)}
