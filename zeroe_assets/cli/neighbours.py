"""``zeroe neighbours CHAR [-k K]`` and ``zeroe neighbours --all [-k K] > table.tsv``: inspect
the visual space, or dump its neighbour table for use without Python; ``--space phonetic`` does
the same for words in the phonetic space."""
from __future__ import annotations

import argparse
import sys


SPACES = ("visual", "phonetic")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "neighbours", help="nearest look-alikes of a character (the visual attack's candidates)",
        description="Print the k nearest neighbours of CHAR in the visual space with their cosine "
                    "similarity (and, where the table measured it, the share of words readers "
                    "read back with each: the attack draws among the most read), or with --all "
                    "the whole table: one line per character, the "
                    "character then its k neighbours, tab-separated and unquoted (\" is a "
                    "character like any other: read it with csv's QUOTE_NONE, pandas' "
                    "quoting=3). Assets: artifacts/visual ($ZEROE_ARTIFACTS overrides).")
    p.add_argument("char", nargs="?", metavar="CHAR",
                   help="one character, e.g. a (with --space phonetic: a word, e.g. night)")
    p.add_argument("--all", action="store_true",
                   help="dump the table for every character (or every word of the phonetic space)")
    p.add_argument("-k", type=int, default=None,
                   help="how many neighbours (default 20; the visual table's k where it was "
                        "exported with fewer)")
    p.add_argument("--space", choices=SPACES, default="visual",
                   help="which space (default visual; phonetic: words by sound, score 1 − phone "
                        "distance)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..visual import load_visual

    if args.all == (args.char is not None):
        raise ValueError("give either one CHAR or --all")
    if args.space == "phonetic":
        return run_phonetic(args)
    space = load_visual()  # missing assets: ArtifactError, reported by `zeroe` with exit 1
    args.k = space.default_n if args.k is None else args.k
    if args.all:
        if not 1 <= args.k <= space.k:
            raise ValueError(f"--all reads the prebuilt table: -k must be between 1 and {space.k}")
        sys.stdout.writelines(
            ch + "\t" + "\t".join(n for n, _ in space.neighbours(ch, args.k)) + "\n"
            for ch in space.chars)
    else:
        reads = space.table.reads  # the export's measure of each neighbour: the attack draws
        row = space.row(args.char)  # among the most read (docs/visual.md)
        for rank, (ch, score) in enumerate(space.neighbours(args.char, args.k), 1):
            read = f"\t{float(reads[row, rank - 1]):.2f}" if reads is not None and rank <= space.k \
                else ""
            print(f"{rank}\t{ch}\tU+{ord(ch):04X}\t{score:.4f}{read}")
    return 0


def run_phonetic(args: argparse.Namespace) -> int:
    """The words that sound most like a word (the sound index of artifacts/phonetic)."""
    from ..phonetic import load_phonetic

    space = load_phonetic()
    args.k = 20 if args.k is None else args.k
    if args.all:
        sys.stdout.writelines(word + "\t" + "\t".join(near) + "\n"
                              for word, near in space.all_neighbours(args.k))
    else:
        for rank, (word, score) in enumerate(space.neighbours(args.char, args.k), 1):
            print(f"{rank}\t{word}\t{score:.4f}")
    return 0
