"""Reproduce the paper's experiment pattern (§4, Tables 5–6, Fig. 1, 3, 5) on the real data here.

POS on UD English-EWT test (victim trained on EWT train), NLI on SNLI test (victim trained on SNLI
dev: SNLI train is not available offline), toxicity on OLID level A (trained on OLID train; OLID
stands in for Jigsaw). Every available attacker × low/mid/high, then adversarial training 1-1 on
OLID for the Δτ heat map. Perturbed data goes to ``--work`` (outside the repo: the datasets may
not be copied into it); reports, figures and a JSON summary with the paper's numbers side by side
go to ``--out``, and one HTML page of them all to ``--page`` (``--render``: only that page).

    python benchmarks/paper_grid.py [--tasks pos,nli,tc] [--victim pos=pos-bilstm@DIR]
                                    [--victim tc=tc-minilm --tasks tc --no-adv] [--render]
"""
from __future__ import annotations

import argparse
import dataclasses
import csv
import json
import statistics
import sys
import time
from pathlib import Path

from perturb_throughput import DATA, DATA_HELP, recorded
from zeroe_assets.bench import generate as gen
from zeroe_assets.bench.evaluate import evaluate, write
from zeroe_assets.assets import atomic_write
from zeroe_assets.report import html as H
from zeroe_assets.bench.report import FIGURES, html_section, plot_delta_tau_heatmap
from zeroe_assets.bench.results import Curve, Results, Summary, TaskSummary
from zeroe_assets.tasks import get_task
from zeroe_assets.victims import load_victim
from zeroe_assets.victims.sklearn import save_victim, train_victim

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "report" / "paper-grid.html"

# Table 6 of the paper (RoBERTa; POS and NLI accuracy in %, TC ROC-AUC): clean, then low/mid/high.
PAPER = {
    "clean": {"pos": 96.65, "nli": 90.41, "tc": 0.93},
    "full-shuffle": {"pos": (82.14, 58.14, 40.47), "nli": (70.35, 45.70, 38.35), "tc": (0.90, 0.83, 0.74)},
    "inner-shuffle": {"pos": (85.96, 70.53, 67.95), "nli": (67.70, 53.35, 51.55), "tc": (0.90, 0.83, 0.82)},
    "intrude": {"pos": (81.42, 46.91, 18.15), "nli": (75.97, 52.25, 34.70), "tc": (0.91, 0.85, 0.66)},
    "disemvowel": {"pos": (85.24, 61.50, 44.69), "nli": (72.24, 51.62, 41.00), "tc": (0.91, 0.86, 0.79)},
    "truncate": {"pos": (88.57, 77.40, 75.11), "nli": (79.83, 72.87, 72.02), "tc": (0.90, 0.84, 0.83)},
    "segment": {"nli": (86.08, 77.53, 69.14), "tc": (0.93, 0.92, 0.91)},
    "keyboard-typo": {"pos": (85.06, 62.41, 40.99), "nli": (76.93, 60.21, 44.16), "tc": (0.92, 0.88, 0.84)},
    "natural-typo": {"pos": (85.34, 65.36, 50.06), "nli": (78.43, 65.60, 56.31), "tc": (0.92, 0.91, 0.90)},
    "phonetic": {"pos": (90.62, 89.09, 88.95), "nli": (87.40, 84.75, 82.80), "tc": (0.93, 0.92, 0.91)},
    "visual": {"pos": (80.52, 48.14, 22.44), "nli": (53.07, 35.26, 34.37), "tc": (0.86, 0.64, 0.48)},
}
LEVELS = ("low", "mid", "high")
DEFAULT_VICTIMS = {"pos": "pos-features", "nli": "nli-tfidf", "tc": "tc-tfidf"}
ADV_VICTIMS = {"tc": "tc-tfidf"}  # the victim trained 1-1 per attacker for Fig. 3, per task


def olid_test_with_labels(data: Path, work: Path) -> Path:
    """OLID ships test tweets and labels separately; join them into one TSV."""
    labels = dict(csv.reader(open(data / "olid/labels-levela.csv", encoding="utf-8")))
    out = work / "olid" / "test.tsv"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(data / "olid/testset-levela.tsv", encoding="utf-8") as src, \
            open(out, "w", encoding="utf-8") as dst:
        next(src)
        dst.write("id\ttweet\tsubtask_a\n")
        for line in src:
            tid, tweet = line.rstrip("\n").split("\t")
            dst.write(f"{tid}\t{tweet}\t{labels[tid]}\n")
    return out


