"""The constraint robustness bench (``zeroe bench constraints``): for each constraint and each
threshold ε of a grid, the first-order attack (the ``textfooler-zeroe`` search on a victim,
phonetic respellings or visual replacements, with the constraint at ε added) and the
second-order attack (on the constraint itself, :mod:`.second_order`) on the same examples; the
curves and ACCS (:mod:`.accs`) over them.

A run's folder holds ``run.json`` (settings and fingerprint), ``results.jsonl`` (one line per
constraint, threshold and example, in that order, appended and fsynced line by line),
``accs.json`` and ``accs.md`` (the table), ``second_order.jsonl`` (the second-order examples
found), ``curves-sound.png``/``curves-sight.png`` and ``timing.json``. A rerun with the same
fingerprint resumes after the last complete line, so every file but ``timing.json`` equals an
uninterrupted run's.
"""
from __future__ import annotations

import io
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

from .. import tokenize
from ..assets import atomic_write, sha256_path
from ..constraints.scored import SIGHT, SOUND, Threshold, get_score
from ..progress import progress_bar
from ..search.recipes import get_recipe
from ..search.results import SUCCESSFUL, AttackResult, summarize
from ..report.plots import pyplot
from ..runs import Record, append_line, open_run, read_lines
from ..search.run import RunSettings, read_examples, segments
from ..search.text import AttackedText
from ..tasks import get_task
from ..victims import load_victim
from ..victims.wrapper import WrappedVictim
from .accs import accs, curve
from .second_order import DELTA, WIDTH, SecondOrderAttack

TABLE_JSON, TABLE_MD, EXAMPLES, TIMING = ("accs.json", "accs.md", "second_order.jsonl",
                                         "timing.json")  # besides run.json, results.jsonl
GRID = tuple(round(0.1 * i, 1) for i in range(11))  # 0, 0.1 … 1
EXAMPLES_DEFAULT = 50
TRANSFORMATION = {SOUND: "phonetic", SIGHT: "visual"}  # the first-order attack's perturber
RECIPE = "textfooler-zeroe"


def parse_grid(text: str | None) -> list[float]:
    """Thresholds from ``0,0.5,0.9`` (default ``GRID``), sorted, each once."""
    if text is None:
        return list(GRID)
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise ValueError(f"--thresholds takes numbers separated by commas, got {text!r}") \
            from None
    if not values:
        raise ValueError("the threshold grid is empty: give at least one threshold")
    return sorted(set(values))


@dataclass(frozen=True)
class BenchSettings(Record):
    """What a constraint robustness run measures: ``constraints`` (score names) at each of
    ``thresholds`` on the first ``examples`` of ``data``; ``delta`` words for a second-order
    success, a beam of ``width``."""

    task: str
    victim: str
    data: str
    constraints: list
    thresholds: list
    victim_path: str | None = None
    fields: list | None = None
    examples: int = EXAMPLES_DEFAULT
    delta: int = DELTA
    width: int = WIDTH
    seed: int = 0

    def check(self) -> None:
        """Refuse what cannot run, before anything is loaded or written."""
        if not self.constraints:
            raise ValueError("give at least one constraint")
        if not self.thresholds:
            raise ValueError("the threshold grid is empty: give at least one threshold")
        for name in self.constraints:
            score = get_score(name)
            outside = [t for t in self.thresholds if not score.low <= t <= score.high]
            if outside:
                raise ValueError(f"{name} scores are in [{score.low}, {score.high}]; the "
                                 f"thresholds {outside} are outside")
        if isinstance(self.examples, bool) or not isinstance(self.examples, int) \
                or self.examples < 1:
            raise ValueError(f"--examples must be at least 1, got {self.examples!r}")
        SecondOrderAttack(get_score(self.constraints[0]), delta=self.delta, width=self.width)

    def fingerprint(self) -> dict:
        from .. import __version__

        return {"zeroe": __version__, "task": self.task, "victim": self.victim,
                "fields": self.fields, "constraints": self.constraints,
                "thresholds": self.thresholds, "examples": self.examples, "delta": self.delta,
                "width": self.width, "seed": self.seed,
                "data_sha256": sha256_path(Path(self.data)),
                "victim_sha256": sha256_path(Path(self.victim_path)) if self.victim_path
                else None}


def plan(settings: BenchSettings) -> list[tuple[str, float, int]]:
    """(constraint, threshold, example index) of every line, in order."""
    return [(c, t, i) for c in settings.constraints for t in settings.thresholds
            for i in range(settings.examples)]


