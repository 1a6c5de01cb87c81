"""Options shared by subcommands that build an attacker."""
from __future__ import annotations

import argparse

from ..spec import get_attacker
from ..protocol import PROTOCOLS


def add_attack_options(parser: argparse.ArgumentParser, default_level: str = "mid") -> None:
    parser.add_argument("-l", "--level", default=default_level,
                        help="word perturbation probability p: low, mid, high or a number in "
                             f"[0, 1] (default {default_level})")
    parser.add_argument("--phi", default=None, help="character-level probability φ (default p)")
    parser.add_argument("--protocol", choices=PROTOCOLS, default="paper",
                        help="paper: coin flip per drawn word (§3.1); reference: the original "
                             "code's behaviour (default paper)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="perturber option, e.g. layout=PATH, source=PATH, top_n=10, r=0.3")


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``-o KEY=VALUE`` pairs as text; each perturber converts them to its parameters' types."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"options are KEY=VALUE, got {pair!r}")
        if key.strip() in ("level", "phi", "protocol", "seed"):
            raise ValueError(f"{key.strip()} is not a perturber option: use --{key.strip()}")
        options[key.strip()] = value
    return options


def build_attacker(spec: str, args: argparse.Namespace):
    """The attack ``spec`` with the command line's settings."""
    return get_attacker(spec, level=args.level, phi=args.phi, protocol=args.protocol,
                        **parse_options(args.option))
