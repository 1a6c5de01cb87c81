"""zeroe runtime: the Zéroe attacks (Eger & Benz 2020) over prebuilt assets.

Imports only numpy and the standard library (faiss lazily), never torch.

    >>> import zeroe_assets as z
    >>> z.attack("The quick brown fox", "inner-shuffle", level="high", seed=1)
    >>> z.restore("Teh qiuck b r o w n fox")  # undo low-level attacks (zeroe_assets.shield)
"""
from __future__ import annotations

from .assets import ArtifactError, load_component as load_assets
from .protocol import (LEVELS, PROTOCOLS, Chain, Mix, Perturbation, ZeroePerturbation,
                       deprecated_name)
from .recipes import Mischief
from .rng import Seed
from .spec import available_names, get_attacker, list_attackers

__version__ = "0.1.0"


def attack(text, attacker, level: float | str = "mid", seed: Seed = None,
           phi: float | str | None = None, protocol: str = "paper", **options):
    """Perturb a string or a list of strings with ``attacker`` (a name, spec or
    ``Perturbation``) under the random Zéroe protocol."""
    if not isinstance(attacker, Perturbation):
        attacker = get_attacker(attacker, level=level, phi=phi, protocol=protocol, **options)
    return attacker(text, seed=seed)


def get_shield(mechanisms=None, threshold: float | None = None, learned: bool = True, root=None):
    """The shield with these settings, built once per process (`zeroe_assets.shield.get_shield`,
    imported on first use so that ``import zeroe_assets`` stays cheap)."""
    from .shield import get_shield as build

    return build(mechanisms, threshold, learned, root)


def restore(text, mechanisms=None, threshold: float | None = None, learned: bool = True):
    """Undo low-level attacks on a string or a list of strings: ``mechanisms`` (default all of
    `zeroe_assets.shield.MECHANISMS`), the ranker probability a change needs (``threshold``,
    default the ranker's), ``learned``: the exported ranker if there is one."""
    return get_shield(mechanisms, threshold, learned)(text)


def __getattr__(name: str):
    return deprecated_name(__name__, name, globals())


__all__ = ["LEVELS", "PROTOCOLS", "ArtifactError", "Chain", "Mischief", "Mix", "Perturbation",
           "ZeroePerturbation", "attack", "available_names", "get_attacker", "get_shield",
           "list_attackers", "load_assets", "restore"]
