"""The ``zeroe`` command. Each subcommand is a module here with ``register(subparsers)``."""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from ..assets import ArtifactError
from ..runs import FolderBusy
from ..validate import check_seed
from ..victims import VictimError
from ._common import check_required

RENAMED = {"attack": "search"}  # commands' names before 0.2, kept for one release
# Subcommand modules, in the order `zeroe --help` lists them.
COMMANDS = ("demo", "perturb", "shield", "list", "neighbours", "g2p", "search", "defend",
            "certify", "bench")
# The exit status of each failure (docs/reliability.md), the first that matches; 75 is sysexits'
# EX_TEMPFAIL, "try again later".
EXIT_STATUS = ((ArtifactError, 1), (VictimError, 3), (FolderBusy, 75), (ValueError, 2),
               (OSError, 2))


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked (`zeroe_assets.__getattr__`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from .. import __version__

        print(f"zeroe {__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zeroe", description="Zéroe low-level adversarial attacks (Eger & Benz 2020).")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def _one_line(message, category, filename, lineno, file=None, line=None):
    """Warnings as ``zeroe: warning: …`` on stderr, without Python's source line."""
    print(f"zeroe: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: list[str] | None = None) -> int:
    """Entry point: usage errors exit 2 with a message on stderr (argparse's convention), missing
    or corrupt assets exit 1 with the command that rebuilds them, a victim that fails exits 3, a
    run folder another process writes exits 75 (sysexits' "try again later"), Ctrl-C exits 130;
    each is one line, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in RENAMED:
        print(f"zeroe: note: `zeroe {args.command}` is now `zeroe {RENAMED[args.command]}` (the "
              "old name goes in 0.3)", file=sys.stderr)
        args.command = RENAMED[args.command]
    command = " ".join(filter(None, (args.command, getattr(args, "bench_command", None))))
    if sys.stdout is None:  # started with stdout closed (`zeroe ... >&-`)
        print(f"zeroe {command}: error: standard output is closed", file=sys.stderr)
        return 2
    try:
        check_required(args)
        if hasattr(args, "seed"):  # every --seed: refused before anything runs
            check_seed(args.seed)
        with warnings.catch_warnings():
            warnings.showwarning = _one_line
            return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print(f"zeroe {command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `zeroe ... | head`
        return 0
    except tuple(kind for kind, _ in EXIT_STATUS) as e:
        print(f"zeroe {command}: error: {e}", file=sys.stderr)
        return next(status for kind, status in EXIT_STATUS if isinstance(e, kind))


if __name__ == "__main__":
    sys.exit(main())
