"""How far a candidate may be from the original in characters (Levenshtein, rapidfuzz)."""
from __future__ import annotations

from .base import Constraint


def levenshtein():
    """rapidfuzz's Levenshtein (imported on first use: a run-time dependency of the search)."""
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError:
        raise ValueError("edit distances need rapidfuzz: pip install rapidfuzz") from None
    return Levenshtein


def normalised_distance(a: str, b: str) -> float:
    """Levenshtein distance / the longer length: 0 the same, 1 all different."""
    return float(levenshtein().normalized_distance(a, b))


class EditDistance(Constraint):
    """At most ``normalised`` (Levenshtein / longer length) or ``absolute`` character edits
    between the attacked segments of the original and the candidate (DeepWordBug: 30)."""

    def __init__(self, normalised: float | None = None, absolute: int | None = None):
        if normalised is None and absolute is None:
            raise ValueError("EditDistance needs a normalised or an absolute maximum")
        if normalised is not None and not 0 <= normalised <= 1:
            raise ValueError(f"a normalised edit distance is in [0, 1], got {normalised!r}")
        if absolute is not None and absolute < 0:
            raise ValueError(f"an edit distance is at least 0, got {absolute!r}")
        self.normalised, self.absolute = normalised, absolute

    def filter(self, original, candidates):
        lev, base = levenshtein(), original.attacked_string()
        out = []
        for c in candidates:
            text = c.attacked_string()
            if self.absolute is not None and \
                    lev.distance(base, text, score_cutoff=self.absolute) > self.absolute:
                continue
            if self.normalised is not None and \
                    lev.normalized_distance(base, text) > self.normalised + 1e-12:
                continue
            out.append(c)
        return out

    def check(self, original, candidate):
        return bool(self.filter(original, [candidate]))

    def __repr__(self):
        return f"EditDistance(normalised={self.normalised}, absolute={self.absolute})"
