"""Throughput of the perturbers next to nlpaug's comparable augmenters, in one run (JSON on
stdout and in ``--out``).

Library: each perturber at p = 0.5 on the sentences of UD English-EWT train (real web English, 177k
whitespace tokens; ``--corpus`` for another file), one process, and over ``--processes``. CLI:
``zeroe perturb -p NAME -l 0.5 --seed 0 FILE > /dev/null`` end to end (start-up included) on
``--cli-tokens`` tokens of real English (`mixed_corpus`), with ``-j 1`` and ``-j PROCESSES``; their
outputs must be byte-identical. nlpaug: its augmenters on the first ``--nlpaug-lines`` lines of the
library corpus, with one thread and with ``num_thread=PROCESSES`` (its own way to use more cores),
so that each tool's best on the machine is compared too. Tokens are whitespace-separated tokens, the
same count for every tool. The machine may be shared: every timing is repeated ``--repeat`` times in
rounds (each round times everything once, so the load is alike for all), the median is reported, and
the ratio to nlpaug is taken between medians of the same run; the load average is recorded. Each
figure is given in wall time and in CPU time (``cpu_*``: the process's, or the command's and its
workers'), the steadier of the two on a loaded machine.

    python benchmarks/perturb_throughput.py [--data DIR | --corpus PATH] [--repeat 3]
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zeroe_assets as z

ROOT = Path(__file__).resolve().parents[1]
# the datasets' folder, as in conf/paths/default.yaml: $ZEROE_DATA, else data/ in the checkout
DATA = Path(os.environ.get("ZEROE_DATA") or ROOT / "data")
DATA_HELP = "the data folder (default: $ZEROE_DATA, else data/ in the checkout)"
UD_TRAIN = "bench/ud_ewt/en_ewt-ud-train.conllu"  # the default corpus, in the data folder
SNLI = ("bench/snli/snli_dev.tsv", "bench/snli/snli_test.tsv")
UD_HELD_OUT = ("bench/ud_ewt/en_ewt-ud-dev.conllu", "bench/ud_ewt/en_ewt-ud-test.conllu")
OLID = "bench/olid/olid-training-v1.0.tsv"


def recorded(path: Path, data: Path) -> str:
    """How a result file names an input: ``$ZEROE_DATA/…`` inside the data folder, so that results
    say which dataset they used without naming a machine's folders."""
    try:
        return "$ZEROE_DATA/" + Path(path).resolve().relative_to(Path(data).resolve()).as_posix()
    except ValueError:
        return str(path)

# ours -> nlpaug's closest augmenter (None: nlpaug has nothing comparable)
COMPARABLE = {
    "inner-shuffle": "RandomCharAug(swap)",
    "full-shuffle": None,
    "intrude": "RandomCharAug(insert)",
    "disemvowel": "RandomCharAug(delete)",
    "truncate": "RandomCharAug(delete)",
    "segment": None,
    "keyboard-typo": "KeyboardAug",
    "natural-typo": "SpellingAug",
    "phonetic": None,
    "visual": None,
}
# the settings of the environment recorded with the results (docker images often set both)
ENVIRONMENT = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")
# the phonetic perturber on its table only: words outside it would be decoded by a seq2seq
# model (torch), a cost measured apart (benchmarks/phonetic_quality.py, docs/phonetic.md)
OPTIONS = {"phonetic": {"oov": "off"}}


