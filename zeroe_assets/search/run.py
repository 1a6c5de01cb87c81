"""Attack every example of a dataset file with one search recipe (``zeroe search``).

A run's folder (:mod:`zeroe_assets.runs`) holds ``run.json`` (its settings and a fingerprint of
what decides its results), ``results.jsonl`` (one :class:`AttackResult` per example, in example
order, appended, flushed and fsynced line by line), ``summary.json`` (the metrics, settings and
timings), ``report.md`` and ``report.html``.
A rerun with the same fingerprint resumes after the last complete line (a partial last line,
left by a kill, is dropped), so its files equal those of an uninterrupted run; other settings
are refused unless ``restart``. Example i is attacked with index i (the core seeds from it) by
whichever process: results are identical for any number of processes, or with another
``engine`` (`integrations.ray_search.RayEngine`: Ray actors). Timings are only in
``summary.json``.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..assets import atomic_write, sha256_path
from ..formats import json_text
from ..parallel import worker_pool
from ..progress import progress_bar
from ..report import html as H
from ..report.example import Example
from ..runs import Record, append_line, open_run, read_lines
from ..tasks import NLI_FIELDS, Examples, get_task
from ..victims import Scorer, load_victim
from ..victims.wrapper import TimedVictim
from .display import codepoints
from .results import SKIPPED, SUCCESSFUL, STATUSES, AttackResult, summarize

SUMMARY, REPORT, PAGE = "summary.json", "report.md", "report.html"  # besides runs.RUN, RESULTS
REPORT_EXAMPLES = 5  # successful attacks shown in report.md
PAGE_EXAMPLES = 50  # attacked examples (not skipped) shown in report.html


@dataclass(frozen=True)
class RunSettings(Record):
    """What a run attacks and how: the ``zeroe search`` options that decide its results.
    ``options`` go to the recipe (``transformations``, ``max_queries``, ``max_perturbed``,
    ``target``...); ``limit`` attacks the first examples only; ``shield``: the mechanisms of the
    shield in front of the victim (`ShieldedVictim`: the attacker knows it is there), None for
    none; ``shield_guess``: that shield reads for an encoding behind it (`Shield`'s ``guess``)."""

    task: str
    victim: str
    data: str
    recipe: str
    victim_path: str | None = None
    fields: list[str] | None = None
    options: dict = field(default_factory=dict)
    seed: int = 0
    limit: int | None = None
    shield: list[str] | None = None
    shield_guess: bool = False

    def fingerprint(self) -> dict:
        """What must match for a rerun to resume: the settings but the paths (a moved file
        with the same bytes is the same data) and the limit (a larger one extends a run), the
        data's, the victim's and a surrogate's bytes, the shield's ranker, and the toolkit's
        version."""
        from .. import __version__

        found = {"zeroe": __version__, "task": self.task, "victim": self.victim,
                 "recipe": self.recipe, "options": self.options, "fields": self.fields,
                 "seed": self.seed, "data_sha256": sha256_path(Path(self.data)),
                 "victim_sha256": sha256_path(Path(self.victim_path)) if self.victim_path
                 else None, "shield": _shield_fingerprint(self.shield, self.shield_guess)}
        if self.options.get("surrogate"):  # zeroe-fast's own model decides its results too
            found["surrogate_sha256"] = sha256_path(Path(self.options["surrogate"]))
        if self.recipe.strip().lower() == "zeroe-fast":  # a run before 2026-12-06 drew each
            found["draws"] = "word"  # example's candidates from its own stream: not resumed
        return found


def _shield_fingerprint(mechanisms: list[str] | None, guess: bool = False) -> dict | None:
    """The shield as far as it decides results: its mechanisms and its ranker (the weights of
    the exported or the hand-set one, and the threshold), and ``guess`` when on (runs from
    before it existed still resume)."""
    if mechanisms is None:
        return None
    from ..shield import get_shield

    shield = get_shield(mechanisms, guess=guess)
    weights = hashlib.sha256(shield.ranker.weights.astype("<f4").tobytes()).hexdigest()
    found = {"mechanisms": list(shield.mechanisms), "learned": shield.learned,
             "threshold": shield.ranker.threshold, "weights_sha256": weights}
    return {**found, "guess": True} if guess else found


def read_examples(settings: RunSettings) -> Examples:
    """The examples of the data file as the task reads it, the first ``limit`` with a limit."""
    task, path, limit = get_task(settings.task), Path(settings.data), settings.limit
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be >= 1, got {limit}")
    if not path.is_file():
        raise ValueError(f"data file not found: {path}")
    ex = task.examples(path, task.format_for(path, settings.fields))
    if limit is not None:
        ex = Examples(ex.inputs[:limit], ex.gold[:limit], ex.texts[:limit])
    return ex


def segments(task, fields: list[str] | None) -> list[int] | None:
    """NLI: the parts of the pair that ``fields`` names (default: the recipe's, the
    hypothesis only); two fields of other names are the pair itself."""
    if task.inputs != "pair" or not fields:
        return None
    for pair in NLI_FIELDS:
        chosen = [i for i, name in enumerate(pair) if name in fields]
        if chosen:
            return chosen
    return [0, 1]


def build(settings: RunSettings):
    """(attack, victim) of a run: the recipe with its options and seed, the victim loaded."""
    task = get_task(settings.task)
    victim = load_victim(settings.victim, settings.victim_path, task=task.name)
    if settings.shield is not None:
        from ..shield import ShieldedVictim, get_shield

        victim = ShieldedVictim(victim, task,
                                get_shield(settings.shield, guess=settings.shield_guess),
                                settings.victim)
    return recipe(settings), victim


def recipe(settings: RunSettings):
    """The run's attack: the recipe with its options and seed (one per thread that attacks:
    its constraints and perturbers keep per-text caches)."""
    from .recipes import get_recipe

    task = get_task(settings.task)
    return get_recipe(settings.recipe, task, seed=settings.seed,
                      segments=segments(task, settings.fields), **settings.options)


def check_target(settings: RunSettings, victim, gold: list) -> None:
    """A target label outside the data's labels is an error up front for a victim that gives
    labels only (the goal checks the target against a `Scorer`'s own ``labels``)."""
    target = settings.options.get("target")
    if target is None or get_task(settings.task).outputs != "label" \
            or isinstance(victim, Scorer):
        return
    labels = sorted({str(g) for g in gold})
    if str(target) not in labels:
        raise ValueError(f"target label {target!r} is not a label of {settings.data} (labels: "
                         f"{', '.join(labels)})")


def attack_one(attack, victim: TimedVictim, index: int, example) -> tuple[str, float, float]:
    """The result line of example ``index``, with the seconds inside the victim and in all."""
    victim.seconds = 0.0
    start = time.perf_counter()
    result = attack.run(example, victim, index=index)
    elapsed = time.perf_counter() - start
    return json_text(result.to_json()) + "\n", victim.seconds, elapsed


_worker = None  # the pool worker's (attack, timed victim), built once by _init


def _init(settings: RunSettings) -> None:
    global _worker
    attack, victim = build(settings)
    _worker = attack, TimedVictim(victim, settings.victim)


def _attack_in_worker(job: tuple[int, object]) -> tuple[str, float, float]:
    return attack_one(*_worker, *job)


def _attacked(settings, attack, victim, jobs: list, processes: int):
    """(line, victim seconds, seconds) per job, in job order; workers load their own victim."""
    if processes == 1 or len(jobs) < 2:
        timed = TimedVictim(victim, settings.victim)
        for index, example in jobs:
            yield attack_one(attack, timed, index, example)
        return
    processes = min(processes, len(jobs))
    with worker_pool(processes, _init, (settings,)) as pool:
        yield from pool.imap(_attack_in_worker, jobs)


def _finished(path: Path, examples: int) -> int:
    """How many results ``results.jsonl`` holds (`read_lines`: a partial last line dropped);
    results out of order, or more than the ``examples`` to attack now, are an error."""
    results = read_lines(path, AttackResult.from_json)
    for i, result in enumerate(results):
        if result.index != i:
            raise ValueError(f"{path}:{i + 1}: result of example {result.index}, expected {i}; "
                             "pass --restart to start over")
    if len(results) > examples:
        raise ValueError(f"{path} has {len(results)} results, more than the {examples} "
                         "examples to attack now (a smaller --limit?); pass --restart or "
                         "another --out")
    return len(results)


def load_results(path: Path) -> list[AttackResult]:
    """The records of a ``results.jsonl``."""
    with open(path, encoding="utf-8") as f:
        return [AttackResult.from_json(json.loads(line), f"{path}:{i}")
                for i, line in enumerate(f, 1)]


def run(settings: RunSettings, out_dir: Path, processes: int = 1, restart: bool = False,
        progress: bool = True, engine=None) -> dict:
    """Attack the examples of ``settings.data`` not yet in ``out_dir`` and write the run's
    files; the summary. Everything is checked (data, victim, recipe, folder) before the first
    attack; an error or Ctrl-C later leaves every finished result in ``results.jsonl``.
    ``progress``: a bar on stderr when it is a terminal. ``engine``: where the examples are
    attacked instead of ``processes`` here: called with the settings and the (index, example)
    jobs, it yields `attack_one`'s triple per job in job order, and has ``workers``."""
    if processes < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    examples = read_examples(settings)
    attack, victim = build(settings)
    check_target(settings, victim, examples.gold)
    out = Path(out_dir)
    with open_run(out, settings, restart, (SUMMARY, REPORT, PAGE), "search") as path:
        done = _finished(path, len(examples.inputs))
        jobs = [(i, (examples.inputs[i], examples.gold[i]))
                for i in range(done, len(examples.inputs))]
        bar = progress_bar(len(examples.inputs), "attack", "ex", done, progress)
        victim_s = attack_s = 0.0
        start = time.perf_counter()
        with bar, open(path, "a", encoding="utf-8") as f:
            attacked = engine(settings, jobs) if engine is not None else \
                _attacked(settings, attack, victim, jobs, processes)
            for line, in_victim, elapsed in attacked:
                append_line(f, line)
                victim_s, attack_s = victim_s + in_victim, attack_s + elapsed
                bar.update()
        wall = time.perf_counter() - start
        results = load_results(path)
        summary = {**summarize(results), "settings": settings.to_json(),
                   "timing": _timing(len(jobs), wall, victim_s, attack_s,
                                     processes if engine is None else engine.workers)}
        atomic_write(out / SUMMARY, json.dumps(summary, indent=1).encode() + b"\n")
        # a lone surrogate of the input (JSON's "\ud800") as its escape: no UTF-8 carries it
        atomic_write(out / REPORT, report(results, summary).encode("utf-8", "backslashreplace"))
        atomic_write(out / PAGE, page(results, summary, victim).encode("utf-8",
                                                                        "backslashreplace"))
    return summary


def _timing(attacked: int, wall: float, victim: float, attack: float, processes: int) -> dict:
    """This invocation's speed (``processes``: or an engine's workers): the attack's own
    overhead is the time inside ``attack.run`` outside the victim (summed over processes; with
    one, the wall time less the victim's and the writing of results)."""
    overhead = attack - victim
    return {"examples": attacked, "processes": processes, "wall_seconds": wall,
            "examples_per_second": attacked / wall if attacked and wall > 0 else None,
            "victim_seconds": victim, "attack_seconds": attack, "overhead_seconds": overhead,
            "overhead_share": overhead / victim if victim > 0 else None}


def _show(value, sep: str = " ") -> str:
    """A victim input or label on one line: parts (a pair's texts, tokens, tags) joined."""
    if isinstance(value, (list, tuple)):
        return sep.join(map(str, value))
    return str(value).replace("\n", " ")


def _outcome(r: AttackResult) -> str:
    """Gold and the prediction before → after; for tags, how many of them are right."""
    if isinstance(r.gold, list):
        def right(tags):
            return sum(g == t for g, t in zip(r.gold, tags))
        return f"tags right {right(r.before)} → {right(r.after)} of {len(r.gold)}"
    return f"gold {_show(r.gold)}, prediction {_show(r.before)} → {_show(r.after)}"


def _cell(value, digits: int = 1, suffix: str = "") -> str:
    return "—" if value is None else f"{value:.{digits}f}{suffix}"


def _shielded(mechanisms: list[str] | None, guess: bool = False) -> str:
    """How the report's title says the victim was shielded ("" when it was not)."""
    if mechanisms is None:
        return ""
    from ..shield import MECHANISMS

    return " behind the shield" + ("" if tuple(mechanisms) == MECHANISMS
                                   else f" ({', '.join(mechanisms)})") \
        + (", guessing" if guess else "")


def _title(summary: dict) -> str:
    s = summary["settings"]
    shielded = _shielded(s.get("shield"), s.get("shield_guess", False))
    return f"Search attack: {s['recipe']} on {s['victim']}{shielded} ({s['task']})"


def _setup(summary: dict) -> str:
    s = summary["settings"]
    return (f"{summary['examples']} examples of {Path(s['data']).name}"
            + (f" (the first {s['limit']})" if s.get("limit") else "") + f", seed {s['seed']}"
            + "".join(f", {k.replace('_', ' ')} {_show(v, ', ')}"
                      for k, v in sorted(s["options"].items())) + ".")


def _skipped(summary: dict) -> str:
    return (f"Skipped: {summary['skipped_misclassified']} already misclassified, "
            f"{summary['skipped_unattackable']} with no attackable word.")


def report(results: list[AttackResult], summary: dict) -> str:
    """``report.md``: the defender benchmark's table, counts per status and a few successful
    examples (no timings, so that a resumed run's report equals an uninterrupted one's)."""
    s = summary["settings"]
    lines = [f"# {_title(summary)}", "", _setup(summary), "",
             "| Clean% | Aua% | Suc% | #Query | perturbed words | edit distance |",
             "|---:|---:|---:|---:|---:|---:|",
             f"| {_cell(summary['clean_accuracy'])} | {_cell(summary['accuracy_under_attack'])} "
             f"| {_cell(summary['success_rate'])} | {_cell(summary['queries'])} "
             f"| {_cell(summary['perturbed_words'], suffix='%')} "
             f"| {_cell(summary['edit_distance'], 3)} |", "",
             "| status | examples |", "|---|---:|"]
    lines += [f"| {status} | {summary['counts'][status]} |" for status in STATUSES]
    lines += ["", _skipped(summary), ""]
    won = [r for r in results if r.status == SUCCESSFUL][:REPORT_EXAMPLES]
    sep = " || " if get_task(s["task"]).inputs == "pair" else " "
    if won:
        lines += ["## Successful attacks (the first %d)" % len(won), ""]
        for r in won:
            original, adversarial = _show(r.original, sep), _show(r.adversarial, sep)
            lines += [f"**Example {r.index}**: {_outcome(r)}; {r.perturbed} of {r.words} words "
                      f"perturbed, {r.queries} queries", "",
                      f"- original: {original}",
                      f"- adversarial: {adversarial}"]
            if any(not " " <= c <= "~" for c in set(adversarial) - set(original)):
                # new characters outside printable ASCII (invisible ones, homoglyphs, controls)
                lines += [f"- adversarial, code points: {codepoints(adversarial)}"]
            lines += [""]
    return "\n".join(lines)


def page(results: list[AttackResult], summary: dict, victim=None) -> str:
    """``report.html``: ``report.md``'s tables, sortable, and the first attacked examples side
    by side, restored by the shield when ``victim`` is a shielded one (no timings either)."""
    shown = [r for r in results if r.status != SKIPPED][:PAGE_EXAMPLES]
    rows = [{"#": r.index, "status": r.status, "queries": r.queries,
             "words perturbed": f"{r.perturbed}/{r.words}",
             **Example.of(victim, r.index, r.original, r.adversarial, r.gold, r.before,
                          r.after).to_json()} for r in shown]
    headline = H.table(["Clean%", "Aua%", "Suc%", "#Query", "perturbed words %",
                        "edit distance"],
                       [[summary[k] for k in ("clean_accuracy", "accuracy_under_attack",
                                              "success_rate", "queries", "perturbed_words")]
                        + [summary["edit_distance"]]], digits=(1, 1, 1, 1, 1, 3),
                       sortable=False)
    parts = [H.paragraph(_setup(summary)), headline,
             H.table(["status", "examples"], [[st, summary["counts"][st]] for st in STATUSES]),
             H.paragraph(_skipped(summary))]
    if rows:
        parts += [H.heading(f"Attacked examples (the first {len(rows)})"),
                  H.examples(rows, get_task(summary["settings"]["task"]).inputs,
                             lead=("#", "status", "queries", "words perturbed"))]
    return H.page(_title(summary), *parts)
