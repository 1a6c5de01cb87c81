"""The table of docs/defend.md from `zeroe search` run folders: for each row, the defender
benchmark's metrics (Clean%, Aua%, Suc%, #Query over the run's examples) and the same split by
gold label (how many examples of each label were right and held), so that a defense that only
holds one class says so. Optionally the `zeroe certify --out` summaries of the same victims.

    python benchmarks/defend_table.py "tc-tfidf|textfooler-zeroe=runs/base-tf" ... \
        [--certify "encode|tc-monotone=cert.json" ...] [--out benchmarks/results/defend_table.json]

The run folders come from the commands in docs/defend.md (`zeroe defend`, then `zeroe search
--victim defended:DIR`); prints JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from zeroe_assets.assets import atomic_write


def row(folder: Path) -> dict:
    """The metrics of one run folder, overall and per gold label."""
    results = [json.loads(line) for line in open(folder / "results.jsonl", encoding="utf-8")]
    if not results:
        raise SystemExit(f"{folder}: no results")
    out = {"examples": len(results)}
    by_gold: dict[str, Counter] = {}
    for r in results:
        by_gold.setdefault(str(r["gold"]), Counter())[r["status"]] += 1
    status = Counter(r["status"] for r in results)
    clean = len(results) - status["skipped"]
    attacked = [r for r in results if r["status"] != "skipped"]
    out.update(clean=100.0 * clean / len(results),
               aua=100.0 * (clean - status["successful"]) / len(results),
               suc=100.0 * status["successful"] / max(1, clean),
               queries=sum(r["queries"] for r in attacked) / max(1, len(attacked)),
               by_gold={g: {"examples": sum(c.values()),
                            "right": sum(c.values()) - c["skipped"],
                            "held": sum(c.values()) - c["skipped"] - c["successful"]}
                        for g, c in sorted(by_gold.items())})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="DEFENSE|RECIPE=DIR")
    parser.add_argument("--certify", action="append", default=[], metavar="DEFENSE=JSON")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    table = {"rows": {}, "certified": {}}
    for spec in args.runs:
        label, _, folder = spec.partition("=")
        table["rows"][label] = row(Path(folder))
    for spec in args.certify:
        label, _, path = spec.partition("=")
        summary = json.loads(Path(path).read_text(encoding="utf-8"))
        table["certified"][label] = {k: v for k, v in summary.items() if k != "certificates"}
    text = json.dumps(table, indent=1)
    if args.out is not None:
        atomic_write(args.out, (text + "\n").encode())
    print(text)
    print("\n| defense | recipe | Clean% | Aua% | Suc% | #Query | OFF held | NOT held |",
          file=sys.stderr)
    for label, r in table["rows"].items():
        defense, _, recipe = label.partition("|")
        held = {g: f"{v['held']}/{v['examples']}" for g, v in r["by_gold"].items()}
        print(f"| {defense} | {recipe} | {r['clean']:.1f} | {r['aua']:.1f} | {r['suc']:.1f} | "
              f"{r['queries']:.1f} | {held.get('1', '–')} | {held.get('0', '–')} |",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
