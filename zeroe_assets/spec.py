"""Build a perturbation from a spec: a name, a chain ``a+b``, a random mix ``a|b``, per-part levels.

Grammar: ``spec := mix``; ``mix := chain ('|' chain)*``; ``chain := part ('+' part)*``;
``part := NAME [':' LEVEL]``. ``rand`` is the mix of every available perturber (those left out
are named in a warning, or an error with ``strict=True``), ``mischief``
the Mischief protocol (its ``r`` is an option). Examples: ``intrude``, ``intrude+visual``,
``intrude:low+keyboard-typo:0.3``, ``disemvowel|truncate``.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from . import registry
from .protocol import PROTOCOLS, Chain, Mix, Perturbation, ZeroePerturbation
from .validate import resolve_level
from .mischief import Mischief

SPECIAL = ("rand", "mischief")


def accepted_options(name: str) -> set[str]:
    """The options the perturber ``name`` takes (its perturber's constructor parameters)."""
    if name == "mischief":
        return {"r"}
    import inspect  # (only where options were given: `_part`)

    params = inspect.signature(registry.perturber_class(name).__init__).parameters
    return {p for p in params if p != "self"}


def _part(text: str, level, phi, protocol, options: Mapping[str, Any], used: set[str],
          strict: bool = False) -> Perturbation:
    name, sep, part_level = text.partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"empty perturber name in spec; valid names: {_valid()}")
    if sep:
        level = part_level
    if name.lower() == "rand":
        return Mix([_part(n, level, phi, protocol, options, used)
                    for n in perturbers_here("rand", strict)])
    if name.lower() == "mischief":
        if phi is not None:
            raise ValueError("mischief has no φ: it shuffles a share r of the words it attacks "
                             "(option r, default p)")
        kwargs = {k: v for k, v in options.items() if k == "r"}
        used.update(kwargs)
        return Mischief(level, **kwargs)
    canonical = registry.canonical(name)
    accepted = accepted_options(canonical) if options else ()
    kwargs = {k: v for k, v in options.items() if k in accepted}
    used.update(kwargs)
    return ZeroePerturbation(registry.get_perturber(canonical, **kwargs), level, phi, protocol)


def _valid() -> str:
    return ", ".join(registry.NAMES + SPECIAL)


def get_perturbation(spec: str | Sequence, level: float | str = "mid", phi: float | str | None = None,
                 protocol: str = "paper", strict: bool = False, **options) -> Perturbation:
    """A ``Perturbation`` for ``spec`` at word level ``level`` (low/mid/high or p ∈ [0, 1]).

    ``spec`` is a string in the grammar above or a list of names / ``(name, level)`` pairs to
    chain. ``options`` go to the perturbers that accept them (``layout=``, ``source=``,
    ``top_n=``, Mischief's ``r=`` …); an option no perturber takes is an error. ``strict``:
    ``rand`` raises ``ArtifactError`` instead of leaving out (with a warning) attackers whose
    assets are missing.
    """
    resolve_level(level)
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    used: set[str] = set()
    if isinstance(spec, str):
        if not spec.strip():
            raise ValueError(f"empty spec; valid names: {_valid()}")
        mix = []
        for chain_text in spec.split("|"):
            parts = [_part(p, level, phi, protocol, options, used, strict)
                     for p in chain_text.split("+")]
            mix.append(parts[0] if len(parts) == 1 else Chain(parts))
        attack = mix[0] if len(mix) == 1 else Mix(mix)
    elif isinstance(spec, Sequence) and spec:
        parts = []
        for item in spec:
            if isinstance(item, str):
                parts.append(_part(item, level, phi, protocol, options, used, strict))
            elif isinstance(item, Sequence) and len(item) == 2:
                parts.append(_part(f"{item[0]}:{item[1]}", level, phi, protocol, options, used,
                                   strict))
            else:
                raise ValueError(f"chain items must be names or (name, level) pairs, got {item!r}")
        attack = parts[0] if len(parts) == 1 else Chain(parts)
    else:
        raise ValueError(f"a spec must be a non-empty string or list, got {spec!r}")
    unused = set(options) - used
    if unused:
        raise ValueError(f"option(s) {', '.join(sorted(unused))} not accepted by any perturber "
                         f"in {spec!r}")
    return attack


def available_names() -> list[str]:
    """The perturbers that can be built here: their assets are present and intact."""
    return [n for n in registry.NAMES if registry.is_available(n)]


def perturbers_here(what: str, strict: bool = False) -> list[str]:
    """The available attackers, for ``what`` (``rand``, ``--perturbers all``) that means every
    one: each left out (its assets not exported, or a file of them missing, truncated or failing
    its checksum) is named with why in a warning, or (``strict``) an ``ArtifactError``."""
    from .assets import ArtifactError  # (imported where assets are looked at: `registry`)

    names = []
    for name in registry.NAMES:
        reason = registry.unavailable_reason(name, verify=True)
        if not reason:
            names.append(name)
        elif strict:
            raise ArtifactError(f"{what} needs {name}, which is not available: {reason}")
        else:
            warnings.warn(f"{what} leaves out {name}: {reason}", stacklevel=2)
    return names


def list_perturbers() -> list[dict[str, Any]]:
    """Every registered perturber: name, aliases, one-line description, assets available."""
    from .assets import ArtifactError

    out = []
    for name in registry.NAMES:
        aliases = [a for a, target in registry.ALIASES.items() if target == name]
        try:
            description = registry.perturber_class(name).description
        except ArtifactError:  # not built into this install: reported as unavailable
            description = ""
        out.append({"name": name, "aliases": aliases, "description": description,
                    "available": registry.is_available(name),
                    "assets": registry.needs_assets(name)})
    return out
