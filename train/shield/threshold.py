"""What a ranker does to held-out tokens, as the runtime shield decides (``Ranker.choose``, then
the threshold), the threshold that keeps clean words clean, and the figures reported."""
from __future__ import annotations

import numpy as np

from zeroe_assets.shield.ranker import Ranker


def decide(ranker: Ranker, rows: np.ndarray, offsets: np.ndarray,
           ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each token of ``ids``: the best reading and its probability."""
    chosen = [ranker.choose(rows[offsets[t]:offsets[t + 1]]) for t in ids]
    return (np.array([b for b, _ in chosen], dtype=np.int64),
            np.array([p for _, p in chosen], dtype=np.float64))


def applied(best: np.ndarray, prob: np.ndarray, threshold: float) -> np.ndarray:
    """The reading the shield writes: the best one if it is sure enough, else the word (0)."""
    return np.where((best != 0) & (prob >= threshold), best, 0)


def pick_threshold(best: np.ndarray, prob: np.ndarray, gold: np.ndarray,
                   max_clean_changed: float) -> tuple[float, bool]:
    """The threshold with the best token accuracy among those that change at most
    ``max_clean_changed`` of the tokens whose gold reading is the word itself (the highest such
    threshold on ties), and whether any met that bound (if none did: the strictest threshold).

    Lowering the threshold to the next probability among the proposed changes adds them: each
    makes a clean token wrong, or a perturbed token right when it is its gold reading."""
    clean = gold == 0
    proposed = np.flatnonzero(best != 0)
    order = proposed[np.argsort(-prob[proposed], kind="stable")]
    values = prob[order]
    ends = np.flatnonzero(np.append(values[1:] != values[:-1], True))  # the last of each tie
    thresholds = values[ends]
    clean_changed = np.cumsum(clean[order])[ends]
    gain = np.cumsum(best[order] == gold[order])[ends] - clean_changed
    if not len(values) or values[0] < 1.0:  # a threshold of 1 then changes nothing
        thresholds, clean_changed, gain = (np.r_[1.0, thresholds], np.r_[0, clean_changed],
                                           np.r_[0, gain])
    allowed = clean_changed <= max_clean_changed * clean.sum()
    if not allowed.any():
        return float(thresholds[0]), False
    pick = np.flatnonzero(allowed & (gain == gain[allowed].max()))[0]
    return float(thresholds[pick]), True


def _share(hits: np.ndarray) -> float | None:
    return round(float(hits.mean()), 5) if len(hits) else None


def figures(best: np.ndarray, prob: np.ndarray, threshold: float, tokens: dict) -> dict:
    """Accuracy on all, perturbed (gold ≠ the word) and clean tokens, the share of clean tokens
    changed, per attack (chains of two together) and per mechanism that proposed the gold
    reading. ``tokens``: `ShieldRows.tokens`."""
    gold, attack, mechanism = tokens["gold"], tokens["attack"], tokens["mechanism"]
    out = applied(best, prob, threshold)
    right, clean = out == gold, gold == 0
    result = {"threshold": float(threshold), "tokens": len(gold),  # exact: it is exported
              "perturbed_tokens": int((~clean).sum()), "accuracy": _share(right),
              "perturbed_accuracy": _share(right[~clean]),
              "clean_changed": _share(out[clean] != 0), "by_attack": {}, "by_mechanism": {}}
    group = np.array(["chain of two" if "+" in a else a for a in attack])
    for name in sorted(set(group)):
        here = group == name
        result["by_attack"][name] = {"perturbed_tokens": int((here & ~clean).sum()),
                                     "perturbed_accuracy": _share(right[here & ~clean]),
                                     "clean_changed": _share(out[here & clean] != 0)}
    proposers = [set(m.split(",")) if m else set() for m in mechanism]
    for name in sorted(set().union(*proposers)):
        here = np.array([name in p for p in proposers])
        result["by_mechanism"][name] = {"tokens": int(here.sum()), "accuracy": _share(right[here])}
    return result
