"""One search attack's outcome per example (a line of ``results.jsonl``) and the defender
benchmark's metrics over many, counted as TextAttack counts them.

- Clean%: examples the victim got right before the attack (goal not already met).
- Aua% (accuracy under attack): examples still right after it (failed, budget exhausted, or
  skipped because no word could be attacked).
- Suc% = successful / (successful + failed + budget exhausted): examples already wrong and
  examples with no attackable word are skipped, not failures.
- #Query: mean victim queries over the attacked examples, failures included.
- Perturbed words and normalised character edit distance: means over successful attacks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..runs import Record

SUCCESSFUL, FAILED, SKIPPED, EXHAUSTED = "successful", "failed", "skipped", "budget exhausted"
STATUSES = (SUCCESSFUL, FAILED, SKIPPED, EXHAUSTED)
MISCLASSIFIED, NOTHING_TO_ATTACK = "goal already met", "no attackable word"


@dataclass(frozen=True)
class AttackResult(Record):
    """What one example became. ``original``/``adversarial`` are victim inputs (a text, a
    [premise, hypothesis] pair, a token list); ``before``/``after`` the victim's labels (tags
    for POS); ``words`` the attacked segments' word count, ``perturbed`` how many changed;
    ``edit_distance`` is normalised (0 = same, 1 = all different) over the attacked segments."""

    index: int
    original: Any
    adversarial: Any
    gold: Any
    before: Any
    after: Any
    status: str
    queries: int
    words: int
    perturbed: int
    edit_distance: float
    reason: str | None = None  # why an example was skipped

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")

    @property
    def perturbed_share(self) -> float:
        return self.perturbed / self.words if self.words else 0.0


def summarize(results: list[AttackResult]) -> dict:
    """The defender benchmark's metrics (percentages 0-100) and the counts behind them."""
    n = len(results)
    count = {s: sum(r.status == s for r in results) for s in STATUSES}
    misclassified = sum(r.status == SKIPPED and r.reason == MISCLASSIFIED for r in results)
    attacked = [r for r in results if r.status != SKIPPED]
    won = [r for r in results if r.status == SUCCESSFUL]

    def pct(a: int, b: int) -> float | None:
        return 100.0 * a / b if b else None

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    return {
        "examples": n,
        "counts": count,
        "skipped_misclassified": misclassified,
        "skipped_unattackable": count[SKIPPED] - misclassified,
        "clean_accuracy": pct(n - misclassified, n),
        "accuracy_under_attack": pct(n - misclassified - count[SUCCESSFUL], n),
        "success_rate": pct(count[SUCCESSFUL], len(attacked)),
        "queries": mean([r.queries for r in attacked]),
        "perturbed_words": mean([100.0 * r.perturbed_share for r in won]),
        "edit_distance": mean([r.edit_distance for r in won]),
    }
