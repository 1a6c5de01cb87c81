"""Undo low-level attacks before a model sees the text: one restorer per perturbation mechanism
(mirroring `perturbers/`), a ranker that picks a reading in context, and `ShieldedVictim` to put
the shield in front of any victim. The one-call function is ``zeroe_assets.restore``.
"""
from __future__ import annotations

from pathlib import Path

from .core import Shield
from .features import MECHANISMS
from .victim import ShieldedVictim

_SHIELDS: dict[tuple, Shield] = {}


def get_shield(mechanisms=None, threshold: float | None = None, learned: bool = True,
               root=None, guess: bool = False) -> Shield:
    """A shield, built once per process and settings (restorers load their indexes once);
    ``guess``: read for an encoding behind it (`Shield`)."""
    from ..assets import default_root

    if isinstance(mechanisms, str):
        mechanisms = [m.strip() for m in mechanisms.split(",") if m.strip()]
    key = (None if mechanisms is None else tuple(mechanisms), threshold, learned,
           str(Path(root).resolve() if root else default_root().resolve()), bool(guess))
    if key not in _SHIELDS:
        _SHIELDS[key] = Shield(mechanisms, threshold, learned, root, guess=guess)
    return _SHIELDS[key]


__all__ = ["MECHANISMS", "Shield", "ShieldedVictim", "get_shield"]
