"""One example as the reports show it (``results.json`` of ``bench evaluate``, the pages of
``bench evaluate`` and ``zeroe search``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..runs import Record
from ..victims.wrapper import WrappedVictim


def _plain(value):
    """Tuples as lists and numpy values as Python's, as they read back from JSON (so that
    records round-trip equal)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Example(Record):
    """One example for the report: the victim's input clean and attacked, the attacked one as a
    shielded victim saw it (``restored``; None: no shield), gold and the two predictions."""

    index: int
    original: Any
    attacked: Any
    gold: Any
    before: Any
    after: Any
    restored: Any = None

    @classmethod
    def of(cls, victim, index: int, original, attacked, gold, before, after) -> "Example":
        """The example, with the attacked input as ``victim`` saw it when it is a wrapper that
        rewrites its inputs (a `ShieldedVictim`: restored by the shield)."""
        restored = victim.seen([attacked])[0] \
            if isinstance(victim, WrappedVictim) and victim.rewrites else None
        return cls(index, *map(_plain, (original, attacked, gold, before, after, restored)))
