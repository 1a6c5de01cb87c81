"""zeroe-fast's own time with the victim's share taken out (JSON on stdout): CPU seconds outside
the victim in one run against the real victim, then in passes that give back its recorded
answers (the same run, the records' digest checked; the victim no longer evicts our tables from
the cache in between).

The wall-clock overhead of search_vs_textattack.py moves by several points between runs on a
shared machine, more than most exact speed-ups; the replayed passes move less, and under
valgrind their instruction count is exact to a few in 10^5 (``--callgrind`` switches counting
on for the replayed passes only; valgrind prints the count as "Collected"):

    python benchmarks/search_own_time.py [--dataset mr] [--victim-half odd] [--passes 5]
    valgrind --tool=callgrind --instr-atstart=no python benchmarks/search_own_time.py \\
        --callgrind --passes 1

``--timed`` asks the victim through `TimedVictim`, as the benchmark does: a wrapper's
``__getattr__`` and the protocol checks it answers are then counted where the benchmark counts
them, outside the victim.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy
from perturb_throughput import DATA, DATA_HELP
from search_vs_textattack import TASK, WARM_UP, rounded, setup, surrogate_for
from zeroe_assets.search import NgramSurrogate, get_recipe
from zeroe_assets.victims.wrapper import TimedVictim


class Recorded:
    """The victim, its answers kept by text and its CPU seconds counted; with ``replay`` the
    answers are given back without asking it (a text not asked before is a KeyError: the run
    would not be the same), as the victim gave them (a numpy array where it gave one: the
    goal's checks take another path for a list). ``predict``, and ``scores`` where the victim
    has it (a ``generic`` victim's probabilities)."""

    def __init__(self, victim):
        self.victim, self.answers, self.replay, self.cpu = victim, {}, False, 0.0
        self.arrays: set[str] = set()  # the methods that answered with numpy arrays

    def __getattr__(self, name):
        if name == "victim":
            raise AttributeError(name)
        if name == "scores":
            scores = self.victim.scores  # an AttributeError where the victim has none
            return lambda batch: self.ask(scores, "scores", batch)
        return getattr(self.victim, name)

    def predict(self, batch):
        return self.ask(self.victim.predict, "predict", batch)

    def ask(self, method, name: str, batch):
        start = time.process_time()
        try:
            if self.replay:
                out = [self.answers[name, t] for t in batch]
                return numpy.array(out) if name in self.arrays else out
            out = method(batch)
            self.answers.update(((name, t), o) for t, o in zip(batch, out))
            if isinstance(out, numpy.ndarray):
                self.arrays.add(name)
            return out
        finally:
            self.cpu += time.process_time() - start


def instrument(on: bool) -> None:
    """Switch callgrind's counting on or off for this process."""
    subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
                   check=True, capture_output=True)


def one_run(surrogate: NgramSurrogate, examples: list, victim: Recorded, args) -> dict:
    """The recipe afresh (its surrogate without the spans remembered by an earlier run) on every
    example: own and victim CPU seconds and the records' digest."""
    attack = get_recipe("zeroe-fast", TASK[args.dataset], max_queries=args.max_queries,
                        seed=args.seed, surrogate=copy.copy(surrogate))
    attack.run(WARM_UP[args.dataset], victim.victim)  # loads the perturbers' tables, not timed
    victim.cpu, counted = 0.0, args.callgrind and victim.replay
    asked = TimedVictim(victim) if args.timed else victim
    if counted:
        instrument(True)
    start = time.process_time()
    records = [attack.run(e, asked, index=i) for i, e in enumerate(examples)]
    cpu = time.process_time() - start
    if counted:
        instrument(False)
    lines = "".join(json.dumps(r.to_json(), sort_keys=True) + "\n" for r in records)
    return {"own_cpu_s": cpu - victim.cpu, "victim_cpu_s": victim.cpu,
            "digest": hashlib.sha256(lines.encode()).hexdigest()[:16]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-search-vs-textattack"),
                        help="search_vs_textattack.py's: the joined test set, victim, surrogate")
    parser.add_argument("--dataset", choices=tuple(TASK), default="olid",
                        help="OLID tweets or movie-review sentences (search_vs_textattack's)")
    parser.add_argument("--examples", type=int, default=200, help="the first N test examples")
    parser.add_argument("--max-queries", type=int, default=1000)
    parser.add_argument("--victim-half", choices=("all", "odd"), default="all",
                        help="the victim trained on all training examples or the odd ones")
    parser.add_argument("--surrogate", type=Path, default=None,
                        help="a tc-tfidf or generic-tfidf model file (default: the "
                             "even-numbered training examples')")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--passes", type=int, default=5, help="replayed runs after the real one")
    parser.add_argument("--callgrind", action="store_true",
                        help="count instructions in the replayed runs only (under valgrind)")
    parser.add_argument("--timed", action="store_true",
                        help="the victim behind TimedVictim, as search_vs_textattack.py asks "
                             "it (what a wrapper costs outside the victim counts too)")
    args = parser.parse_args()
    data = args.data / "bench"
    if not data.exists():
        sys.exit(f"benchmark data not found at {data} (pass --data DIR or set ZEROE_DATA)")
    examples, model = setup(args.dataset, data, args.work, args.examples, args.victim_half)
    surrogate = NgramSurrogate.load(args.surrogate or surrogate_for(args.dataset, data, args.work))
    victim, load = Recorded(model), os.getloadavg()
    real = one_run(surrogate, examples, victim, args)
    victim.replay = True
    replayed = [one_run(surrogate, examples, victim, args) for _ in range(args.passes)]
    if any(r["digest"] != real["digest"] for r in replayed):
        sys.exit("a replayed run gave other records than the real one")
    own = [r["own_cpu_s"] for r in replayed]
    json.dump(rounded({
        "dataset": args.dataset, "victim_half": args.victim_half, "examples": len(examples),
        "timed": args.timed,
        "digest": real["digest"],
        "loadavg_at_start": list(load),
        "real": {**real, "overhead_cpu_pct": 100.0 * real["own_cpu_s"] / real["victim_cpu_s"]},
        "replayed_own_cpu_s": [round(x, 4) for x in own],
        "replayed_min_s": min(own, default=None),
        "replayed_median_s": statistics.median(own) if own else None,
        "replayed_min_pct_of_real_victim": 100.0 * min(own) / real["victim_cpu_s"] if own
        else None,
    }), sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
