"""Hardened victims: robust encodings, the shield in front, adversarial training (``zeroe
defend``), loaded as ``defended:DIR`` wherever a victim is."""
from __future__ import annotations

from .build import add_shield, defend, parse_parts
from .encoding import UNKNOWN, RobustEncoder
from .victim import PARTS, DefendedVictim, load_defended

__all__ = ["PARTS", "UNKNOWN", "DefendedVictim", "RobustEncoder", "add_shield", "defend",
           "load_defended", "parse_parts"]
