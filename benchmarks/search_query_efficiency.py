"""What each of zeroe-fast's ideas buys: success, queries and the attack's own time.

The same victims, tweets, budget and seed as ``search_vs_textattack.py``; each variant changes
one part of ``zeroe-fast`` (or of ``textfooler-zeroe``) and runs on two ``tc-tfidf`` victims:
trained on all OLID training tweets (the benchmark's victim; the surrogate's tweets are half of
its data) and on the odd-numbered ones only (held out from the surrogate, trained on the
even-numbered ones). JSON on stdout and in results/.

    python benchmarks/search_query_efficiency.py [--examples 200] [--variants A,B] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from paper_grid import olid_test_with_labels
from perturb_throughput import DATA, DATA_HELP
from search_vs_textattack import (ROOT, attack_all, olid_surrogate, olid_victim, rounded, row,
                                  versions)
from zeroe_assets.constraints import MaxPerturbed, NoRepeat, Stopwords
from zeroe_assets.search import Greedy, Guided, NgramSurrogate, SearchAttack, get_recipe
from zeroe_assets.search.recipes import FAST
from zeroe_assets.spec import perturbers_here
from zeroe_assets.tasks import get_task
from zeroe_assets.victims.wrapper import TimedVictim


def variants(surrogate: NgramSurrogate, budget: int, seed: int) -> dict:
    """Name → a function building the attack: the recipes, then zeroe-fast one part changed."""
    def fast(method=None, transformations=None, candidates=None, constraints=()):
        def build():
            attack = get_recipe("zeroe-fast", "tc", transformations, max_queries=budget,
                                seed=seed, candidates=candidates, surrogate=surrogate)
            attack.method = method or attack.method
            attack.constraints += list(constraints)
            return attack
        return build

    def greedy(chunk):  # TextFooler's ranking and greedy search on zeroe-fast's other parts
        def build():
            parts = fast()()
            return SearchAttack(parts.transformation, parts.constraints, parts.goal,
                                Greedy("delete", chunk=chunk), candidates=parts.candidates,
                                max_queries=budget, seed=seed)
        return build

    return {
        "textfooler-zeroe": lambda: get_recipe("textfooler-zeroe", "tc", max_queries=budget,
                                               seed=seed),
        "greedy on zeroe-fast's words and perturbers": greedy(None),
        "the same, chunks of 5 (early acceptance)": greedy(5),
        "surrogate plans only": fast(Guided(surrogate, chunk=None)),
        "zeroe-fast (plans, then greedy in the surrogate's order)": fast(),
        "zeroe-fast, all ten perturbers, K = 50": fast(
            transformations=perturbers_here("a Zéroe recipe"), candidates=50),
        "zeroe-fast, pruned (at most 10 queries)": fast(Guided(surrogate, prune=10)),
        "zeroe-fast under rho_max 0.3, stopwords kept": fast(
            constraints=[Stopwords(), NoRepeat(), MaxPerturbed(0.3)]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-search-vs-textattack"))
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "results" / "search_query_efficiency.json")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--max-queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", default="", help="comma-separated names (default: all)")
    parser.add_argument("--victims", default="all,odd", help="all and/or odd (--victim-half)")
    args = parser.parse_args()
    data = args.data / "bench"
    task = get_task("tc")
    test = olid_test_with_labels(data, args.work)
    ex = task.examples(test, task.format_for(test))
    examples = list(zip(ex.inputs, ex.gold))[: args.examples]
    surrogate = NgramSurrogate.load(olid_surrogate(data, args.work))
    chosen = variants(surrogate, args.max_queries, args.seed)
    names = [n for n in args.variants.split(",") if n] or list(chosen)
    rows, load = [], os.getloadavg()
    for half in args.victims.split(","):
        victim = olid_victim(data, args.work, half)
        victim.predict([t for t, _ in examples[:8]])  # warm up outside the timings
        for name in names:
            timed = TimedVictim(victim)
            records, wall, own, setup = attack_all(chosen[name](), name, timed, examples, 0.0)
            found = {"victim_half": half, **row("ours", name, records, wall, timed, own, setup)}
            rows.append(rounded(found))
            print(json.dumps(rows[-1]), file=sys.stderr)
    result = {"examples": len(examples), "max_queries": args.max_queries, "seed": args.seed,
              "surrogate": "tc-tfidf trained on the even-numbered OLID training tweets",
              "zeroe_fast_perturbers": list(FAST), "loadavg_at_start": list(load),
              "environment": versions(), "results": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
