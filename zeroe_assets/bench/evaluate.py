"""``zeroe bench evaluate``: a victim on the clean and every perturbed test set (paper §4.2–4.3).

s(p) is the victim's score on a set attacked at level p, s*(p) = s(p)/s(0) (eq. 1). For an
adversarially trained victim with scores σ(p), Δτ(p) = σ(p)/s(0) − s*(p) (eq. 2), where s(0) and
s*(p) are the clean-trained baseline's. The amount of perturbation of a set is the mean normalised
character edit distance between clean and attacked texts (paper Fig. 5, rapidfuzz's Levenshtein).
"""
from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

from ..assets import atomic_write
from ..progress import progress_bar, stream
from ..validate import resolve_level
from ..report.example import Example
from ..tasks import Task, get_task
from ..victims import Victim, check_victim_task
from .generate import SIDECAR
from .report import write_report
from .results import Results, SetResult, add_delta_tau, ranking, ranking_level

EXAMPLES = 2  # per set, in results.json and the HTML report


def find_sets(data_dir: Path, split: str | None = None) -> tuple[str, Path, list[dict]]:
    """The split, its clean input and its grid sets (attacker, level, path) from the sidecars."""
    sets = defaultdict(list)
    for side in sorted(Path(data_dir).glob(f"*{SIDECAR}")):
        try:
            params = json.loads(side.read_text(encoding="utf-8"))["params"]
            if params["mode"] != "grid":
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


def _examples(victim, clean, attacked, before: list, after: list, n: int) -> list[Example]:
    """The first ``n`` examples whose prediction the attack changed, then the first changed
    ones (as many as there are)."""
    changed = [i for i, (a, b) in enumerate(zip(clean.texts, attacked.texts)) if a != b]
    flipped = [i for i in changed if before[i] != after[i]]
    rest = [i for i in changed if i not in set(flipped)]
    chosen = sorted((flipped + rest)[:n])
    return [Example.of(victim, i, clean.inputs[i], attacked.inputs[i], clean.gold[i], before[i],
                       after[i]) for i in chosen]


def evaluate(task: str | Task, victim: Victim, data_dir: Path, split: str | None = None,
             clean: Path | None = None, batch_size: int = 256, victim_name: str = "",
             baseline: Results | None = None, progress=True,
             examples: int = EXAMPLES) -> Results:
    """Every number of one victim on one task's sets; with ``baseline`` (the clean-trained
    victim's results on the same sets) also Δτ; ``examples`` per set for the report. One line
    per set to ``progress`` (True: standard error; None: silent), with a bar on a terminal."""
    progress = stream(progress)
    task = get_task(task)
    if batch_size < 1:
        raise ValueError(f"batch size must be >= 1, got {batch_size}")
    check_victim_task(getattr(victim, "task", None), task.name,
                      victim_name or type(victim).__name__)
    split, recorded_clean, sets = find_sets(data_dir, split)
    clean = Path(clean) if clean else recorded_clean
    if not clean.exists():
        raise ValueError(f"clean test set {clean} not found; pass --clean PATH")
    fields = sets[0]["fields"] or None
    fmt = task.format_for(clean, fields)
    start = time.perf_counter()
    base = task.examples(clean, fmt)
    before = _predict(victim, base.inputs, batch_size)
    s0 = task.score(base.gold, before)
    if s0 <= 0:
        raise ValueError(f"the victim scores {s0} on the clean set {clean}: s* = s(p)/s(0) is "
                         "undefined")
    rows = []
    sets.sort(key=lambda r: (r["attacker"], resolve_level(r["level"])))
    with progress_bar(len(sets), "evaluate", " sets", enabled=progress is not None) as shown:
        for i, item in enumerate(sets, 1):
            ex = task.examples(item["path"], fmt)
            if len(ex.gold) != len(base.gold):
                raise ValueError(f"{item['path']} has {len(ex.gold)} examples, the clean set "
                                 f"{len(base.gold)}: not generated from {clean}?")
            after = _predict(victim, ex.inputs, batch_size)
            s = task.score(ex.gold, after)
            row = SetResult(item["attacker"], item["level"], resolve_level(item["level"]), s,
                            s / s0, _edit_distance(base.texts, ex.texts), item["path"].name,
                            examples=_examples(victim, base, ex, before, after, examples)
                            if examples else None)
            rows.append(row)
            shown.update()
            if progress is not None:
                shown.write(f"[{i}/{len(sets)}] {row.file}: s = {s:.4f}, s* = {row.s_star:.3f}",
                            file=progress)
    at = ranking_level(rows)
    results = Results(task.name, victim_name, split, str(clean), len(base.gold), s0,
                      task.chance(base.gold), task.metric, rows, at, ranking(rows, at),
                      time.perf_counter() - start)
    return add_delta_tau(results, baseline) if baseline is not None else results


def write(results: Results, out_dir: Path) -> list[Path]:
    """``results.json``, ``report.md``, the figures and ``report.html`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.json"
    atomic_write(path, json.dumps(results.to_json(), indent=1).encode())
    return [path, *write_report(results, out_dir)]
