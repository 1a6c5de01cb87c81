"""Time `zeroe bench generate` for every available attacker × low/mid/high on UD EWT test (JSON).

Assets are loaded once before the clock starts (forked workers inherit them), so the figure is
generation alone, as the issue's target (≤ 2 minutes on 2 cores) asks.

    python benchmarks/generate_speed.py [--data DIR | --input FILE] [--processes 2]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from perturb_throughput import DATA, DATA_HELP
from zeroe_assets import get_perturbation
from zeroe_assets.bench import generate as gen

UD_TEST = "bench/ud_ewt/en_ewt-ud-test.conllu"  # the default input, in the data folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--input", type=Path, default=None, help=f"default: DATA/{UD_TEST}")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    args.input = args.input or args.data / UD_TEST
    attackers = gen.resolve_perturbers("pos", "all")
    start = time.perf_counter()
    for name in attackers:  # load tables / indexes outside the timing
        get_perturbation(name)("warm up", seed=0)
    loading = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as out:
        jobs = gen.plan("pos", {"test": args.input}, attackers, ["low", "mid", "high"],
                        Path(out), seed=0)
        start = time.perf_counter()
        outcomes = gen.run(jobs, args.processes, progress=None)
        seconds = time.perf_counter() - start
    json.dump({"input": args.input.name, "attackers": attackers, "outputs": len(jobs),
               "sentences_per_output": outcomes[0].records, "processes": args.processes,
               "asset_loading_seconds": round(loading, 2), "generation_seconds": round(seconds, 2)},
              sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
