"""``zeroe list``: attackers, what they do, and whether their assets are here and intact (every
file is checked against its sha256, as loading would)."""
from __future__ import annotations

import json
import sys

from ..registry import unavailable_reason
from ..spec import list_perturbers


def register(sub) -> None:
    p = sub.add_parser("list", help="list perturbers and whether their assets are available")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args) -> int:
    rows = list_perturbers()
    for row in rows:
        row["problem"] = unavailable_reason(row["name"], verify=True)
        row["available"] = not row["problem"]
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return 0
    for row in rows:
        names = ", ".join([row["name"], *row["aliases"]])
        status = "yes" if row["available"] else f"no ({row['assets']} assets: see below)"
        print(f"{names:28} {status:30} {row['description']}")
    print("\nchain with a+b, mix with a|b, per-part levels with name:level; also: rand, mischief")
    problems = {r["assets"] or r["name"]: r["problem"] for r in rows if r["problem"]}
    for what, problem in sorted(problems.items()):
        print(f"{what}: {problem}")
    return 0
