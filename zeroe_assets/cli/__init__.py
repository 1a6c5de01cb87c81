"""The ``zeroe`` command. Each subcommand is a module here with ``register(subparsers)``."""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from ..validate import check_seed
from ._common import check_lists, check_required

RENAMED = {"attack": "search"}  # commands' names before 0.2, kept for one release
# Subcommand modules, in the order `zeroe --help` lists them.
COMMANDS = ("demo", "perturb", "shield", "list", "neighbours", "g2p", "search", "defend",
            "certify", "bench")
# The exit status of each failure (docs/reliability.md), the first that matches; 75 is sysexits'
# EX_TEMPFAIL, "try again later". Each class is named by its module, looked up only when
# something failed: one whose module was never imported cannot have been raised, and a run
# that needs no victim or run folder does not import them (their imports were a third of
# `zeroe perturb`'s start).
EXIT_STATUS = (("zeroe_assets.assets.store", "ArtifactError", 1),
               ("zeroe_assets.victims", "VictimError", 3), ("zeroe_assets.runs", "FolderBusy", 75),
               ("builtins", "ValueError", 2), ("builtins", "OSError", 2))


def exit_status(error: BaseException) -> int | None:
    """The exit status of ``error`` by `EXIT_STATUS`, None for an error it does not list."""
    for module, name, status in EXIT_STATUS:
        kind = getattr(sys.modules.get(module), name, None)
        if kind is not None and isinstance(error, kind):
            return status
    return None


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked (`zeroe_assets.__getattr__`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from .. import __version__

        print(f"zeroe {__version__}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of ``only`` (one of ``COMMANDS``): registering a
    command imports its module and what its options need (the defences' pull in numpy), which
    a run of another command does not need."""
    parser = argparse.ArgumentParser(
        prog="zeroe", description="Zéroe low-level adversarial attacks (Eger & Benz 2020).")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS if only is None else (only,):
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
    argv = sys.argv[1:] if argv is None else [*argv]  # (`list` here is the list command)
    # `zeroe COMMAND ...`: only COMMAND's parser (its usage errors and help are the same)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
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
        check_lists(args)
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
    except Exception as e:
        status = exit_status(e)
        if status is None:
            raise
        print(f"zeroe {command}: error: {e}", file=sys.stderr)
        return status


if __name__ == "__main__":
    sys.exit(main())
