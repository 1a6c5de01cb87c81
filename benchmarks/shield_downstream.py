"""Downstream: s*(high) of each benchmark victim with and without the shield in front, every
attacker (the paper's Table 6 layout, as s* = s(p)/s(0)).

The benchmark's victims and data as ``benchmarks/paper_grid.py`` has them (POS on UD EWT test,
NLI on SNLI test, toxicity on OLID test; pos-features, nli-tfidf and tc-tfidf trained on EWT
train, SNLI dev and OLID train), the test sets as a seeded sample of ``--examples`` each, attacked
at ``high`` by ``zeroe bench generate``'s jobs, evaluated by ``zeroe bench evaluate``'s
`evaluate` once on the victim and once on `ShieldedVictim(victim)` (its clean score is the
shielded victim's on clean text, so s* says what the attack still costs behind the shield).
Prints JSON, writes ``benchmarks/results/shield_downstream.json`` and
``docs/shield-downstream.md``.

    python benchmarks/shield_downstream.py [--examples 2000] [--tasks pos,nli,tc] [--seed 0]
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import shlex  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from defender_table import OLID_TEST, sample  # noqa: E402
from paper_grid import DEFAULT_VICTIMS, olid_test_with_labels, train  # noqa: E402
from perturb_throughput import DATA, DATA_HELP, ROOT, recorded  # noqa: E402
from shield_accuracy import commit  # noqa: E402

from zeroe_assets.assets import atomic_write  # noqa: E402
from zeroe_assets.bench import generate as gen  # noqa: E402
from zeroe_assets.bench.evaluate import evaluate  # noqa: E402
from zeroe_assets.shield import ShieldedVictim, get_shield  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "shield_downstream.json"
DOC = ROOT / "docs" / "shield-downstream.md"
NAMES = {"pos": "POS (UD EWT)", "nli": "NLI (SNLI)", "tc": "toxicity (OLID)"}


def setups(data: Path, work: Path) -> dict[str, tuple[Path, Path]]:
    """Task → (test set, training set), as paper_grid has them."""
    return {"pos": (data / "ud_ewt/en_ewt-ud-test.conllu", data / "ud_ewt/en_ewt-ud-train.conllu"),
            "nli": (data / "snli/snli_test.tsv", data / "snli/snli_dev.tsv"),
            "tc": (olid_test_with_labels(data, work), data / "olid/olid-training-v1.0.tsv")}


def run_task(task: str, test: Path, train_path: Path, work: Path, args) -> dict:
    """One task: its sample attacked at high by every attacker; the victim's and the shielded
    victim's clean score and s*(high) per attacker."""
    few = sample(test, task, args.examples, args.seed, work / task / f"test{test.suffix}")
    attackers = gen.resolve_perturbers(task, "all")
    sets = work / task / "sets"
    gen.run(gen.plan(task, {"test": few}, attackers, ("high",), sets, args.seed))
    name = DEFAULT_VICTIMS[task]
    victim = train(task, name, train_path, work / task / f"{name}.joblib")
    out = {"test": OLID_TEST if task == "tc" else recorded(test, args.data),
           "train": recorded(train_path, args.data), "victim_name": name}
    for key, model in (("victim", victim), ("shielded", ShieldedVictim(victim, task))):
        start = time.perf_counter()
        results = evaluate(task, model, sets, victim_name=name, progress=None)
        out[key] = {"clean_score": round(results.clean_score, 4),
                    "s_star": {r.attacker: round(r.s_star, 4) for r in results.sets},
                    "score": {r.attacker: round(r.score, 4) for r in results.sets},
                    "seconds": round(time.perf_counter() - start, 1)}
        print(f"{task} {key}: clean {results.clean_score:.4f}, mean s*(high) "
              f"{statistics.mean(out[key]['s_star'].values()):.3f} "
              f"({out[key]['seconds']:.0f}s)", file=sys.stderr, flush=True)
    out["examples"] = results.examples
    out["metric"] = results.metric
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-shield-downstream"))
    parser.add_argument("--examples", type=int, default=2000,
                        help="test examples per task, a seeded sample (default: 2000)")
    parser.add_argument("--tasks", default="pos,nli,tc")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--doc", type=Path, default=DOC)
    args = parser.parse_args()
    data = args.data / "bench"
    if not data.exists():
        sys.exit(f"benchmark data not found at {data} (pass --data DIR or set ZEROE_DATA)")
    started = time.perf_counter()
    found = setups(data, args.work)
    tasks = {task: run_task(task, *found[task], args.work, args) for task in args.tasks.split(",")}
    result = {"command": shlex.join(["python", "benchmarks/shield_downstream.py", *sys.argv[1:]]),
              "commit": commit(), "shield": get_shield().describe(), "level": "high",
              "seed": args.seed, "tasks": tasks,
              "seconds": round(time.perf_counter() - started, 1)}
    atomic_write(args.out, json.dumps(result, indent=1).encode() + b"\n")
    atomic_write(args.doc, markdown(result).encode())
    json.dump(result, sys.stdout, indent=1)
    print()


def markdown(result: dict) -> str:
    """docs/shield-downstream.md: attackers × tasks, s*(high) without and with the shield."""
    tasks = result["tasks"]
    attackers = list(dict.fromkeys(a for t in tasks.values() for a in t["victim"]["s_star"]))
    lines = ["# The shield downstream", "",
             "s*(high) = s(high)/s(0) of each benchmark victim, without and with the shield in "
             "front (`ShieldedVictim`; its s(0) is the shielded victim's on clean text), every "
             "attacker at `high` under the benchmark's protocol (the paper's Table 6 layout). "
             f"Seed {result['seed']}; shield: {result['shield']}. Reproduce: "
             f"`{result['command']}` (raw numbers: "
             "[../benchmarks/results/shield_downstream.json]"
             "(../benchmarks/results/shield_downstream.json)).", "",
             "| attacker | " + " | ".join(f"{NAMES[t]} | + shield" for t in tasks) + " |",
             "|---|" + "---:|---:|" * len(tasks)]

    def cell(entry, key, attacker):
        value = entry[key]["s_star"].get(attacker)
        return "–" if value is None else f"{value:.3f}"
    lines.append("| clean score s(0) | " + " | ".join(
        f"{t['victim']['clean_score']:.3f} | {t['shielded']['clean_score']:.3f}"
        for t in tasks.values()) + " |")
    for attacker in attackers:
        lines.append(f"| {attacker} | " + " | ".join(
            f"{cell(t, 'victim', attacker)} | {cell(t, 'shielded', attacker)}"
            for t in tasks.values()) + " |")
    lines.append("| **mean** | " + " | ".join(
        f"{statistics.mean(t['victim']['s_star'].values()):.3f} | "
        f"{statistics.mean(t['shielded']['s_star'].values()):.3f}" for t in tasks.values()) + " |")
    lines += ["", "Victims and data: " + "; ".join(
        f"{NAMES[k]}: `{t['victim_name']}` trained on `{t['train']}`, {t['examples']} examples of "
        f"`{t['test']}` ({t['metric']})" for k, t in tasks.items()) + ".", "",
        f"Commit {result['commit']}, {result['seconds']:.0f} s in all.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
