"""Throughput of ``zeroe perturb`` on Ray (1 and 2 local workers) against the process pool
(``-j 1``, ``-j 2``) on the same input (JSON on stdout and in ``--out``).

Corpus: the sentences of UD English-EWT train and the SNLI dev/test sentence pairs, one per line
(``--lines`` of them). Each command runs end to end in its own process, one at a time, as a user
runs it (Ray: starting the local instance included); every output must equal ``-j 1``'s. The same
command on the first ``BLOCK`` lines gives its fixed cost (start-up, loading the assets), and
``lines_per_second_net`` the rate beyond it (none where the difference is under a second, within
the spread of the fixed cost). The load average before and after each run is
recorded: the machine may be shared.

    python benchmarks/ray_throughput.py [--data DIR] [--lines 40000] [--perturbers keyboard-typo,visual]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perturb_throughput import DATA, DATA_HELP, SNLI, UD_TRAIN, mixed_corpus, recorded

from zeroe_assets.rng import BLOCK

ROOT = Path(__file__).resolve().parents[1]
ENGINES = {"pool -j 1": ["-j", "1"], "pool -j 2": ["-j", "2"],
           "ray, 1 worker": ["--engine", "ray", "--workers", "1"],
           "ray, 2 workers": ["--engine", "ray", "--workers", "2"]}


def corpus(data: Path, lines: int) -> list[str]:
    """The first ``lines`` of `mixed_corpus`: EWT sentences, then SNLI sentences, …"""
    out = mixed_corpus(data)
    if len(out) < lines:
        raise SystemExit(f"only {len(out)} lines in the corpus, asked for {lines}")
    return out[:lines]


def load() -> float:
    return os.getloadavg()[0]


def run(attacker: str, level: str, flags: list[str], path: Path) -> dict:
    command = [sys.executable, "-m", "zeroe_assets.cli", "perturb", "-p", attacker, "-l", level,
               "--seed", "0", *flags, str(path)]
    before = load()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, cwd=ROOT, check=True)
    wall = time.perf_counter() - start
    return {"wall_seconds": round(wall, 2), "load_before": before, "load_after": load(),
            "sha256": hashlib.sha256(done.stdout).hexdigest(),
            "command": "zeroe perturb -a " + " ".join([attacker, "-l", level, *flags, "FILE"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--lines", type=int, default=40000)
    parser.add_argument("--perturbers", default="keyboard-typo,visual")
    parser.add_argument("--level", default="mid")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/ray_throughput.json")
    args = parser.parse_args()
    lines = corpus(args.data, args.lines)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path, small = Path(tmp) / "corpus.txt", Path(tmp) / "start.txt"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        small.write_text("".join(line + "\n" for line in lines[:BLOCK]), encoding="utf-8")
        for attacker in args.perturbers.split(","):
            for engine, flags in ENGINES.items():
                fixed = run(attacker, args.level, flags, small)["wall_seconds"]
                row = {"attacker": attacker, "engine": engine,
                       **run(attacker, args.level, flags, path), "fixed_seconds": fixed}
                row["lines_per_second"] = round(len(lines) / row["wall_seconds"])
                net = row["wall_seconds"] - fixed  # none where the noise of the fixed cost
                row["lines_per_second_net"] = round(len(lines) / net) if net >= 1 else None
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
            digests = {r["sha256"] for r in rows if r["attacker"] == attacker}
            if len(digests) != 1:
                raise SystemExit(f"{attacker}: the engines' outputs differ")
    result = {"corpus": [recorded(args.data / UD_TRAIN, args.data),
                         *(recorded(args.data / s, args.data) for s in SNLI)],
              "lines": len(lines), "level": args.level,
              "cores": len(os.sched_getaffinity(0)), "python": platform.python_version(),
              "ray": _version("ray"), "results": rows}
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    json.dump(result, sys.stdout, indent=1)
    print()


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    main()
