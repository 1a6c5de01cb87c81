"""zeroe runtime: the Zéroe attacks (Eger & Benz 2020) over prebuilt assets.

Imports only numpy and the standard library (faiss lazily), never torch.

    >>> import zeroe_assets as z
    >>> z.attack("The quick brown fox", "inner-shuffle", level="high", seed=1)
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


def __getattr__(name: str):
    return deprecated_name(__name__, name, globals())


__all__ = ["LEVELS", "PROTOCOLS", "ArtifactError", "Chain", "Mischief", "Mix", "Perturbation",
           "ZeroePerturbation", "attack", "available_names", "get_attacker", "list_attackers",
           "load_assets"]
