"""Deprecated: the spec grammar moved to `zeroe_assets.spec` (this module leaves in 0.3)."""
import warnings

from .spec import SPECIAL, accepted_options, available_names, get_attacker, list_attackers

warnings.warn("zeroe_assets.attackers is deprecated, import from zeroe_assets (or "
              "zeroe_assets.spec)", DeprecationWarning, stacklevel=2)

__all__ = ["SPECIAL", "accepted_options", "available_names", "get_attacker", "list_attackers"]
