"""Per-position Bernoulli(φ) choices conditioned on at least one success (intrude, keyboard)."""
from __future__ import annotations

import math
import random


def at_least_one(n: int, phi: float, rng: random.Random) -> list[int]:
    """Sorted positions in ``range(n)``, each chosen with probability φ, given ≥ 1 is chosen.

    Plain Bernoulli draws are kept when some position came up (that is already a draw from the
    conditional law); otherwise a fresh conditional draw is made without rejection: the first
    chosen position j has probability ∝ (1-φ)^j φ, later ones are independent Bernoulli(φ).
    At φ = 0 (the limit) one uniform position is chosen, so this terminates for every φ.
    """
    if n <= 0:
        return []
    if phi <= 0.0:
        return [int(rng.random() * n)]
    if phi >= 1.0:
        return list(range(n))
    rand = rng.random
    chosen = [j for j in range(n) if rand() < phi]
    return chosen or none_came_up(n, phi, rng)


def none_came_up(n: int, phi: float, rng: random.Random) -> list[int]:
    """``at_least_one(n, phi, rng)`` after its Bernoulli draws all failed (0 < φ < 1, n ≥ 1):
    its conditional draw. A caller that made those draws itself (inline, a call less per
    word) continues here."""
    rand = rng.random
    q = 1.0 - phi
    # inverse CDF of the truncated geometric: P(first ≤ j) = (1 - q^(j+1)) / (1 - q^n)
    # 1 - q^n, computed so that it does not round to 0 for a tiny φ
    u = rng.random() * -math.expm1(n * math.log1p(-phi))
    first, cum = 0, phi
    while cum < u and first < n - 1:
        first += 1
        cum += phi * q ** first
    rest = [j for j in range(first + 1, n) if rand() < phi]
    return [first, *rest]
