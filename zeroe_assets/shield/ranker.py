"""How candidates are ranked: a log-linear model over `features.FEATURES` (softmax over a token's
readings), learned by ``python -m train.shield`` and exported as the ``shield`` component
(``ranker.json``: feature names, weights, threshold and the figures measured at export; no
pickle). Without it the shield uses the hand-set weights below and says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..assets import ArtifactError, component_available, json_bytes, load_component, \
    rebuild_hint, write_component
from .features import FEATURES

COMPONENT = "shield"
THRESHOLD = 0.5  # a reading replaces the token only when the ranker gives it at least this

# a first guess, used until a learned ranker is exported: keep known words, prefer frequent
# dictionary words close to the token, trust the mechanisms that rarely misfire
HAND_SET = {"keep_known": 3.0, "keep_logfreq": 2.0, "keep_capital": 1.5, "keep_nonascii": -3.0,
            "keep_digit": 1.0, "keep_accented": 6.0, "keep_mixed_case": -2.0, "known": 2.0,
            "channel": 2.0, "logfreq": 3.0, "edit": -3.0, "proposers": 0.5, "left": 1.0,
            "right": 1.0, "left_seen": 0.3, "right_seen": 0.3, "by_any": 2.0, "line_any": 1.5,
            "posterior": 1.0, "exact": 0.5, "top_freq": 0.3, "rel_anagram": 1.0,
            "line_rel_anagram": 1.0, "rel_dropped": 0.5, "line_rel_dropped": 1.0,
            "rel_consonants": 0.5, "rel_sound": 0.5}


@dataclass(frozen=True)
class Ranker:
    weights: np.ndarray  # one per feature, in `FEATURES` order
    threshold: float = THRESHOLD
    learned: bool = False
    meta: dict | None = None

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """The softmax over the token's readings (row 0: keep the token)."""
        scores = rows @ self.weights
        scores = np.exp(scores - scores.max())
        return scores / scores.sum()

    def choose(self, rows: np.ndarray) -> tuple[int, float]:
        """The best reading's row and its probability among the token's readings."""
        probs = self.probabilities(rows)
        best = int(probs.argmax())
        return best, float(probs[best])


def hand_set_ranker(threshold: float = THRESHOLD) -> Ranker:
    return Ranker(np.array([HAND_SET.get(f, 0.0) for f in FEATURES], dtype=np.float32),
                  threshold, learned=False)


def write_ranker(weights, threshold: float, meta: dict, root: Path | None = None) -> None:
    """Export a learned ranker as the ``shield`` component (atomic, checksummed)."""
    weights = [float(w) for w in np.asarray(weights, dtype=np.float64).ravel()]
    if len(weights) != len(FEATURES):
        raise ValueError(f"{len(weights)} weights for {len(FEATURES)} features")
    body = {"features": list(FEATURES), "weights": weights, "threshold": float(threshold)}
    write_component(COMPONENT, {"ranker.json": json_bytes(body)}, meta, root)


def load_ranker(root: Path | None = None) -> Ranker | None:
    """The learned ranker, or None when none was exported; a corrupt or stale one is an error
    naming the file and the command that rebuilds it."""
    if not component_available(COMPONENT, root):
        return None
    component = load_component(COMPONENT, root)
    try:
        body = component.load_json("ranker.json")
    except ValueError as e:
        raise ArtifactError(f"{component.file('ranker.json')} is not valid JSON ({e}); "
                            f"{rebuild_hint(COMPONENT)}") from None
    if not isinstance(body, dict) or body.get("features") != list(FEATURES) \
            or len(body.get("weights", ())) != len(FEATURES):
        raise ArtifactError(f"{component.file('ranker.json')}: its features do not match this "
                            f"version's; {rebuild_hint(COMPONENT)}")
    return Ranker(np.array(body["weights"], dtype=np.float32), float(body["threshold"]),
                  learned=True, meta=dict(component.meta))
