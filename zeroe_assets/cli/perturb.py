"""``zeroe perturb``: line in, line out (same number of lines, line endings kept)."""
from __future__ import annotations

import argparse

from ._common import (add_engine_options, add_perturb_options, add_line_options, add_renamed,
                      add_strict_option, perturb_options, build_perturbation, check_line_options,
                      stream_lines)


def register(sub) -> None:
    p = sub.add_parser("perturb", help="attack text line by line",
                       description="Attack each line of FILE (or stdin) and write it to stdout.")
    p.add_argument("-p", "--perturbers", metavar="SPEC",
                   help="what perturbs: a perturber (see `zeroe list`), a+b to chain, a|b to "
                        "mix, a:low for a part's own level (required)")
    add_renamed(p, ["-a", "--attacker"], "-p/--perturbers", "perturbers", required=True)
    add_perturb_options(p)
    add_strict_option(p)
    add_line_options(p, "attack")
    add_engine_options(p, "perturbing actors, one CPU each")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_line_options(args)
    if args.engine == "ray":
        from ..integrations.ray_data import RayPerturbation

        attack = RayPerturbation(args.perturbers, args.workers, args.ray_address,
                                 **perturb_options(args))
    else:
        attack = build_perturbation(args.perturbers, args)
    stream_lines(attack, args, "perturb", args.seed)
    return 0
