"""``zeroe perturb``: line in, line out (same number of lines, line endings kept)."""
from __future__ import annotations

import argparse

from ._common import (add_attack_options, add_line_options, add_strict_option, build_attacker,
                      check_line_options, stream_lines)


def register(sub) -> None:
    p = sub.add_parser("perturb", help="attack text line by line",
                       description="Attack each line of FILE (or stdin) and write it to stdout.")
    p.add_argument("-a", "--attacker", required=True,
                   help="attacker spec: a name (see `zeroe list`), a+b to chain, a|b to mix")
    add_attack_options(p)
    add_strict_option(p)
    add_line_options(p, "attack")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_line_options(args)
    stream_lines(build_attacker(args.attacker, args), args, "perturb", args.seed)
    return 0
