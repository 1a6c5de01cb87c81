"""``zeroe neighbours CHAR [-k K]`` and ``zeroe neighbours --all [-k K] > table.tsv``: inspect
the visual space, or dump its neighbour table for use without Python."""
from __future__ import annotations

import argparse
import sys

from ..assets import ArtifactError

SPACES = ("visual", "phonetic")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "neighbours", help="nearest look-alikes of a character (the visual attack's candidates)",
        description="Print the k nearest neighbours of CHAR in the visual space with their cosine "
                    "similarity, or with --all the whole table: one line per character, the "
                    "character then its k neighbours, tab-separated. Assets: artifacts/visual "
                    "($ZEROE_ARTIFACTS overrides).")
    p.add_argument("char", nargs="?", metavar="CHAR", help="one character, e.g. a")
    p.add_argument("--all", action="store_true", help="dump the table for every character")
    p.add_argument("-k", type=int, default=20, help="how many neighbours (default 20)")
    p.add_argument("--space", choices=SPACES, default="visual", help="which space (default visual)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..perturbers.visual import load_visual

    if args.all == (args.char is not None):
        raise ValueError("give either one CHAR or --all")
    if args.space != "visual":
        raise ValueError(f"the {args.space} space has no character neighbours yet; use --space visual")
    try:
        space = load_visual()
        if args.all:
            if not 1 <= args.k <= space.k:
                raise ValueError(f"--all reads the prebuilt table: -k must be between 1 and {space.k}")
            rows = (space.chars[i] + "\t" + "\t".join(space.neighbours(space.chars[i], args.k)[j][0]
                                                      for j in range(args.k))
                    for i in range(len(space.chars)))
            sys.stdout.writelines(line + "\n" for line in rows)
        else:
            for rank, (ch, score) in enumerate(space.neighbours(args.char, args.k), 1):
                print(f"{rank}\t{ch}\tU+{ord(ch):04X}\t{score:.4f}")
    except ArtifactError as e:
        print(f"zeroe neighbours: {e}", file=sys.stderr)
        return 1
    return 0
