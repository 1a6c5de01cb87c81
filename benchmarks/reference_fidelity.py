"""How strongly each attacker changes held-out clean text under both protocols (docs/differences.md).

The three statistics the comparison with the original code's attacked documents used, computed
the same way for every attacker: normalised character edit distance per sentence (rapidfuzz's
Levenshtein), the share of whitespace tokens changed (position by position), and the share of
sentences that keep their whitespace token count. Input: the first ``--sentences`` sentences of
UD English-EWT test (held out from every training job), detokenized by their ``# text`` line.

    python benchmarks/reference_fidelity.py [--level 0.3] [--sentences 400] [--natural PATH]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rapidfuzz.distance import Levenshtein

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perturb_throughput import DATA, DATA_HELP, ROOT, recorded  # noqa: E402

import zeroe_assets as z  # noqa: E402

UD_TEST = "bench/ud_ewt/en_ewt-ud-test.conllu"
OUT = ROOT / "benchmarks" / "results" / "reference_fidelity.json"


def sentences(path: Path, n: int) -> list[str]:
    """The ``# text`` lines of a CoNLL-U file: sentences as written, not re-joined tokens."""
    found = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# text = "):
                found.append(line[len("# text = "):].rstrip("\n"))
                if len(found) == n:
                    break
    return found


def statistics(clean: list[str], attacked: list[str]) -> dict:
    tokens = changed = kept = 0
    distance = 0.0
    for a, b in zip(clean, attacked):
        distance += Levenshtein.normalized_distance(a, b)
        ta, tb = a.split(), b.split()
        tokens += len(ta)
        changed += sum(x != y for x, y in zip(ta, tb)) + abs(len(ta) - len(tb))
        kept += len(ta) == len(tb)
    n = len(clean)
    return {"edit_distance": round(distance / n, 3), "tokens_changed": round(changed / tokens, 3),
            "keep_token_count": round(kept / n, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--level", type=float, default=0.3)
    parser.add_argument("--sentences", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--natural", type=Path, default=None,
                        help="natural-typo's source (default: DATA/noise/en.natural when present)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    path = args.data / UD_TEST
    if not path.is_file():
        sys.exit(f"{path} not found: pass --data DIR or set ZEROE_DATA")
    clean = sentences(path, args.sentences)
    natural = args.natural or (args.data / "noise/en.natural")
    rows = {}
    for name in z.available_names():
        options = {"source": str(natural)} if name == "natural-typo" and natural.is_file() else {}
        rows[name] = {protocol: statistics(clean, z.perturb(clean, name, level=args.level,
                                                           seed=args.seed, protocol=protocol,
                                                           **options))
                      for protocol in z.PROTOCOLS}
        rows[name]["options"] = {k: Path(v).name for k, v in options.items()}
        print(name, json.dumps(rows[name]), file=sys.stderr, flush=True)
    result = {"corpus": recorded(path, args.data), "sentences": len(clean), "level": args.level,
              "seed": args.seed, "attackers": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
