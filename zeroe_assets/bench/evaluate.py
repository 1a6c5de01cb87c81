"""``zeroe bench evaluate``: a victim on the clean and every perturbed test set (paper §4.2–4.3).

s(p) is the victim's score on a set attacked at level p, s*(p) = s(p)/s(0) (eq. 1). For an
adversarially trained victim with scores σ(p), Δτ(p) = σ(p)/s(0) − s*(p) (eq. 2), where s(0) and
s*(p) are the clean-trained baseline's. The amount of perturbation of a set is the mean normalised
character edit distance between clean and attacked texts (paper Fig. 5, rapidfuzz's Levenshtein).
"""
from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from ..protocol import resolve_level
from .generate import SIDECAR
from .tasks import chance, examples, format_for, score
from .victims import check_victim_task


def find_sets(data_dir: Path, split: str | None = None) -> tuple[str, Path, list[dict]]:
    """The split, its clean input and its grid sets (attacker, level, path) from the sidecars."""
    sets = defaultdict(list)
    for side in sorted(Path(data_dir).glob(f"*{SIDECAR}")):
        try:
            params = json.loads(side.read_text(encoding="utf-8"))["params"]
            # sidecars older than the mode field: a one-entry mixture was a grid set
            mode = params.get("mode", "grid" if len(params["mixture"]) == 1 else "mixture")
            if mode != "grid":
                continue  # 1-1 and LOO mixtures are training data, not test sets
            [(attacker, level)] = params["mixture"]
            sets[params["split"]].append({
                "attacker": attacker, "level": level, "path": Path(str(side)[: -len(SIDECAR)]),
                "clean": Path(params["input"]), "fields": params["fields"]})
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"{side}: corrupt sidecar ({type(e).__name__}: {e}); delete it and "
                             "rerun `zeroe bench generate`") from None
    if not sets:
        raise ValueError(f"no perturbed test sets (grid-mode *{SIDECAR} sidecars) in {data_dir}; "
                         "run `zeroe bench generate` first")
    if split is None:
        if len(sets) > 1 and "test" not in sets:
            raise ValueError(f"several splits in {data_dir} ({', '.join(sets)}); pick one with "
                             "--split")
        split = "test" if "test" in sets else next(iter(sets))
    if split not in sets:
        raise ValueError(f"no sets for split {split!r} in {data_dir} (have {', '.join(sets)})")
    clean = sets[split][0]["clean"]
    return split, clean, sets[split]


def _predict(victim, inputs: list, batch_size: int) -> list:
    out = []
    for i in range(0, len(inputs), batch_size):
        out.extend(victim.predict(inputs[i:i + batch_size]))
    return out


def _edit_distance(clean: list[list[str]], attacked: list[list[str]]) -> float:
    from rapidfuzz.distance import Levenshtein

    pairs = [(a, b) for ca, cb in zip(clean, attacked) for a, b in zip(ca, cb)]
    return sum(Levenshtein.normalized_distance(a, b) for a, b in pairs) / max(1, len(pairs))


def evaluate(task: str, victim, data_dir: Path, split: str | None = None,
             clean: Path | None = None, batch_size: int = 256, victim_name: str = "",
             baseline: dict | None = None, progress=sys.stderr) -> dict:
    """Every number of one victim on one task's sets; with ``baseline`` (the clean-trained
    victim's results on the same sets) also Δτ."""
    if batch_size < 1:
        raise ValueError(f"batch size must be >= 1, got {batch_size}")
    check_victim_task(getattr(victim, "task", None), task, victim_name or type(victim).__name__)
    split, recorded_clean, sets = find_sets(data_dir, split)
    clean = Path(clean) if clean else recorded_clean
    if not clean.is_file():
        raise ValueError(f"clean test set {clean} not found; pass --clean PATH")
    fields = sets[0]["fields"] or None
    fmt = format_for(task, clean, fields)
    start = time.perf_counter()
    base = examples(task, clean, fmt)
    s0 = score(task, base.gold, _predict(victim, base.inputs, batch_size))
    if s0 <= 0:
        raise ValueError(f"the victim scores {s0} on the clean set {clean}: s* = s(p)/s(0) is "
                         "undefined")
    rows = []
    sets.sort(key=lambda r: (r["attacker"], resolve_level(r["level"])))
    for i, item in enumerate(sets, 1):
        ex = examples(task, item["path"], fmt)
        if len(ex.gold) != len(base.gold):
            raise ValueError(f"{item['path']} has {len(ex.gold)} examples, the clean set "
                             f"{len(base.gold)}: not generated from {clean}?")
        s = score(task, ex.gold, _predict(victim, ex.inputs, batch_size))
        row = {"attacker": item["attacker"], "level": item["level"],
               "p": resolve_level(item["level"]), "score": s, "s_star": s / s0,
               "edit_distance": _edit_distance(base.texts, ex.texts), "file": item["path"].name}
        rows.append(row)
        if progress is not None:
            print(f"[{i}/{len(sets)}] {row['file']}: s = {s:.4f}, s* = {row['s_star']:.3f}",
                  file=progress, flush=True)
    at = ranking_level(rows)
    results = {"task": task, "victim": victim_name, "split": split, "clean_file": str(clean),
               "examples": len(base.gold), "clean_score": s0, "chance": chance(task, base.gold),
               "metric": {"pos": "accuracy", "nli": "accuracy", "tc": "roc_auc",
                          "generic": "accuracy"}[task],
               "sets": rows, "ranking_level": at, "ranking": ranking(rows, at),
               "seconds": time.perf_counter() - start}
    if baseline is not None:
        add_delta_tau(results, baseline)
    return results


def levels_by_p(rows: list[dict]) -> list[str]:
    """The levels of ``rows``, named and numeric on one axis, by p."""
    return sorted(dict.fromkeys(r["level"] for r in rows), key=resolve_level)


def ranking_level(rows: list[dict]) -> str:
    """``high``, as in the paper's Table 5, or the highest level a custom curve has."""
    levels = levels_by_p(rows)
    return "high" if "high" in levels else levels[-1]


def ranking(rows: list[dict], level: str | None = None) -> list[dict]:
    """Attackers from most to least damaging at ``level`` (default ``ranking_level``; Table 5)."""
    level = level or ranking_level(rows)
    at = [r for r in rows if r["level"] == level]
    return [{"rank": i, "attacker": r["attacker"], "s_star": r["s_star"]}
            for i, r in enumerate(sorted(at, key=lambda r: r["s_star"]), 1)]


def add_delta_tau(results: dict, baseline: dict) -> dict:
    """Δτ(p) = σ(p)/s(0) − s*(p) for every (attacker, level) both results have."""
    s0 = baseline["clean_score"]
    base = {(r["attacker"], r["level"]): r for r in baseline["sets"]}
    results["baseline_clean_score"] = s0
    results["clean_delta"] = results["clean_score"] / s0 - 1.0
    for row in results["sets"]:
        ref = base.get((row["attacker"], row["level"]))
        if ref is not None:
            row["delta_tau"] = row["score"] / s0 - ref["s_star"]
    return results


def write(results: dict, out_dir: Path) -> list[Path]:
    """``results.json``, ``report.md`` and the figures into ``out_dir``."""
    from .report import write_report

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.json"
    tmp = path.with_name(".results.json.tmp")
    tmp.write_text(json.dumps(results, indent=1))
    tmp.replace(path)
    return [path, *write_report(results, out_dir)]
