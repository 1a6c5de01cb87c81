"""Loaded components kept for the life of the process, so that every perturber (and every forked
worker) shares one copy, and an export that replaces a component is picked up on the next load."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, TypeVar

from .store import default_root, load_component, read_manifest

T = TypeVar("T")
_LOADED: dict[tuple, object] = {}


def cached_component(component: str, root: Path | str | None, build: Callable[[Path], T],
                     part: str = "") -> T:
    """``build(root)`` for ``component`` under ``root`` (default: ``default_root()``), built once
    per process and manifest entry: a new export of the component builds it again. ``part``
    names what ``build`` makes when one component serves several (the phonetic table, its
    sound index)."""
    root = Path(root) if root else default_root()
    entry = read_manifest(root)["components"].get(component)
    if not isinstance(entry, dict):
        load_component(component, root)  # raises, saying what is missing and how to rebuild it
    key = (component, part, root.resolve(), entry.get("created", ""), repr(entry.get("files")))
    if key not in _LOADED:
        _LOADED[key] = build(root)
    return _LOADED[key]  # type: ignore[return-value]
