"""Perturber names (paper §3.2) and the reference code's aliases → perturber classes.

Classes are imported on first use so that listing attackers stays cheap and a perturber whose
assets are missing fails only when asked for, with a message saying how to build them.
"""
from __future__ import annotations

import importlib
import typing
from pathlib import Path

from .perturbers.base import Perturber

# `zeroe_assets.assets` is imported where a perturber needs assets or something failed: the
# rule-based ones never do, and the store's imports were a third of `zeroe perturb`'s start-up

# name -> (module, class, asset component it needs or None)
_ENTRIES: dict[str, tuple[str, str, str | None]] = {
    "inner-shuffle": ("shuffle", "InnerShufflePerturber", None),
    "full-shuffle": ("shuffle", "FullShufflePerturber", None),
    "intrude": ("intrude", "IntrudePerturber", None),
    "disemvowel": ("disemvowel", "DisemvowelPerturber", None),
    "truncate": ("truncate", "TruncatePerturber", None),
    "segment": ("segment", "SegmentPerturber", None),
    "keyboard-typo": ("keyboard", "KeyboardPerturber", None),
    "natural-typo": ("natural", "NaturalPerturber", None),
    "phonetic": ("phonetic", "PhoneticPerturber", "phonetic"),
    "visual": ("visual", "VisualPerturber", "visual"),
}
ALIASES = {"inner-swap": "inner-shuffle", "full-swap": "full-shuffle", "viper": "visual"}

NAMES = tuple(_ENTRIES)


def canonical(name: str) -> str:
    """Resolve an alias; unknown names get a ``ValueError`` listing the valid ones."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in _ENTRIES:
        raise ValueError(f"unknown perturber {name!r}; choose from {', '.join(NAMES)} "
                         f"(aliases: {', '.join(f'{a}={b}' for a, b in ALIASES.items())})")
    return key


def perturber_class(name: str) -> type[Perturber]:
    module, cls, _ = _ENTRIES[canonical(name)]
    try:
        mod = importlib.import_module(f"{__package__}.perturbers.{module}")
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.perturbers.{module}":
            raise
        from .assets import ArtifactError, rebuild_hint

        component = _ENTRIES[canonical(name)][2]
        hint = rebuild_hint(component) if component else ""
        raise ArtifactError(f"the {name!r} perturber is not part of this install; {hint}") from e
    return getattr(mod, cls)


def needs_assets(name: str) -> str | None:
    return _ENTRIES[canonical(name)][2]


def is_available(name: str) -> bool:
    """True when the perturber can be built here: its assets, if any, are present and intact."""
    return not unavailable_reason(name, verify=True)


def unavailable_reason(name: str, verify: bool = False) -> str:
    """Why the perturber cannot be built here, "" if it can: its assets are not in the manifest,
    its module is not part of this install, or (checked only if ``verify``: that builds it, which
    loads its assets once per process) one of its asset files is missing, truncated or fails its
    checksum, named in the reason. A manifest that cannot be read is an error, not a reason."""
    from .assets import ArtifactError, component_available, default_root
    from .assets.store import missing

    component = needs_assets(name)
    if component is not None and not component_available(component):
        return missing(component, default_root())
    try:
        perturber_class(name)
        if component is not None and verify:
            get_perturber(name)
    except ArtifactError as e:
        return str(e)
    return ""


def get_perturber(name: str, **options) -> Perturber:
    """Build the perturber registered under ``name`` (or an alias) with its options.

    Asset-backed perturbers read the default artifact root (``$ZEROE_ARTIFACTS``); a missing
    component is reported with the command that builds it.
    """
    component = needs_assets(name)
    if component is not None and "root" not in options:
        from .assets import ArtifactError, component_available, default_root
        from .assets.store import missing

        if not component_available(component):
            raise ArtifactError(f"the {canonical(name)!r} perturber needs the '{component}' "
                                f"assets: {missing(component, default_root())}")
    cls = perturber_class(name)
    hints = typing.get_type_hints(cls.__init__)
    return cls(**{k: from_text(k, v, hints[k]) if k in hints else v for k, v in options.items()})


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def from_text(key: str, value, annotation):
    """An option given as text (``zeroe perturb -o top_n=10``) in the type its parameter is
    annotated with (``int``, ``int | None``, …); text stays text where the parameter takes a
    string or a path."""
    kinds = set(typing.get_args(annotation)) or {annotation}
    if not isinstance(value, str) or kinds & {str, Path}:
        return value
    text = value.strip().lower()
    if bool in kinds and text in _TRUE + _FALSE:
        return text in _TRUE
    for kind in (int, float):
        if kind in kinds:
            try:
                return kind(text)
            except ValueError:
                pass
    wanted = " or ".join(sorted(k.__name__ for k in kinds if k is not type(None)))
    raise ValueError(f"option {key} must be {wanted}, got {value!r}")
