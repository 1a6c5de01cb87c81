"""Speed of the visual runtime (JSON on stdout): asset load time in a fresh process, perturber
throughput at p = φ = 0.5 through the Zéroe protocol, artifact sizes and the recorded export time.

    python benchmarks/visual_speed.py [--data DIR | --corpus PATH] [--repeat 3] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from perturb_throughput import DATA, DATA_HELP, UD_TRAIN, read_corpus, recorded, timed

import zeroe_assets as z
from zeroe_assets.assets import default_root, read_manifest

LOAD = ("import time; t = time.perf_counter(); import zeroe_assets.perturbers.visual as v; "
        "i = time.perf_counter(); v.VisualPerturber(); e = time.perf_counter(); "
        "print(e - t, e - i)")


def load_seconds(repeat: int) -> dict:
    """Best of ``repeat`` fresh processes: import + load, and the load alone (checksums included)."""
    runs = [tuple(map(float, subprocess.run([sys.executable, "-c", LOAD], capture_output=True,
                                            text=True, check=True).stdout.split()))
            for _ in range(repeat)]
    return {"import_and_load_s": round(min(r[0] for r in runs), 3),
            "load_s": round(min(r[1] for r in runs), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    ap.add_argument("--corpus", type=Path, default=None, help=f"default: DATA/{UD_TRAIN}")
    ap.add_argument("--level", type=float, default=0.5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()
    args.corpus = args.corpus or args.data / UD_TRAIN

    texts = read_corpus(args.corpus)
    tokens = sum(len(t.split()) for t in texts)
    attacker = z.get_perturbation("visual", level=args.level)
    attacker(texts[:100], seed=0)  # warm the per-character candidate cache
    seconds = timed(lambda: attacker(texts, seed=0), args.repeat)
    entry = read_manifest()["components"]["visual"]
    result = {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "corpus": {"path": recorded(args.corpus, args.data), "samples": len(texts), "tokens": tokens},
        "perturber": {"level": args.level, "phi": args.level, "seconds": round(seconds, 3),
                      "tokens_per_s": round(tokens / seconds)},
        "assets": {**load_seconds(args.repeat), "root": str(default_root()),
                   "bytes": {rel: f["bytes"] for rel, f in entry["files"].items()},
                   "total_mb": round(sum(f["bytes"] for f in entry["files"].values()) / 1e6, 2)},
        "export_s": entry["meta"].get("export_seconds"),
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