class Bench:
    """The loaded parts of a run: examples, victim, and per constraint the first-order attack
    (its last constraint is the threshold, set per line) and the second-order attack."""

    def __init__(self, settings: BenchSettings):
        settings.check()
        self.settings = settings
        self.task = get_task(settings.task)
        ex = read_examples(RunSettings(settings.task, settings.victim, settings.data, RECIPE,
                                       fields=settings.fields, limit=settings.examples))
        if len(ex.inputs) < settings.examples:
            raise ValueError(f"{settings.data} has {len(ex.inputs)} examples, fewer than "
                             f"--examples {settings.examples}")
        self.inputs, self.gold = ex.inputs[:settings.examples], ex.gold[:settings.examples]
        # wrapped: a victim that raises is named (`VictimError`), the lines before it kept
        self.victim = WrappedVictim(load_victim(settings.victim, settings.victim_path,
                                                task=self.task.name), settings.victim)
        self.segments = segments(self.task, settings.fields)
        self.first, self.second, self._warmed = {}, {}, set()
        for name in settings.constraints:
            score = get_score(name)
            self.first[name] = self._first_order(score)
            self.second[name] = SecondOrderAttack(score, delta=settings.delta,
                                                  width=settings.width, segments=self.segments)
        self._probe()

    def _first_order(self, score):
        attack = get_recipe(RECIPE, self.task, transformations=[TRANSFORMATION[score.kind]],
                            seed=self.settings.seed, segments=self.segments)
        attack.constraints.append(Threshold(score, score.low))
        return attack

    def _probe(self) -> None:
        """Query the victim once on the first example: a victim the attack cannot use (wrong
        outputs, labels that are not the data's) is an error before anything is written."""
        attack = next(iter(self.first.values()))
        text = AttackedText.from_input(self.task.inputs, self.inputs[0], self.segments)
        attack.goal.session(self.victim, self.gold[0], 1).query([text])

    def _warm(self, name: str, index: int) -> None:
        """Score the respellings of every word of example ``index`` in one batch: the search
        asks word by word, and a G2P or embedder call costs about the same for 5 words as
        for 500. (Visual candidates are random draws: nothing to know beforehand.)"""
        attack = self.first[name]
        score = attack.constraints[-1].score
        if score.kind != SOUND or (name, index) in self._warmed:
            return
        self._warmed.add((name, index))
        text = AttackedText.from_input(self.task.inputs, self.inputs[index], self.segments)
        attack.transformation.prepare(text)
        pairs = []
        for p in attack.attackable(text):
            stem = tokenize.stem(text.word(p))[1]
            pairs += [(score.key(stem), score.key(f)) for f in
                      attack.transformation.forms(stem, attack.candidates, random.Random(0))]
        score.scores(pairs)

    def line(self, name: str, threshold: float, index: int) -> dict:
        self._warm(name, index)
        attack = self.first[name]
        attack.constraints[-1] = Threshold(attack.constraints[-1].score, threshold)
        first = attack.run((self.inputs[index], self.gold[index]), self.victim, index=index)
        second = self.second[name].run(self.inputs[index], threshold, self.task.inputs)
        return {"constraint": name, "threshold": threshold, "index": index,
                "first": first.to_json(), "second": second.to_json()}


def _key(line: dict) -> tuple[tuple[str, float, int], dict]:
    """(constraint, threshold, example index) of a result line, and the line."""
    return (line["constraint"], line["threshold"], line["index"]), line


def _done(results: Path, settings: BenchSettings) -> list[dict]:
    """The lines ``results.jsonl`` holds (`read_lines`), each where the plan has it."""
    expected = plan(settings)
    done = []
    for n, (key, line) in enumerate(read_lines(results, _key)):
        if n >= len(expected) or key != expected[n]:
            raise ValueError(f"{results}:{n + 1}: {key} where the run expects "
                             f"{expected[n] if n < len(expected) else 'no more lines'}; pass "
                             "--restart to start over")
        done.append(line)
    return done


def run(settings: BenchSettings, out_dir: Path, restart: bool = False,
        progress: bool = True) -> dict:
    """Measure what ``out_dir`` does not hold yet and write the run's files; the table."""
    bench = Bench(settings)
    out = Path(out_dir)
    with open_run(out, settings, restart, (TABLE_JSON, TABLE_MD, EXAMPLES, TIMING),
                  "bench constraints") as results:
        return _measure(bench, settings, out, results, progress)


def _measure(bench: Bench, settings: BenchSettings, out: Path, results: Path,
             progress: bool) -> dict:
    """The lines ``results`` lacks, appended, and the run's other files written; the table."""
    lines = _done(results, settings)
    todo = plan(settings)[len(lines):]
    start = time.perf_counter()
    seconds: dict[str, float] = {}
    with progress_bar(len(plan(settings)), "constraints", "line", len(lines), progress) as bar, \
            open(results, "a", encoding="utf-8") as f:
        for name, threshold, index in todo:
            t0 = time.perf_counter()
            line = bench.line(name, threshold, index)
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - t0
            append_line(f, json.dumps(line, ensure_ascii=False) + "\n")
            lines.append(line)
            bar.update()
    table = summarize_lines(settings, lines)
    atomic_write(out / TABLE_JSON, json.dumps(table, indent=1, ensure_ascii=False).encode()
                 + b"\n")
    atomic_write(out / TABLE_MD, markdown(table).encode())
    atomic_write(out / EXAMPLES, "".join(
        json.dumps({"constraint": ln["constraint"], "threshold": ln["threshold"],
                    "index": ln["index"], "original": bench.inputs[ln["index"]],
                    **ln["second"]}, ensure_ascii=False) + "\n"
        for ln in lines if ln["second"]["found"]).encode())
    plot(table, out)
    if todo or not (out / TIMING).exists():
        _add_timing(out / TIMING, {"lines": len(todo),
                                   "wall_seconds": time.perf_counter() - start,
                                   "seconds_per_constraint": seconds})
    return table


