"""``zeroe search``: a targeted search attack on every example of a dataset file (``zeroe
attack`` is its old name, kept for one release)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..tasks import task_names
from ._common import (add_engine_options, add_fields_option, add_input_option, add_renamed,
                      add_shield_options, cap_processes, names, shield_of)


def register(sub) -> None:
    p = sub.add_parser("search", aliases=["attack"],
                       help="search attack (TextFooler/DeepWordBug style) on a dataset",
                       description="Attack every example of FILE with a search recipe; writes "
                                   "results.jsonl, summary.json, report.md and report.html into "
                                   "DIR. A rerun with the same settings resumes. See "
                                   "docs/search.md.")
    p.add_argument("--task", required=True, choices=task_names(), help="the task of the data")
    p.add_argument("--victim", required=True, help="built-in name, hf:PATH or package.module:object")
    p.add_argument("--victim-path", default=None, help="model file/folder for the victim")
    add_input_option(p, "examples (any file the task reads: .tsv, .csv, .jsonl, .conllu)")
    add_fields_option(p, "comma-separated text fields to attack (default: the task's; for NLI "
                         "the hypothesis only, --fields sentence1,sentence2 both)")
    p.add_argument("--recipe", required=True,
                   help="deepwordbug, pruthi, textfooler-zeroe, zeroe-beam, zeroe-random, "
                        "charmer, bad-characters or zeroe-fast")
    p.add_argument("--perturbers", type=names, default=None, metavar="P,P,...",
                   help="comma-separated perturbers and character operations the search may "
                        "use (default: the recipe's; see docs/search.md)")
    add_renamed(p, ["--transformations"], "--perturbers", "perturbers", type=names)
    p.add_argument("--max-queries", type=int, default=None, metavar="N",
                   help="victim queries per example (default: the recipe's)")
    p.add_argument("--max-perturbed", type=float, default=None, metavar="RHO",
                   help="most words perturbed: a share ρ_max below 1, or a whole number of "
                        "words (default: the recipe's)")
    p.add_argument("--surrogate", default=None, metavar="FILE",
                   help="zeroe-fast: the attacker's own tc-tfidf or generic-tfidf model (zeroe "
                        "bench train-victim) that ranks candidates without queries; charmer: "
                        "one whose strongest words it may also write")
    p.add_argument("--target", default=None, metavar="LABEL",
                   help="targeted attack: the label to reach (default: untargeted)")
    lifts = p.add_argument_group(
        "lifting a defense's assumptions (every recipe; refused where its perturbers cannot)")
    lifts.add_argument("--edit-ends", action="store_true", default=None,
                       help="first and last letters of a word may change too")
    lifts.add_argument("--min-word-length", type=int, default=None, metavar="N",
                       help="the shortest word that may change (default: the recipe's; pruthi 4)")
    lifts.add_argument("--edit-capitals", action="store_true", default=None,
                       help="inserted and substituted letters include A-Z")
    lifts.add_argument("--any-unicode", action="store_true", default=None,
                       help="inserted and substituted letters are any character that draws "
                            "something, and words outside ASCII may change")
    lifts.add_argument("--aware", action="store_true", default=None,
                       help="the attack calls the defense in front of the victim (--shield, "
                            "defended:DIR) freely: a text the model would see as one already "
                            "asked costs no query (white-box on the defense)")
    add_shield_options(p)
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="attack the first N examples only (a larger N later extends the run)")
    p.add_argument("-j", "--processes", type=int, default=1,
                   help="worker processes, at most the CPU cores; results are identical for any "
                        "number (default: 1)")
    add_engine_options(p, "actors, each loading the victim once, with a CPU and a GPU (or a "
                          "share of one) where the cluster has them")
    p.add_argument("--examples-per-worker", type=int, default=1, metavar="N",
                   help="with --engine ray: examples each actor attacks at once, their victim "
                        "queries sent as one call (default 1; above 1, results equal -j 1's for "
                        "victims whose output for a text does not depend on its batch)")
    p.add_argument("--restart", action="store_true",
                   help="discard the results in DIR and start over")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar (there is one only when stderr is a terminal)")
    p.add_argument("--out", required=True, type=Path, metavar="DIR", help="folder for the run")
    p.set_defaults(run=run_search)


RECIPE_LIFTS = ("edit_ends", "min_word_length", "edit_capitals", "any_unicode", "aware")


def recipe_options(args) -> dict:
    """The recipe options given on the command line (the others stay the recipe's, and stay out
    of the run's fingerprint, so runs from before these options existed still resume)."""
    options = {"transformations": args.perturbers or None, "max_queries": args.max_queries,
               "max_perturbed": args.max_perturbed, "target": args.target,
               "surrogate": args.surrogate, **{k: getattr(args, k) for k in RECIPE_LIFTS}}
    return {k: v for k, v in options.items() if v is not None}


def run_search(args) -> int:
    from ..runs import RESULTS
    from ..search.run import PAGE, REPORT, SUMMARY, RunSettings, run

    settings = RunSettings(
        task=args.task, victim=args.victim, data=str(args.input), recipe=args.recipe,
        victim_path=args.victim_path, fields=args.fields,
        options=recipe_options(args), seed=args.seed, limit=args.limit, shield=shield_of(args),
        shield_guess=args.shield_guess)
    if args.engine == "ray":
        from ..integrations.ray_search import RayEngine

        summary = run(settings, args.out, restart=args.restart, progress=not args.quiet,
                      engine=RayEngine(args.workers, args.ray_address,
                                       args.examples_per_worker))
    else:
        summary = run(settings, args.out, cap_processes(args.processes, "search"),
                      args.restart, progress=not args.quiet)

    def pct(key):
        return "—" if summary[key] is None else f"{summary[key]:.1f}%"

    print(f"{summary['examples']} examples: clean {pct('clean_accuracy')}, under attack "
          f"{pct('accuracy_under_attack')}, success {pct('success_rate')}", file=sys.stderr)
    for name in (RESULTS, SUMMARY, REPORT, PAGE):
        print(args.out / name)
    return 0
