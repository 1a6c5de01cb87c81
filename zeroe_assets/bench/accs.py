"""The constraint robustness curve and ACCS (Morris et al. 2020, §3).

For each threshold ε of a constraint, x(ε) is the second-order success rate (attacks that fool
the constraint itself) and y(ε) the first-order success rate (attacks on a victim with the
constraint at ε). The curve is y over x with (0, 0) added; ACCS is the area under it (trapezoids
over the points sorted by x, then y) divided by max x · max y, so that a constraint that lets
first-order examples through long before second-order ones scores near 1, and one that lets
both through at the same thresholds (y ∝ x) scores 0.5.
"""
from __future__ import annotations

from collections.abc import Iterable


def curve(points: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The curve's points: ``(x, y)`` pairs with (0, 0) added, sorted by x then y."""
    out = [(float(x), float(y)) for x, y in points]
    if any(not (0 <= v <= 1) for p in out for v in p):
        raise ValueError(f"success rates are in [0, 1], got {out}")
    return sorted(set(out) | {(0.0, 0.0)})


def area(points: Iterable[tuple[float, float]]) -> float:
    """The area under the curve through ``points`` (with (0, 0)), by trapezoids."""
    pts = curve(points)
    return sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in zip(pts, pts[1:]))


def accs(points: Iterable[tuple[float, float]]) -> float | None:
    """ACCS: the area under the curve over max x · max y; None where no threshold found a
    second-order or no first-order example (the ratio is 0/0: nothing to compare)."""
    pts = curve(points)
    top_x, top_y = max(x for x, _ in pts), max(y for _, y in pts)
    if top_x == 0 or top_y == 0:
        return None
    return area(pts) / (top_x * top_y)
