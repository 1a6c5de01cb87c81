"""The constraint base class: a pre-transformation test per word and a check per candidate."""
from __future__ import annotations

from collections.abc import Sequence


class Constraint:
    """Base class; both tests pass by default, so a subclass overrides the one it needs."""

    name = ""

    def allows(self, text, position: int) -> bool:
        """Whether the word at ``position`` of ``text`` may be changed at all."""
        return True

    def check(self, original, candidate) -> bool:
        """Whether ``candidate`` (a change of ``original``'s text) is acceptable."""
        return True

    def filter(self, original, candidates: list) -> list:
        """The acceptable ``candidates``, in order (batch-minded constraints override this)."""
        check = self.check
        return [c for c in candidates if check(original, c)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def check_all(constraints: Sequence[Constraint], original, candidates: list) -> list:
    """The candidates every constraint accepts, cheapest filters first as given."""
    for constraint in constraints:
        if not candidates:
            break
        candidates = constraint.filter(original, candidates)
    return candidates
