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
    p.add_argument("--guess", action="store_true",
                   help="read for a robust encoding behind the shield: non-words it would leave "
                        "go to their likeliest word, rare words to a neighbour their context "
                        "calls for (docs/shield.md)")
    add_line_options(p, "restore")
    p.add_argument("--anchor", default=None, metavar="FIELD",
                   help="with --jsonl: read each --fields value against this field of its line "
                        "(an NLI hypothesis against its premise), restored first when it is one "
                        "of --fields")
    p.set_defaults(run=run)


class Restoration(Perturbation):
    """The shield as a `Perturbation` that needs no generator, so that `zeroe perturb`'s
    streaming, JSONL fields and ``-j`` serve it unchanged."""

    name = "shield"

    def __init__(self, shield):
        self.shield = shield

    def perturb(self, text, rng):
        return self.shield.restore(text)


class AnchoredRestoration(Perturbation):
    """The shield over whole JSON lines, each field read against the line's ``anchor`` field
    (as `ShieldedVictim` reads a premise and its hypothesis): a line is one sample, so the
    fields of a line travel together through ``-j``'s workers."""

    name = "shield"

    def __init__(self, shield, fields: list[str], anchor: str):
        from ..formats import JsonlFormat

        self.shield, self.restores_anchor = shield, anchor in fields
        # the anchor first: a line's texts are its premise, then the fields read against it
        self.format = JsonlFormat([anchor, *(f for f in fields if f != anchor)])

    def check(self, line: str, where: str) -> str:
        """``line`` if it has every field and the anchor as strings; else an error at ``where``."""
        self.format.parse(line, where)
        return line

    def perturb(self, line, rng):
        record = self.format.parse(line, "a checked line")
        if not record.texts:  # a blank line
            return line
        premise, *texts = record.texts
        if self.restores_anchor:
            premise = self.shield.restore(premise)
        return self.format.render(record, [premise,
                                           *(self.shield.restore(t, premise) for t in texts)])


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
    if args.anchor is not None and not args.jsonl:
        raise ValueError("--anchor needs --jsonl")
    shield = get_shield(args.perturbers, threshold_of(args.threshold),
                        args.learned, guess=args.guess)
    if not shield.learned:
        print(f"zeroe shield: note: {shield.describe()}", file=sys.stderr)
    if args.anchor is None:
        stream_lines(Restoration(shield), args, "shield")
    else:
        stream_lines(AnchoredRestoration(shield, args.fields or ["text"], args.anchor), args,
                     "shield", whole_lines=True)
    return 0