def _add_timing(path: Path, this: dict) -> None:
    """``timing.json``: each invocation's lines and seconds, and the totals over them (a
    resumed run's time is the sum; a rerun with nothing left to do adds nothing)."""
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))["invocations"]
    except (OSError, ValueError, KeyError, TypeError):
        runs = []
    runs.append(this)
    per: dict[str, float] = {}
    for r in runs:
        for name, sec in r["seconds_per_constraint"].items():
            per[name] = per.get(name, 0.0) + sec
    atomic_write(path, json.dumps({"invocations": runs,
                                   "wall_seconds": sum(r["wall_seconds"] for r in runs),
                                   "seconds_per_constraint": per}, indent=1).encode() + b"\n")


def summarize_lines(settings: BenchSettings, lines: list[dict]) -> dict:
    """Per constraint and threshold, the first-order success rate (``search.summarize``:
    successes over examples attacked) and the second-order one (found over examples); the
    curve and ACCS per constraint."""
    rows = {}
    for name in settings.constraints:
        points = []
        for t in settings.thresholds:
            mine = [ln for ln in lines if ln["constraint"] == name and ln["threshold"] == t]
            first = summarize([AttackResult.from_json(ln["first"]) for ln in mine])
            y = (first["success_rate"] or 0.0) / 100
            x = sum(ln["second"]["found"] for ln in mine) / len(mine) if mine else 0.0
            points.append({"threshold": t, "first_order": y, "second_order": x,
                           "first_successes": first["counts"][SUCCESSFUL],
                           "attacked": len(mine) - first["counts"]["skipped"],
                           "second_found": sum(ln["second"]["found"] for ln in mine)})
        xy = [(p["second_order"], p["first_order"]) for p in points]
        rows[name] = {"kind": get_score(name).kind, "points": points,
                      "curve": [list(p) for p in curve(xy)], "accs": accs(xy),
                      "max_first_order": max(y for _, y in xy),
                      "max_second_order": max(x for x, _ in xy)}
    return {"settings": settings.to_json(), "constraints": rows}


def markdown(table: dict) -> str:
    s = table["settings"]
    lines = [f"# Constraint robustness: {s['task']}, {s['victim']}", "",
             f"{s['examples']} examples of {Path(s['data']).name}, thresholds "
             f"{', '.join(map(str, s['thresholds']))}; second order: δ = {s['delta']} words, "
             f"beam width {s['width']}; seed {s['seed']}.", "",
             "| constraint | judges | ACCS | max first-order | max second-order |",
             "|---|---|---:|---:|---:|"]
    for name, row in table["constraints"].items():
        value = "—" if row["accs"] is None else f"{row['accs']:.3f}"
        lines.append(f"| {name} | {row['kind']} | {value} | {row['max_first_order']:.3f} | "
                     f"{row['max_second_order']:.3f} |")
    lines += ["", "ACCS — : no second-order (or no first-order) example at any threshold, so "
                  "the area has nothing to be normalised by.", ""]
    for name, row in table["constraints"].items():
        lines += [f"## {name}", "", "| ε | first-order | second-order |", "|---:|---:|---:|"]
        lines += [f"| {p['threshold']} | {p['first_order']:.3f} | {p['second_order']:.3f} |"
                  for p in row["points"]]
        lines.append("")
    return "\n".join(lines)


def plot(table: dict, out: Path) -> list[Path]:
    """One PNG per kind: first- over second-order success, a line per constraint."""
    paths = []
    for kind in (SOUND, SIGHT):
        rows = {n: r for n, r in table["constraints"].items() if r["kind"] == kind}
        if not rows:
            continue
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(5.5, 4.5))
        for name, row in rows.items():
            xs, ys = zip(*row["curve"])
            label = name + ("" if row["accs"] is None else f" (ACCS {row['accs']:.2f})")
            ax.plot(xs, ys, marker="o", ms=3, label=label)
        ax.set_xlabel("second-order success (the constraint fooled)")
        ax.set_ylabel("first-order success (the victim fooled)")
        ax.set_title(f"constraint robustness ({kind}): {table['settings']['task']}")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=7)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, dpi=120, format="png", metadata={"Software": None})
        plt.close(fig)
        path = out / f"curves-{kind}.png"
        atomic_write(path, buf.getvalue())
        paths.append(path)
    return paths
