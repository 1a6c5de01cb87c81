"""``zeroe list``: attackers, what they do, and whether their assets are here."""
from __future__ import annotations

import json
import sys

from ..assets import default_root
from ..assets.store import missing
from ..spec import list_attackers


def register(sub) -> None:
    p = sub.add_parser("list", help="list attackers and whether their assets are available")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args) -> int:
    rows = list_attackers()
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return 0
    for row in rows:
        names = ", ".join([row["name"], *row["aliases"]])
        status = "yes" if row["available"] else f"no ({row['assets']} assets not found)"
        print(f"{names:28} {status:30} {row['description']}")
    print("\nchain with a+b, mix with a|b, per-part levels with name:level; also: rand, mischief")
    for component in sorted({r["assets"] for r in rows if not r["available"]}):
        print(f"{component}: {missing(component, default_root())}")
    return 0
