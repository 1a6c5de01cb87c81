"""Undo low-level attacks before a model sees the text: one restorer per perturbation mechanism
(mirroring `perturbers/`), a ranker that picks a reading in context, and `ShieldedVictim` to put
the shield in front of any victim."""
from __future__ import annotations

from .core import Shield
from .features import MECHANISMS

_SHIELDS: dict[tuple, Shield] = {}


def get_shield(mechanisms=None, threshold: float | None = None, learned: bool = True,
               root=None) -> Shield:
    """A shield, built once per process and settings (restorers load their indexes once)."""
    key = (None if mechanisms is None else tuple(mechanisms), threshold, learned,
           None if root is None else str(root))
    if key not in _SHIELDS:
        _SHIELDS[key] = Shield(mechanisms, threshold, learned, root)
    return _SHIELDS[key]


__all__ = ["MECHANISMS", "Shield", "get_shield"]
