"""Options shared by subcommands that build an attacker."""
from __future__ import annotations

import argparse
import os
import sys

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


def add_strict_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict", action="store_true",
                        help="an error (exit 1) instead of a warning when rand or --attackers all "
                             "would leave out attackers whose assets are missing")


def cap_processes(processes: int, command: str) -> int:
    """``-j`` beyond the cores this process may use only adds start-up cost: capped there, with a
    one-line note on stderr."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    if processes <= cores:
        return processes
    print(f"zeroe {command}: note: -j {processes} capped at {cores}, the CPU cores available",
          file=sys.stderr)
    return cores


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
                        strict=args.strict, **parse_options(args.option))
