"""``zeroe g2p WORD…`` and ``zeroe p2g "PH ON E M Z"…``: n-best output of the exported seq2seq models.

torch is imported only when one of these commands runs. An input with a symbol the model never
saw is reported on stderr (one line each) and the others are answered; the exit status is then 1.
"""
from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    for name, what, outputs, example in (
            ("g2p", "word", "pronunciations of words", "phonetic"),
            ("p2g", "pronunciation", "spellings of pronunciations", "'F AH0 N EH1 T IH0 K'")):
        p = subparsers.add_parser(
            name, help=f"n-best {outputs}",
            description=f"The n-best {outputs} from the exported {name.upper()} model "
                        f"(artifacts/phonetic/seq2seq; $ZEROE_ARTIFACTS overrides). "
                        f"Example: zeroe {name} {example}",
            epilog="Exit status: 0 if every input was answered, 1 if some had a symbol the "
                   "model does not know (each named on stderr), 2 for a usage error.")
        p.add_argument("inputs", nargs="+", metavar=what.upper(),
                       help="a word" if name == "g2p" else
                       "phones separated by spaces, one quoted argument per pronunciation "
                       "(ARPAbet stress digits are ignored by a stress-free model)")
        p.add_argument("-n", type=int, default=3, help="how many outputs per input (default 3)")
        p.add_argument("--beam", type=int, default=5, help="beam width, at least n (default 5)")
        p.add_argument("--json", action="store_true", help="one JSON object per input")
        p.set_defaults(run=run, direction=name)


def run(args: argparse.Namespace) -> int:
    try:
        from ..phonetic.seq2seq import load_transliterator
    except ImportError as e:
        raise ValueError(f"zeroe {args.direction} runs the seq2seq models, which need torch "
                         f"(pip install torch==2.13.0, or the [train] extra): {e}") from None

    if args.n < 1:
        raise ValueError("-n must be at least 1")
    model = load_transliterator(args.direction)
    joiner = "" if args.direction == "p2g" else " "
    known = []
    for text in args.inputs:
        tokens = model.tokens(text)
        unknown = sorted(set(tokens) - model.src_vocab.index.keys())
        if tokens and not unknown:
            known.append((text, tokens))
        else:
            why = f"unknown symbol(s) {' '.join(unknown)}" if unknown else "empty input"
            print(f"zeroe {args.direction}: {text!r} not answered: {why}", file=sys.stderr)
    results = model.translate([tokens for _, tokens in known], n=args.n,
                              beam=max(args.beam, args.n)) if known else []
    for (text, _), hyps in zip(known, results):
        outputs = [{"output": joiner.join(h.tokens), "score": round(h.score, 4)} for h in hyps]
        if args.json:
            print(json.dumps({"input": text, "nbest": outputs}, ensure_ascii=False))
        else:
            print(text)
            for o in outputs:
                print(f"  {o['score']:9.4f}  {o['output']}")
    return 0 if len(known) == len(args.inputs) else 1
