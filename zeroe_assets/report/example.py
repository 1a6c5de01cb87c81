"""One example as the reports show it (``results.json`` of ``bench evaluate``, the pages of
``bench evaluate`` and ``zeroe attack``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..runs import Record


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
        """The example, restored by ``victim``'s shield when it has one: a victim with
        ``restore`` (a `ShieldedVictim`), as a victim with ``scores`` gives scores."""
        restore = getattr(victim, "restore", None)
        restored = restore([attacked])[0] if restore is not None else None
        return cls(index, *map(_plain, (original, attacked, gold, before, after, restored)))
