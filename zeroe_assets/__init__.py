"""zeroe runtime: the Zéroe attacks (Eger & Benz 2020) over prebuilt assets.

Imports only numpy and the standard library (faiss lazily), never torch.

    >>> import zeroe_assets as z
    >>> z.attack("The quick brown fox", "inner-shuffle", level="high", seed=1)
"""
from __future__ import annotations

from .assets import ArtifactError, load_component as load_assets
from .attackers import available_names, get_attacker, list_attackers
from .protocol import LEVELS, PROTOCOLS, Attack, Attacker, Chain, Mischief, Mix, Seed

__version__ = "0.1.0"


def attack(text, attacker, level: float | str = "mid", seed: Seed = None,
           phi: float | str | None = None, protocol: str = "paper", **options):
    """Attack a string or a list of strings with ``attacker`` (a name, spec or ``Attack``)."""
    if not isinstance(attacker, Attack):
        attacker = get_attacker(attacker, level=level, phi=phi, protocol=protocol, **options)
    return attacker(text, seed=seed)


__all__ = ["LEVELS", "PROTOCOLS", "Attack", "Attacker", "ArtifactError", "Chain", "Mischief",
           "Mix", "attack", "available_names", "get_attacker", "list_attackers", "load_assets"]
