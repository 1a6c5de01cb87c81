"""``zeroe shield``: line in, line out, each line restored (the I/O of ``zeroe perturb``)."""
from __future__ import annotations

import argparse
import sys

from ..protocol import Perturbation
from ._common import add_line_options, add_renamed, check_line_options, names, stream_lines


def register(sub) -> None:
    p = sub.add_parser("shield", help="undo low-level attacks line by line",
                       description="Restore each line of FILE (or stdin) and write it to stdout: "
                                   "the words the shield is sure were attacked are undone, all "
                                   "else is kept byte for byte. See docs/shield.md.")
    p.add_argument("--perturbers", type=names, default=None, metavar="P,P,...",
                   help="comma-separated perturbers whose attacks to undo (one restorer each), "
                        "e.g. visual,intrude (default: all; a wrong name gets the list)")
    add_renamed(p, ["--mechanisms"], "--perturbers", "perturbers", type=names)
    p.add_argument("--threshold", default=None, metavar="T",
                   help="the ranker probability in [0, 1] a change needs (default: the ranker's)")
    p.add_argument("--no-learned", dest="learned", action="store_false",
                   help="the hand-set ranker even where a learned one is exported")
    add_line_options(p, "restore")
    p.set_defaults(run=run)


class Restoration(Perturbation):
    """The shield as a `Perturbation` that needs no generator, so that `zeroe perturb`'s
    streaming, JSONL fields and ``-j`` serve it unchanged."""

    name = "shield"

    def __init__(self, shield):
        self.shield = shield

    def perturb(self, text, rng):
        return self.shield.restore(text)


def threshold_of(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"--threshold must be a number in [0, 1], got {text!r}") from None


def run(args: argparse.Namespace) -> int:
    from ..shield import get_shield

    check_line_options(args)
    shield = get_shield(args.perturbers, threshold_of(args.threshold),
                        args.learned)
    if not shield.learned:
        print(f"zeroe shield: note: {shield.describe()}", file=sys.stderr)
    stream_lines(Restoration(shield), args, "shield")
    return 0
