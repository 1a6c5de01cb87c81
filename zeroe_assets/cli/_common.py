"""Options shared by subcommands: building an attacker, putting the shield in front of a
victim, and the line-in, line-out streaming of ``zeroe perturb`` and ``zeroe shield``."""
from __future__ import annotations

import argparse
import collections
import itertools
import os
import sys
from pathlib import Path

from ..progress import progress_bar
from ..spec import get_perturbation
from ..protocol import PROTOCOLS, Perturbation
from ..rng import base_seed, sample_rngs


def add_perturb_options(parser: argparse.ArgumentParser, default_level: str = "mid") -> None:
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
                        help="an error (exit 1) instead of a warning when rand or --perturbers "
                             "all would leave out perturbers whose assets are missing")


class _Renamed(argparse.Action):
    """An option's spelling from before 0.2: still accepted for one release, with a one-line
    note naming the new one; it stores (or, for lists, extends) what the new option does."""

    def __init__(self, option_strings, dest, new: str, extend: bool = False, **kwargs):
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)
        self.new, self.extend = new, extend

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: note: {option_string} is now {self.new} (the old spelling goes "
              "in 0.3)", file=sys.stderr)
        if self.extend:
            values = (getattr(namespace, self.dest, None) or []) + values
        setattr(namespace, self.dest, values)


def add_renamed(parser: argparse.ArgumentParser, old: list[str], new: str, dest: str,
                required: bool = False, **kwargs) -> None:
    """Keep the old spelling(s) ``old`` of the option ``new`` working (see `_Renamed`). A
    ``required`` option is declared optional to argparse (either spelling may give it) and
    checked by `check_required` instead."""
    parser.add_argument(*old, dest=dest, action=_Renamed, new=new, **kwargs)
    if required:
        known = parser.get_default("required_options") or ()
        parser.set_defaults(required_options=(*known, (dest, new)))


def check_required(args: argparse.Namespace) -> None:
    """The usage error argparse gives for a missing option, for the options `add_renamed`
    keeps two spellings of."""
    missing = [new for dest, new in getattr(args, "required_options", ())
               if getattr(args, dest, None) is None]
    if missing:
        raise ValueError(f"the following arguments are required: {', '.join(missing)}")


LISTS = ("fields", "perturbers", "shield_perturbers", "surface")  # the options `names` reads


def check_lists(args: argparse.Namespace) -> None:
    """A list option given with no name in it (``--fields ''``, ``--perturbers ,``) is a usage
    error: read as left out, it meant the default (the field ``text``, the recipe's perturbers,
    the whole certificate surface) without a word."""
    for dest in LISTS:
        if getattr(args, dest, None) == []:
            option = "--" + dest.replace("_", "-")
            raise ValueError(f"{option} is empty (none given): name at least one, or leave it "
                             "out for the default")


def names(text: str) -> list[str]:
    """A comma-separated list on the command line (``a,b``; empty items dropped)."""
    return [n.strip() for n in text.split(",") if n.strip()]


def add_fields_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--fields a,b`` (repeatable; ``--field a`` is its old spelling): ``args.fields`` is the
    list, None when not given."""
    parser.add_argument("--fields", type=names, action="extend", default=None, metavar="F,F,...",
                        help=help)
    add_renamed(parser, ["--field"], "--fields", "fields", type=lambda t: [t], extend=True)


def add_input_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--input FILE``, the examples of a command that reads one dataset file (``--data`` is
    its old spelling)."""
    parser.add_argument("--input", type=Path, metavar="FILE", help=help + " (required)")
    add_renamed(parser, ["--data"], "--input", "input", required=True, type=Path)


def check_out_file(path: Path) -> Path:
    """``--out FILE`` of a command that writes its one file at the end of its work (`certify`,
    `bench train-victim`): a folder, or a place that takes no file, is refused before the work,
    by the name given, not after it by a temporary's."""
    from ..assets import check_writable

    if path.is_dir():
        raise ValueError(f"--out {path} is a folder: give the file to write")
    return check_writable(path)


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


def perturb_options(args: argparse.Namespace) -> dict:
    """`get_perturbation`'s keyword arguments from the command line's settings."""
    return dict(level=args.level, phi=args.phi, protocol=args.protocol, strict=args.strict,
                **parse_options(args.option))


