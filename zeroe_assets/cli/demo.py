"""``zeroe demo``: one sample text through every available perturber, side by side."""
from __future__ import annotations

import shutil
import textwrap

from ..registry import NAMES
from ..spec import accepted_options, get_perturbation, perturbers_here
from ._common import add_perturb_options, parse_options

SAMPLE = ("The quick brown fox jumps over the lazy dog, but the dog doesn't care. "
          "Humans read these perturbed sentences easily; models often fail.")


def register(sub) -> None:
    p = sub.add_parser("demo", help="attack a sample text with every available perturber")
    p.add_argument("--text", default=SAMPLE, help="text to attack (default: a sample sentence)")
    add_perturb_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    names = perturbers_here("zeroe demo") + ["mischief"]  # a warning for each left out
    options = parse_options(args.option)  # each attacker gets those it takes
    accepted = {n: accepted_options(n) for n in names}
    unused = set(options).difference(*accepted.values())
    if unused:
        raise ValueError(f"option(s) {', '.join(sorted(unused))} not accepted by any perturber")
    width = max(60, shutil.get_terminal_size((120, 20)).columns - 18)
    print(f"level={args.level} seed={args.seed} protocol={args.protocol}\n")
    rows = [("original", args.text)]
    for n in names:
        attack = get_perturbation(n, level=args.level, phi=None if n == "mischief" else args.phi,
                              protocol=args.protocol,
                              **{k: v for k, v in options.items() if k in accepted[n]})
        rows.append((n, attack(args.text, seed=args.seed)))
    for name, text in rows:
        lines = textwrap.wrap(text, width, drop_whitespace=False) or [""]
        print(f"{name:>15}  {lines[0]}")
        for line in lines[1:]:
            print(f"{'':>15}  {line}")
    missing = [n for n in NAMES if n not in names]
    if missing:
        print(f"\nnot available here (assets missing or corrupt; see `zeroe list`): "
              f"{', '.join(missing)}")
    return 0
