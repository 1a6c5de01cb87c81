"""Evaluation results as typed records, with the JSON round trip of ``results.json`` and of the
paper grid's ``summary.json`` (`zeroe_assets.runs.Record`):
``Record.from_json(r.to_json()) == r``.

Optional fields (Δτ, the baseline's clean score) are left out of the JSON when unset, as the
files have always been written; reading refuses missing or unknown keys with their names.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from ..validate import resolve_level
from ..report.example import Example
from ..runs import Record, dict_of, list_of


@dataclass(frozen=True)
class SetResult(Record):
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

    _nested = {"examples": list_of(Example)}


@dataclass(frozen=True)
class Rank(Record):
    rank: int
    attacker: str
    s_star: float


@dataclass(frozen=True)
class Results(Record):
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

    _nested = {"sets": list_of(SetResult), "ranking": list_of(Rank)}

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
class Curve(Record):
    """s* at low/mid/high, ours and the paper's (Table 6 over its clean score; None: not run)."""

    ours: list[float]
    paper: list[float] | None


@dataclass(frozen=True)
class TaskSummary(Record):
    """One task of the paper grid (``benchmarks/paper_grid.py``) next to the paper's figures."""

    task: str
    victim: str
    clean_score: float
    paper_clean_score: float
    generation_seconds: float
    s_star: dict[str, Curve]
    ranking_high: list[str]
    delta_tau_high: dict[str, dict[str, float]] | None = None  # trained on α → tested on β

    _nested = {"s_star": dict_of(Curve)}


@dataclass(frozen=True)
class Summary(Record):
    """The paper grid's ``summary.json``: every task run, keyed by task (and victim)."""

    seed: int
    tasks: dict[str, TaskSummary]

    _nested = {"tasks": dict_of(TaskSummary)}
