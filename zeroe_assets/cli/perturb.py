"""``zeroe perturb``: line in, line out (same number of lines, line endings kept)."""
from __future__ import annotations

import argparse
import collections
import sys

from ._common import add_attack_options, add_strict_option, build_attacker, cap_processes


def register(sub) -> None:
    p = sub.add_parser("perturb", help="attack text line by line",
                       description="Attack each line of FILE (or stdin) and write it to stdout.")
    p.add_argument("file", nargs="?", default="-", help="input file, - for stdin (default)")
    p.add_argument("-a", "--attacker", required=True,
                   help="attacker spec: a name (see `zeroe list`), a+b to chain, a|b to mix")
    add_attack_options(p)
    add_strict_option(p)
    p.add_argument("--jsonl", action="store_true", help="input and output are JSON lines")
    p.add_argument("--field", action="append", default=None,
                   help="JSON field(s) to attack with --jsonl (default: text)")
    p.add_argument("--errors", choices=("strict", "replace"), default="strict",
                   help="invalid UTF-8: stop with an error naming the line (strict, default) "
                        "or substitute U+FFFD (replace)")
    p.add_argument("-j", "--processes", type=int, default=1,
                   help="worker processes; output is identical for any number (default 1)")
    p.set_defaults(run=run)


def _lines(stream, errors: str):
    for number, raw in enumerate(stream, 1):
        body = raw.rstrip(b"\r\n")
        ending = raw[len(body):]
        try:
            text = body.decode("utf-8", errors=errors)
        except UnicodeDecodeError as e:
            raise ValueError(f"line {number} is not valid UTF-8 (byte {e.start}: "
                             f"{body[e.start:e.start + 4]!r}); pass --errors replace to "
                             "substitute U+FFFD") from None
        yield number, text, ending.decode("ascii")


def run(args: argparse.Namespace) -> int:
    if args.field and not args.jsonl:
        raise ValueError("--field needs --jsonl")
    attack = build_attacker(args.attacker, args)
    args.processes = cap_processes(args.processes, "perturb")
    fields = args.field or ["text"]
    src = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    out = sys.stdout
    try:
        if args.jsonl:
            _run_jsonl(attack, _lines(src, args.errors), fields, args, out)
        else:
            endings: collections.deque[str] = collections.deque()

            def texts():
                for _, text, ending in _lines(src, args.errors):
                    endings.append(ending)
                    yield text

            for text in attack.stream(texts(), seed=args.seed, processes=args.processes):
                out.write(text + endings.popleft())
        out.flush()
    finally:
        if src is not sys.stdin.buffer:
            src.close()
    return 0


def _run_jsonl(attack, lines, fields, args, out) -> None:
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

    def flush():
        while records and len(done) >= len(records[0].texts):
            record = records.popleft()
            n = len(record.texts)
            out.write(fmt.render(record, done[:n]))
            del done[:n]

    for perturbed in attack.stream(texts(), seed=args.seed, processes=args.processes):
        done.append(perturbed)
        flush()
    flush()
