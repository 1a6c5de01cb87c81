"""``zeroe demo``: one sample text through every available attacker, side by side."""
from __future__ import annotations

import shutil
import textwrap

from ..attackers import available_names, list_attackers
from ._common import add_attack_options, build_attacker

SAMPLE = ("The quick brown fox jumps over the lazy dog, but the dog doesn't care. "
          "Humans read these perturbed sentences easily; models often fail.")


def register(sub) -> None:
    p = sub.add_parser("demo", help="attack a sample text with every available attacker")
    p.add_argument("--text", default=SAMPLE, help="text to attack (default: a sample sentence)")
    add_attack_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    names = available_names()
    width = max(60, shutil.get_terminal_size((120, 20)).columns - 18)
    print(f"level={args.level} seed={args.seed} protocol={args.protocol}\n")
    for name, text in [("original", args.text)] + [
            (n, build_attacker(n, args)(args.text, seed=args.seed))
            for n in names + ["mischief"]]:
        lines = textwrap.wrap(text, width, drop_whitespace=False) or [""]
        print(f"{name:>15}  {lines[0]}")
        for line in lines[1:]:
            print(f"{'':>15}  {line}")
    missing = [r["name"] for r in list_attackers() if not r["available"]]
    if missing:
        print(f"\nnot available here (assets not built): {', '.join(missing)}")
    return 0