def build_perturbation(spec: str, args: argparse.Namespace):
    """The attack ``spec`` with the command line's settings."""
    return get_perturbation(spec, **perturb_options(args))


def add_shield_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shield", action="store_true",
                        help="put the shield (`zeroe shield`) in front of the victim: every input "
                             "is restored before the victim sees it")
    parser.add_argument("--shield-perturbers", type=names, default=None, metavar="P,P,...",
                        help="the perturbers whose attacks the shield undoes, e.g. "
                             "visual,intrude (implies --shield; default: all)")
    add_renamed(parser, ["--shield-mechanisms"], "--shield-perturbers", "shield_perturbers",
                type=names)
    parser.add_argument("--shield-guess", action="store_true",
                        help="the shield reads for a robust encoding behind it (a defended:DIR "
                             "victim): non-words it would leave go to their likeliest word, rare "
                             "words to a neighbour their context calls for (implies --shield)")


def shield_of(args: argparse.Namespace) -> list[str] | None:
    """The restorers of the shield `add_shield_options` asks for, None for no shield."""
    if args.shield_perturbers is not None:
        return args.shield_perturbers
    if args.shield or args.shield_guess:
        from ..shield import MECHANISMS

        return list(MECHANISMS)
    return None


def add_line_options(parser: argparse.ArgumentParser, verb: str) -> None:
    """FILE, ``--jsonl``/``--field``, ``--errors`` and ``-j`` of the line-in, line-out commands
    (``verb``: what they do to a field, for the help)."""
    parser.add_argument("file", nargs="?", default="-", help="input file, - for stdin (default)")
    parser.add_argument("--jsonl", action="store_true", help="input and output are JSON lines")
    add_fields_option(parser, f"comma-separated JSON fields to {verb} with --jsonl (default: "
                              "text)")
    parser.add_argument("--errors", choices=("strict", "replace"), default="strict",
                        help="invalid UTF-8: stop with an error naming the line (strict, default) "
                             "or substitute U+FFFD (replace)")
    parser.add_argument("-j", "--processes", type=int, default=1,
                        help="worker processes; output is identical for any number (default 1)")


def add_engine_options(parser: argparse.ArgumentParser, actors: str) -> None:
    """``--engine local|ray``, ``--ray-address`` and ``--workers`` of the commands that scale
    out on Ray with the output of a local run (``actors``: what the workers are, for the help)."""
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="local: this machine's processes (-j); ray: a Ray cluster, output "
                             "identical (pip install 'zeroe[scale]'; default local)")
    parser.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="with --engine ray: the cluster to join, e.g. ray://head:10001 or "
                             "auto (default: start a local instance of --workers CPUs)")
    parser.add_argument("--workers", type=int, default=2,
                        help=f"with --engine ray: {actors} (default 2)")


def check_line_options(args: argparse.Namespace) -> None:
    """Usage errors of `add_line_options`, before anything slow is built."""
    if args.fields and not args.jsonl:
        raise ValueError("--fields needs --jsonl")


def stream_lines(attack, args: argparse.Namespace, command: str, seed: int = 0,
                 whole_lines: bool = False) -> None:
    """``attack.stream`` over each line of ``args.file`` (or stdin) to stdout: one line out per
    line in, line endings kept, with ``--jsonl`` only the ``--field``s changed; a progress bar
    of the lines on a terminal. ``whole_lines``: each line, ending included, is one sample
    (checked first by ``attack.check(line, where)``), for an attack that reads a line's fields
    together."""
    args.processes = cap_processes(args.processes, command)
    src = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    try:
        if whole_lines:
            outputs = attack.stream((attack.check(text + ending, f"line {number}")
                                     for number, text, ending in _lines(src, args.errors)),
                                    seed=seed, processes=args.processes)
        elif args.jsonl:
            outputs = _jsonl(attack, _lines(src, args.errors), args.fields or ["text"],
                             args.processes, seed)
        elif (args.processes == 1 and type(attack).stream is Perturbation.stream
              and not sys.stdout.isatty()):
            outputs = _plain_here(attack, src, args.errors, seed)
        else:
            outputs = _plain(attack, _lines(src, args.errors), args.processes, seed)
        _write(outputs, sys.stdout, command)
    finally:
        if src is not sys.stdin.buffer:
            src.close()


