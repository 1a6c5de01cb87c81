"""Checks of the values users pass (counts, levels): one message form for each, raised as
``ValueError`` naming the parameter, so every command and function refuses bad input alike."""
from __future__ import annotations

import math
import numbers
import operator

LEVELS = {"low": 0.2, "mid": 0.5, "high": 0.8}


def check_int(name: str, value, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int if it is a whole number (not a bool) in [low, high], else a ValueError
    naming ``name``: the one check for every count a user passes."""
    try:
        number = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        number = None
    if number is None or number < low or (high is not None and number > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ValueError(f"{name} must be an integer {bounds}, got {value!r}")
    return number


SEED_MAX = (1 << 64) - 1  # seeds are 64-bit: a larger or negative one would wrap onto another


def check_seed(value) -> int:
    """An int seed in [0, 2^64 − 1] (``--seed -1`` is refused, not read as 2^64 − 1)."""
    return check_int("seed", value, 0, SEED_MAX)


def resolve_level(level: float | str, what: str = "level") -> float:
    """``low``/``mid``/``high`` or a number in [0, 1]."""
    if isinstance(level, str):
        key = level.strip().lower()
        if key in LEVELS:
            return LEVELS[key]
        try:
            value = float(key)
        except ValueError:
            raise ValueError(f"{what} must be one of {', '.join(LEVELS)} or a number in [0, 1], "
                             f"got {level!r}") from None
    elif isinstance(level, numbers.Real) and not isinstance(level, bool):
        value = float(level)
    else:
        raise ValueError(f"{what} must be one of {', '.join(LEVELS)} or a number in [0, 1], "
                         f"got {level!r}")
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise ValueError(f"{what} must be in [0, 1], got {level!r}")
    return value


class NeedsExtra(ImportError, ValueError):
    """What needs an optional package that is not installed: an ``ImportError`` (callers that
    can do without catch that) and a ``ValueError`` (the CLI prints it as its one-line usage
    error, exit 2, instead of a traceback)."""


class NeedsTorch(NeedsExtra):
    """What needs PyTorch where it is not installed (the phonetic perturber's OOV path does
    without it)."""


def require_torch(what: str):
    """The ``torch`` module, or `NeedsTorch` saying that ``what`` needs it and how to install
    it: the one message for every part that runs a torch model."""
    try:
        import torch
    except ImportError as e:
        raise NeedsTorch(f"{what} needs PyTorch, which is not installed here ({e}): "
                         "`pip install torch==2.13.0` (the CPU build), then "
                         "`pip install 'zeroe[train]'`") from None
    return torch
