"""``zeroe certify``: certified accuracy of a defended victim on the enumerable attack surface."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ._common import add_fields_option, check_out_file, names


def register(sub) -> None:
    p = sub.add_parser("certify", help="certify a defended victim's predictions",
                       description="For each example of INPUT, whether any choice of perturbed "
                                   "words (one change each, from the enumerable surface) can "
                                   "change a defended victim's prediction. See docs/defend.md.")
    p.add_argument("--task", required=True, choices=["tc", "generic", "nli"], help="the task")
    p.add_argument("--victim", required=True, help="defended:DIR (from `zeroe defend`)")
    p.add_argument("--input", required=True, type=Path, help="the examples")
    add_fields_option(p, "comma-separated text fields (default: the task's)")
    p.add_argument("--surface", type=names, default=None, metavar="F,F,...",
                   help="the families of one-change perturbations covered (default: all)")
    p.add_argument("--max-perturbed", type=float, default=0.3, metavar="RHO",
                   help="the largest share of an example's words that may change (default 0.3)")
    p.add_argument("--max-queries", type=int, default=256,
                   help="victim queries an example may take to check combinations (default 256)")
    p.add_argument("--limit", type=int, default=None, help="the first N examples only")
    p.add_argument("--out", type=Path, default=None, help="write every certificate as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..assets import atomic_write
    from ..defend.certify import SURFACE, Surface, certify
    from ..defend.victim import DefendedVictim
    from ..tasks import get_task
    from ..validate import check_int
    from ..victims import load_victim

    if not 0.0 < args.max_perturbed < 1.0:
        raise ValueError(f"--max-perturbed must be a share in (0, 1), got {args.max_perturbed}")
    check_int("--max-queries", args.max_queries)
    surface = Surface(SURFACE if args.surface is None else args.surface)  # --surface '': none
    if args.out is not None:
        check_out_file(args.out)
    victim = load_victim(args.victim, task=args.task)
    if not isinstance(victim, DefendedVictim):
        raise ValueError(f"certificates are for defended victims (defended:DIR), not {args.victim}")
    task = get_task(args.task)
    ex = task.examples(args.input, task.format_for(args.input, args.fields))
    n = len(ex.inputs) if args.limit is None else check_int("--limit", args.limit)
    summary = certify(victim, ex.inputs[:n], ex.gold[:n], surface,
                      args.max_perturbed, args.max_queries, not args.quiet)
    if args.out is not None:
        atomic_write(args.out, (json.dumps(summary, indent=1, ensure_ascii=False) + "\n").encode())
    short = {k: v for k, v in summary.items() if k != "certificates"}
    print(json.dumps(short, indent=1, ensure_ascii=False))
    print(f"{summary['examples']} examples: clean {summary['clean_accuracy']:.1f}%, certified "
          f"{summary['certified_accuracy']:.1f}%, at most "
          f"{summary['certified_accuracy_at_most']:.1f}% (refuted {summary['refuted']:.1f}%, "
          f"undecided {summary['undecided']:.1f}%)",
          file=sys.stderr)
    return 0