BATCH = 1024  # output lines per write when stdout is not a terminal


def _write(outputs, out, command: str) -> None:
    """``outputs`` to ``out``, ``BATCH`` lines per write where nobody reads line by line (a
    write and a bar update per line were a tenth of a short run); a line per write on a
    terminal, with a progress bar on a terminal's stderr (tqdm is imported only then). Lines
    produced before a failure are written before it propagates, as one at a time would."""
    size = 1 if out.isatty() else BATCH
    bar = progress_bar(desc=command, unit=" lines") if sys.stderr.isatty() else None
    pending: list[str] = []
    try:
        for line in outputs:
            pending.append(line)
            if len(pending) >= size:
                out.write("".join(pending))
                if bar is not None:
                    bar.update(len(pending))
                pending.clear()
    except BrokenPipeError:  # nobody reads any more (`zeroe … | head`)
        raise
    except BaseException:  # invalid input, Ctrl-C …: what was perturbed before it is out first
        out.write("".join(pending))
        out.flush()
        raise
    else:
        out.write("".join(pending))
        out.flush()
        if bar is not None:  # the last lines count too
            bar.update(len(pending))
    finally:
        if bar is not None:
            bar.close()


def _lines(stream, errors: str, before: int = 0):
    """(number, text, ending) of each line of the binary ``stream``, numbered after ``before``
    lines; invalid UTF-8 is a ValueError naming its line (``errors="strict"``)."""
    for number, raw in enumerate(stream, before + 1):
        body = raw.rstrip(b"\r\n")
        ending = raw[len(body):]
        try:
            text = body.decode("utf-8", errors=errors)
        except UnicodeDecodeError as e:
            raise ValueError(f"line {number} is not valid UTF-8 (byte {e.start}: "
                             f"{body[e.start:e.start + 4]!r}); pass --errors replace to "
                             "substitute U+FFFD") from None
        yield number, text, ending.decode("ascii")


def _plain(attack, lines, processes: int, seed: int):
    endings: collections.deque[str] = collections.deque()

    def texts():
        for _, text, ending in lines:
            endings.append(ending)
            yield text

    for text in attack.stream(texts(), seed=seed, processes=processes):
        yield text + endings.popleft()


def _plain_here(attack, src, errors: str, seed: int):
    """``_plain`` in this process, where output goes out ``BATCH`` lines at a time (not to a
    terminal): what ``attack.stream`` does with one process (each line perturbed with its
    sample's generator), without its layers of generators per line, and reading ``BATCH``
    lines at a time: where each ends in a newline alone and all are valid UTF-8, they are
    decoded and split in one call each instead of one line at a time (`_lines`, which reads
    the others, with the same results and errors)."""
    perturb, rngs, before = attack.perturb, sample_rngs(base_seed(seed)), 0
    while raws := list(itertools.islice(src, BATCH)):
        blob, texts = b"".join(raws), None
        if blob.endswith(b"\n") and b"\r" not in blob:
            try:  # UTF-8 resynchronises at every newline: decoding at once decodes each line
                texts = blob.decode("utf-8", errors).split("\n")
            except UnicodeDecodeError:
                pass  # `_lines` names the line
        if texts is None:
            for (_, text, ending), rng in zip(_lines(raws, errors, before), rngs):
                yield perturb(text, rng) + ending
        else:
            texts.pop()  # after the last newline
            for text, rng in zip(texts, rngs):
                yield perturb(text, rng) + "\n"
        before += len(raws)


def _jsonl(attack, lines, fields, processes: int, seed: int):
    from ..formats import JsonlFormat

    fmt = JsonlFormat(fields)
    records: collections.deque = collections.deque()

    def texts():
        for number, text, ending in lines:
            record = fmt.parse(text + ending, f"line {number}")
            records.append(record)
            yield from record.texts

    # sample i is the i-th field value in reading order: deterministic in any process
    done: list[str] = []

    def finished():
        while records and len(done) >= len(records[0].texts):
            record = records.popleft()
            n = len(record.texts)
            yield fmt.render(record, done[:n])
            del done[:n]

    for changed in attack.stream(texts(), seed=seed, processes=processes):
        done.append(changed)
        yield from finished()
    yield from finished()