def train(task: str, name: str, path: Path, model: Path):
    """Train a built-in victim, or reuse the one a previous run trained on the same file."""
    if model.exists() and model.stat().st_mtime > path.stat().st_mtime:
        return load_victim(name, model)
    spec = get_task(task)
    ex = spec.examples(path, spec.format_for(path))
    start = time.perf_counter()
    victim = train_victim(name, ex.inputs, ex.gold)
    save_victim(victim, model)
    print(f"trained {name} on {len(ex.inputs)} examples in {time.perf_counter() - start:.0f}s",
          file=sys.stderr)
    return victim


def paper_s_star(task: str, attacker: str) -> list[float] | None:
    row = PAPER.get(attacker, {}).get(task)
    return None if row is None else [round(v / PAPER["clean"][task], 3) for v in row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-paper-grid"))
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench")
    parser.add_argument("--victim", action="append", default=[], metavar="TASK=NAME[@PATH]",
                        help="victim for a task (default pos-features, nli-tfidf, tc-tfidf, "
                             "trained here); @PATH loads a trained model, e.g. "
                             "pos=pos-bilstm@runs/victim/model")
    parser.add_argument("--no-adv", action="store_true", help="skip 1-1 adversarial training")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-j", "--processes", type=int, default=2)
    parser.add_argument("--tasks", default="pos,nli,tc")
    parser.add_argument("--page", type=Path, default=PAGE, help="the HTML report to write")
    parser.add_argument("--render", action="store_true",
                        help="only rewrite --page from the results in --out")
    parser.add_argument("--note", default="", help="a sentence for the page: where and when")
    args = parser.parse_args()
    if args.render:
        summary = Summary.from_json(json.loads((args.out / "summary.json").read_text()))
        return atomic_write(args.page, page(summary, args.out, args.note).encode())
    data = args.data / "bench"
    if not data.exists():
        sys.exit(f"benchmark data not found at {data} (pass --data DIR or set ZEROE_DATA)")
    work, out = args.work, args.out
    tasks = args.tasks.split(",")
    setups = {
        "pos": (data / "ud_ewt/en_ewt-ud-test.conllu", data / "ud_ewt/en_ewt-ud-train.conllu"),
        "nli": (data / "snli/snli_test.tsv", data / "snli/snli_dev.tsv"),
        "tc": (olid_test_with_labels(data, work), data / "olid/olid-training-v1.0.tsv"),
    }
    summary_path = out / "summary.json"  # tasks run separately accumulate here
    tasks_run = Summary.from_json(json.loads(summary_path.read_text()), str(summary_path)).tasks \
        if summary_path.exists() else {}
    chosen = dict(v.split("=", 1) for v in args.victim)
    for task in tasks:
        test, train_path = setups[task]
        attackers = gen.resolve_perturbers(task, "all")
        start = time.perf_counter()
        jobs = gen.plan(task, {"test": test}, attackers, LEVELS, work / task / "sets", args.seed)
        gen.run(jobs, args.processes)
        generation = time.perf_counter() - start
        name, _, model = chosen.get(task, DEFAULT_VICTIMS[task]).partition("@")
        if model:
            victim = load_victim(name, model)
        else:
            victim = train(task, name, train_path, work / task / f"{name}.joblib")
        key = task if name == DEFAULT_VICTIMS[task] else f"{task}-{name}"
        results = evaluate(task, victim, work / task / "sets", victim_name=name)
        results = dataclasses.replace(results, clean_file=recorded(results.clean_file, args.data))
        write(results, out / key)
        adv = ADV_VICTIMS.get(task) if key == task and not args.no_adv else None
        tasks_run[key] = TaskSummary(
            task, name, results.clean_score, PAPER["clean"][task], round(generation, 1),
            {a: Curve([round(r.s_star, 3) for r in results.sets if r.attacker == a],
                      paper_s_star(task, a))
             for a in attackers},
            [r.attacker for r in results.ranking],
            one_vs_one(task, adv, train_path, attackers, results, work, out, args) if adv else None)
    summary = Summary(args.seed, tasks_run)
    summary_path.write_text(json.dumps(summary.to_json(), indent=1))
    (out / "comparison.md").write_text(comparison(summary), encoding="utf-8")
    atomic_write(args.page, page(summary, out, args.note).encode())
    json.dump(summary.to_json(), sys.stdout, indent=1)
    print()


def _versus(d: TaskSummary) -> str:
    return (f"{d.task}: {d.victim} (clean {d.clean_score:.4f}) vs RoBERTa in the paper (clean "
            f"{d.paper_clean_score})")


def _side_by_side(d: TaskSummary) -> list[list]:
    """Per attacker (least robust at high first): our s* at low/mid/high, then the paper's."""
    return [[attacker, *row.ours, *(row.paper or [None] * 3)]
            for attacker, row in sorted(d.s_star.items(), key=lambda kv: kv[1].ours[-1])]


def comparison(summary: Summary) -> str:
    """Our s* next to the paper's (Table 6 divided by its clean score) and both rankings."""
    lines = []
    for key, d in sorted(summary.tasks.items()):
        lines += [f"## {_versus(d)}", "",
                  "| attacker | ours low | mid | high | paper low | mid | high |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for attacker, *values in _side_by_side(d):
            lines.append(f"| {attacker} | " + " | ".join(
                "—" if v is None else f"{v:.3f}" for v in values) + " |")
        ours = d.ranking_high
        theirs = sorted((a for a in ours if d.s_star[a].paper),
                        key=lambda a: d.s_star[a].paper[-1])
        lines += ["", "Ranking at high, most damaging first (Table 5). Ours: "
                  + ", ".join(ours) + ". Paper (same attackers, from its Table 6): "
                  + ", ".join(theirs) + ".", ""]
        if d.delta_tau_high is not None:
            diag = {a: row.get(a) for a, row in d.delta_tau_high.items()}
            best = sum(1 for a, row in d.delta_tau_high.items()
                       if row and max(row, key=row.get) == a)
            lines += [f"1-1 adversarial training: the victim trained on α gains most on α itself "
                      f"for {best} of {len(diag)} attackers (Δτ at high on the diagonal: "
                      + ", ".join(f"{a} {v:+.3f}" for a, v in diag.items() if v is not None)
                      + ").", ""]
    return "\n".join(lines)


def page(summary: Summary, out: Path, note: str = "") -> str:
    """docs/report/paper-grid.html: per task, our s* next to the paper's, then the task's
    evaluation (its tables, figures and examples) and, where run, the Δτ heat map; ``note``:
    a sentence on where and when this run was made."""
    parts = [H.paragraph(
        "Every attacker at low/mid/high on UD English-EWT test (POS), SNLI test (NLI) and OLID "
        "level A (toxicity), victims trained here next to RoBERTa in the paper's Table 6 "
        "(s* = s(p)/s(0)); 1-1 adversarial training on OLID for Fig. 3. "
        f"Seed {summary.seed}. Reproduce: python benchmarks/paper_grid.py (see docs/results.md). "
        + note), H.table(["task", "victim", "clean score", "paper's clean score", "mean s*(high)",
                "paper's mean s*(high)", "most damaging at high"],
               [[d.task, d.victim, d.clean_score, d.paper_clean_score,
                 statistics.mean(c.ours[-1] for c in d.s_star.values()),
                 statistics.mean(c.paper[-1] for c in d.s_star.values() if c.paper),
                 d.ranking_high[0]] for _, d in sorted(summary.tasks.items())])]
    for key, d in sorted(summary.tasks.items()):
        results = Results.load(out / key / "results.json")
        figures = [(out / key / name, caption) for name, caption in FIGURES.items()
                   if (out / key / name).exists()]
        heat = out / key / "delta_tau_1-1_high.png"
        if heat.exists():
            figures.append((heat, "Δτ at high of victims trained 1-1 on α, tested on β "
                                  "(paper Fig. 3)"))
        parts += [H.heading(_versus(d)),
                  H.table(["attacker", "ours low", "mid", "high", "paper low", "mid", "high"],
                          _side_by_side(d)),
                  html_section(results, figures, level=2, tables=False)]
    return H.page("Zéroe paper grid: robustness of victims to the ten attackers", *parts)


def one_vs_one(task, name, train_path, attackers, baseline, work, out, args) -> dict:
    """Adversarial training 1-1 (§4.3): one victim per attacker α, evaluated on every β."""
    jobs = gen.plan(task, {"train": train_path}, attackers, LEVELS, work / task / "adv",
                    args.seed, mode="1-1")
    gen.run(jobs, args.processes)
    matrix = {}
    for job in jobs:
        alpha = job.mixture[0][0]
        victim = train(task, name, Path(job.output), work / task / f"1-1_{alpha}.joblib")
        results = evaluate(task, victim, work / task / "sets", victim_name=f"{name} 1-1 {alpha}",
                           baseline=baseline, progress=None, examples=0)
        adv_json = out / task / "adv" / f"{alpha}.json"
        adv_json.parent.mkdir(parents=True, exist_ok=True)
        adv_json.write_text(json.dumps(results.to_json(), indent=1))
        matrix[alpha] = {r.attacker: round(r.delta_tau, 4) for r in results.sets
                         if r.level == "high"}
    plot_delta_tau_heatmap(matrix, "high", out / task / "delta_tau_1-1_high.png")
    return matrix


if __name__ == "__main__":
    main()
