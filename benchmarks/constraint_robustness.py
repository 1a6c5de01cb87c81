"""Constraint robustness curves and ACCS (Morris et al. 2020) of the phonetic and the visual
constraints on OLID against a tc-tfidf victim trained on OLID's training tweets: ``zeroe bench
constraints`` once for the sound constraints and once for the sight ones, on the first
``--examples`` test tweets. Runs resume (their folders are under ``--work``); prints JSON,
writes ``benchmarks/results/constraint_robustness.json`` (the kinds not run keep their rows) and
the curves to ``docs/``.

    python benchmarks/constraint_robustness.py [--examples 60] [--work /tmp/zeroe-accs]
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from paper_grid import olid_test_with_labels, train
from perturb_throughput import DATA, DATA_HELP, recorded
from zeroe_assets.assets import atomic_write
from zeroe_assets.bench.robustness import TIMING, BenchSettings, run
from zeroe_assets.constraints.scored import SIGHT, SOUND, score_names

ROOT = Path(__file__).resolve().parents[1]
# the scores live in [0, 1]; the learned ones are near 1 for most look- and sound-alikes, so
# the grid is denser there
GRID = [0.0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.92, 0.94, 0.96, 0.98, 1.0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-accs"))
    parser.add_argument("--examples", type=int, default=60)
    parser.add_argument("--kinds", default=f"{SOUND},{SIGHT}")
    args = parser.parse_args()
    bench = args.data / "bench"
    args.work.mkdir(parents=True, exist_ok=True)
    test = olid_test_with_labels(bench, args.work)
    model = args.work / "tc-tfidf.joblib"
    train("tc", "tc-tfidf", bench / "olid/olid-training-v1.0.tsv", model)
    results = ROOT / "benchmarks/results/constraint_robustness.json"
    kept = json.loads(results.read_text(encoding="utf-8"))["kinds"] if results.exists() else {}
    out = {"data": recorded(bench / "olid/testset-levela.tsv", args.data),
           "victim": "tc-tfidf trained on $ZEROE_DATA/bench/olid/olid-training-v1.0.tsv",
           "examples": args.examples, "thresholds": GRID, "kinds": kept}
    for kind in args.kinds.split(","):
        folder = args.work / kind
        settings = BenchSettings(task="tc", victim="tc-tfidf", data=str(test),
                                 constraints=list(score_names(kind)), thresholds=GRID,
                                 victim_path=str(model), examples=args.examples)
        table = run(settings, folder)
        timing = json.loads((folder / TIMING).read_text(encoding="utf-8"))
        out["kinds"][kind] = {
            "constraints": {name: {k: row[k] for k in ("accs", "max_first_order",
                                                       "max_second_order", "points")}
                            for name, row in table["constraints"].items()},
            "timing": timing}
        shutil.copyfile(folder / f"curves-{kind}.png", ROOT / "docs" / f"constraints-{kind}.png")
    text = json.dumps(out, indent=1, ensure_ascii=False)
    atomic_write(results, text.encode() + b"\n")
    print(text)


if __name__ == "__main__":
    main()
