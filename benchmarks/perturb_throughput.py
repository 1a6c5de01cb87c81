"""Throughput of the rule-based perturbers vs nlpaug's comparable augmenters (JSON on stdout).

Corpus: the sentences of UD English-EWT train (real web English, ~205k tokens), read from
``--data`` or ``--corpus`` (a CoNLL-U file or plain text, one sample per line).
Tokens are whitespace-separated tokens of the corpus, the same count for every tool.

    python benchmarks/perturb_throughput.py [--data DIR | --corpus PATH] [--level 0.5] [--processes 2]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import zeroe_assets as z

ROOT = Path(__file__).resolve().parents[1]
# the datasets' folder, as in conf/paths/default.yaml: $ZEROE_DATA, else data/ in the checkout
DATA = Path(os.environ.get("ZEROE_DATA") or ROOT / "data")
DATA_HELP = "the data folder (default: $ZEROE_DATA, else data/ in the checkout)"
UD_TRAIN = "bench/ud_ewt/en_ewt-ud-train.conllu"  # the default corpus, in the data folder


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
}


def read_corpus(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".conllu":
        return [line[len("# text = "):] for line in text.splitlines() if line.startswith("# text = ")]
    return [line for line in text.splitlines() if line.strip()]


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--corpus", type=Path, default=None, help=f"default: DATA/{UD_TRAIN}")
    parser.add_argument("--level", type=float, default=0.5)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nlpaug-lines", type=int, default=3000,
                        help="nlpaug is slow: time it on this many lines (tokens/s is a rate)")
    args = parser.parse_args()
    args.corpus = args.corpus or args.data / UD_TRAIN
    if not args.corpus.exists():
        sys.exit(f"corpus not found: {args.corpus} (pass --data DIR or --corpus PATH)")
    lines = read_corpus(args.corpus)
    tokens = sum(len(line.split()) for line in lines)
    sub = lines[: args.nlpaug_lines]
    sub_tokens = sum(len(line.split()) for line in sub)

    ours = {}
    for name in COMPARABLE:
        attacker = z.get_perturbation(name, level=args.level)
        attacker(lines[:50], seed=0)  # load tables outside the timing
        one = timed(lambda: attacker(lines, seed=0), args.repeat)
        many = timed(lambda: list(attacker.stream(lines, seed=0, processes=args.processes,
                                                  chunksize=512)), 1)
        ours[name] = {"tokens_per_s": round(tokens / one),
                      f"tokens_per_s_{args.processes}proc": round(tokens / many),
                      "multiprocess_speedup": round(one / many, 2)}

    theirs = {}
    try:
        augs = nlpaug_augmenters(args.level, args.data / "noise/en.natural")
    except ImportError:
        augs = {}
    for label, aug in augs.items():
        aug.augment(sub[:20])
        seconds = timed(lambda: aug.augment(sub), 1)
        theirs[label] = {"tokens_per_s": round(sub_tokens / seconds)}

    rows = []
    for name, ref in COMPARABLE.items():
        row = {"perturber": name, **ours[name], "nlpaug": ref}
        if ref in theirs:
            row["nlpaug_tokens_per_s"] = theirs[ref]["tokens_per_s"]
            row["speedup_vs_nlpaug"] = round(ours[name]["tokens_per_s"] / theirs[ref]["tokens_per_s"], 1)
        rows.append(row)
    json.dump({"corpus": str(args.corpus.name), "lines": len(lines), "tokens": tokens,
               "level": args.level, "processes": args.processes, "cpu_count": os.cpu_count(),
               "python": platform.python_version(), "results": rows}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