def read_corpus(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".conllu":
        return [line[len("# text = "):] for line in text.splitlines() if line.startswith("# text = ")]
    return [line for line in text.splitlines() if line.strip()]


def _tsv_column(path: Path, *columns: str) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return [row[c] for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
                for c in columns]


def mixed_corpus(data: Path) -> list[str]:
    """Real English of several kinds, one sample per line: the sentences of UD English-EWT
    train, the SNLI dev/test premises and hypotheses, EWT dev/test, then the OLID training
    tweets (978k whitespace tokens in all)."""
    out = read_corpus(data / UD_TRAIN)
    for name in SNLI:
        out += _tsv_column(data / name, "sentence1", "sentence2")
    for name in UD_HELD_OUT:
        out += read_corpus(data / name)
    return out + _tsv_column(data / OLID, "tweet")


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def both(fn) -> tuple[float, float]:
    """Wall and CPU seconds of ``fn()`` in this process: on a shared machine the CPU time is the
    steadier figure (what a process is given varies with the load; what it needs less so)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def children_cpu() -> float:
    """CPU seconds of the finished child processes so far (theirs and their own children's)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def count(lines: list[str]) -> int:
    return sum(len(line.split()) for line in lines)


def nlpaug_augmenters(p: float, natural: Path):
    import nlpaug.augmenter.char as nac
    import nlpaug.augmenter.word as naw

    common = dict(aug_char_p=p, aug_word_p=p, aug_word_max=None, aug_char_max=None)
    augs = {
        "RandomCharAug(swap)": nac.RandomCharAug(action="swap", **common),
        "RandomCharAug(insert)": nac.RandomCharAug(action="insert", **common),
        "RandomCharAug(delete)": nac.RandomCharAug(action="delete", **common),
        "KeyboardAug": nac.KeyboardAug(**common),
    }
    if natural.exists():
        augs["SpellingAug"] = naw.SpellingAug(dict_path=str(natural), aug_p=p, aug_max=None)
    return augs


def cli(name: str, level: float, processes: int, path: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds (its workers' included) of ``zeroe perturb`` on ``path`` in a fresh
    process, and its output's sha256."""
    command = [sys.executable, "-m", "zeroe_assets.cli", "perturb", "-p", name, "-l", str(level),
               "--seed", "0", "-j", str(processes), str(path)]
    start, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(command, capture_output=True, cwd=ROOT, check=True)
    return (time.perf_counter() - start, children_cpu() - cpu,
            hashlib.sha256(done.stdout).hexdigest())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--corpus", type=Path, default=None, help=f"default: DATA/{UD_TRAIN}")
    parser.add_argument("--level", type=float, default=0.5)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; medians are reported")
    parser.add_argument("--nlpaug-lines", type=int, default=3000,
                        help="nlpaug is slow: time it on this many lines (tokens/s is a rate)")
    parser.add_argument("--cli-tokens", type=int, default=1_000_000,
                        help="at most this many tokens of the mixed corpus for the CLI runs")
    parser.add_argument("--perturbers", default=",".join(COMPARABLE))
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks/results/perturb_throughput.json")
    args = parser.parse_args()
    args.corpus = args.corpus or args.data / UD_TRAIN
    if not args.corpus.exists():
        sys.exit(f"corpus not found: {args.corpus} (pass --data DIR or --corpus PATH)")
    names = [n for n in args.perturbers.split(",") if n]
    lines = read_corpus(args.corpus)
    tokens = count(lines)
    sub = lines[: args.nlpaug_lines]
    sub_tokens = count(sub)
    big, big_tokens = [], 0
    for line in mixed_corpus(args.data):
        if big_tokens + len(line.split()) > args.cli_tokens:
            break
        big.append(line)
        big_tokens += len(line.split())

    attackers = {n: z.get_perturbation(n, level=args.level, **OPTIONS.get(n, {})) for n in names}
    for attacker in attackers.values():
        attacker(lines[:50], seed=0)  # load tables outside the timing
    try:
        augs = {label: aug for label, aug in
                nlpaug_augmenters(args.level, args.data / "noise/en.natural").items()
                if label in {COMPARABLE[n] for n in names}}
    except ImportError:
        augs = {}
    for aug in augs.values():
        aug.augment(sub[:20])
    on_cli = [n for n in names if COMPARABLE[n]]

    ours, theirs, command, loads = {}, {}, {}, []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.txt"
        path.write_text("".join(line + "\n" for line in big), encoding="utf-8")
        cli("truncate", args.level, 1, path)  # a first start-up fills the caches of the OS
        for _ in range(args.repeat):
            loads.append(os.getloadavg()[0])
            for name, attacker in attackers.items():
                ours.setdefault(name, []).append(both(lambda: attacker(lines, seed=0)))
            for label, aug in augs.items():
                for j in (1, args.processes):
                    theirs.setdefault((label, j), []).append(
                        both(lambda: aug.augment(sub, num_thread=j)))
            for name in on_cli:
                for j in (1, args.processes):
                    command.setdefault((name, j), []).append(cli(name, args.level, j, path))
            print(f"round {len(loads)} of {args.repeat} done", file=sys.stderr, flush=True)
        loads.append(os.getloadavg()[0])
        many = {name: seconds(lambda: list(attacker.stream(lines, seed=0, processes=args.processes,
                                                            chunksize=512)))
                for name, attacker in attackers.items()}

    def median(runs, i):
        return statistics.median(run[i] for run in runs)

    # tokens per second of wall time (i = 0) and of CPU time (i = 1), medians over the rounds
    rate = {label: sub_tokens / median(s, 0) for (label, j), s in theirs.items() if j == 1}
    cpu_rate = {label: sub_tokens / median(s, 1) for (label, j), s in theirs.items() if j == 1}
    # each tool at its best here: nlpaug's faster of 1 and PROCESSES threads (wall time)
    best_rate = {label: max(sub_tokens / median(s, 0) for (l, _), s in theirs.items()
                            if l == label) for label in rate}
    rows = []
    for name in names:
        ref = COMPARABLE[name]
        one, one_cpu = median(ours[name], 0), median(ours[name], 1)
        walls = [w for w, _ in ours[name]]
        row = {"perturber": name, "tokens_per_s": round(tokens / one),
               "tokens_per_s_range": [round(tokens / max(walls)), round(tokens / min(walls))],
               "cpu_tokens_per_s": round(tokens / one_cpu),
               f"tokens_per_s_{args.processes}proc": round(tokens / many[name]),
               "nlpaug": ref}
        if ref in rate:
            row["nlpaug_tokens_per_s"] = round(rate[ref])
            row["speedup_vs_nlpaug"] = round(tokens / one / rate[ref], 1)
            row["nlpaug_cpu_tokens_per_s"] = round(cpu_rate[ref])
            row["cpu_speedup_vs_nlpaug"] = round(tokens / one_cpu / cpu_rate[ref], 1)
        if ref in rate:
            row[f"nlpaug_j{args.processes}_tokens_per_s"] = round(
                sub_tokens / median(theirs[(ref, args.processes)], 0))
        best_cli = 0.0
        for j in ((1, args.processes) if name in on_cli else ()):
            runs = command[(name, j)]
            wall, cpu = median(runs, 0), median(runs, 1)
            row[f"cli_j{j}_tokens_per_s"] = round(big_tokens / wall)
            row[f"cli_j{j}_cpu_tokens_per_s"] = round(big_tokens / cpu)
            if ref in rate:
                row[f"cli_j{j}_speedup_vs_nlpaug"] = round(big_tokens / wall / rate[ref], 1)
                row[f"cli_j{j}_cpu_speedup_vs_nlpaug"] = round(big_tokens / cpu / cpu_rate[ref],
                                                               1)
            best_cli = max(best_cli, big_tokens / wall)
        if best_cli and ref in rate:
            row["cli_best_speedup_vs_nlpaug_best"] = round(best_cli / best_rate[ref], 1)
        if name in on_cli and len({d for j in (1, args.processes)
                                   for _, _, d in command[(name, j)]}) != 1:
            raise SystemExit(f"{name}: `zeroe perturb` gave different outputs")
        rows.append(row)
    result = {"corpus": recorded(args.corpus, args.data), "lines": len(lines), "tokens": tokens,
              "cli_corpus": [recorded(args.data / p, args.data)
                             for p in (UD_TRAIN, *SNLI, *UD_HELD_OUT, OLID)],
              "cli_lines": len(big), "cli_tokens": big_tokens,
              "nlpaug_lines": len(sub), "nlpaug_tokens": sub_tokens,
              "level": args.level, "processes": args.processes, "repeat": args.repeat,
              "cpu_count": os.cpu_count(), "load_average_1min": loads,
              "python": platform.python_version(),
              # both change what the command line costs: no bytecode cache means every start
              # compiles the package; unbuffered means a write is a system call
              "environment": {k: os.environ.get(k) for k in ENVIRONMENT},
              "options": OPTIONS, "results": rows}
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
