"""The defender table: classification victims, clean and adversarially trained, under
``textfooler-zeroe`` with the defender benchmark's constraints (Li et al. 2021: ρ_max = 0.3,
K = 50 candidates per word, Q_max = K·L).

Rows: TF-IDF on OLID (toxicity) and SNLI (NLI victims train on SNLI dev), trained on clean data
and adversarially, 1-1 (one attacker, its levels mixed) and leave-one-out (all other attackers)
for every attacker (paper §4.3); the fine-tuned MiniLM victims of ``python -m train.victim``
when their ``hf:`` directories are given; with ``--shield``, the rows it names again behind the
shield (``zeroe search --shield``: an adaptive attacker, whose every query goes through the
shield). Clean% is on the whole test set, the attack metrics on a seeded sample of it, as the
defender benchmark does. Runs resume (``zeroe search``'s run folders), and rows of the results
file that a run does not compute again (same recipe, seed, test set and sample) are kept; each
row records the date and commit it was measured on, so a table of kept and rerun rows says which
is which; prints JSON, writes ``benchmarks/results/defender_table.json`` and ``docs/defender.md``.

    python benchmarks/defender_table.py [--examples 500] [--adv 1-1,loo]
        [--minilm tc=runs/victim/minilm-olid/hf --minilm nli=runs/victim/minilm-snli/hf]
        [--shield tfidf,tfidf-loo-visual --shield-examples 100]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import textwrap
import time
from pathlib import Path

from paper_grid import LEVELS, olid_test_with_labels, train
from perturb_throughput import DATA, DATA_HELP, recorded
from shield_accuracy import commit
from zeroe_assets.assets import atomic_write
from zeroe_assets.bench import generate as gen
from zeroe_assets.search.run import RunSettings, run
from zeroe_assets.shield import MECHANISMS, ShieldedVictim, get_shield
from zeroe_assets.tasks import get_task
from zeroe_assets.victims import load_victim

ROOT = Path(__file__).resolve().parents[1]
RECIPE, OPTIONS = "textfooler-zeroe", {"max_perturbed": 0.3}  # K = 50, Q_max = K·L: the recipe's
TFIDF = {"tc": "tc-tfidf", "nli": "nli-tfidf"}
NAMES = {"tc": "OLID (toxicity)", "nli": "SNLI"}
OLID_TEST = "$ZEROE_DATA/bench/olid/testset-levela.tsv joined with labels-levela.csv"


def sample(test: Path, task: str, n: int, seed: int, out: Path) -> Path:
    """The first ``n`` labelled examples of a seeded shuffle of ``test``, written with its header
    (the attack's input)."""
    spec = get_task(task)
    fmt = spec.format_for(test)
    records = list(fmt.read(test))
    header = [r.raw for r in records if not r.texts][:1]
    labelled = [r.raw for r in records if r.texts and spec.example(r, fmt) is not None]
    random.Random(seed).shuffle(labelled)
    atomic_write(out, "".join(header + labelled[:n]).encode())
    return out


def clean_accuracy(task: str, victim, test: Path) -> float:
    """Clean% over the whole test set (for tc: the 0.5 threshold on the positive class)."""
    spec = get_task(task)
    ex = spec.examples(test, spec.format_for(test))
    out = []
    for i in range(0, len(ex.inputs), 256):
        out.extend(victim.predict(ex.inputs[i:i + 256]))
    if spec.outputs == "scores":
        out = [int(p >= 0.5) for p in out]
    return 100.0 * sum(str(g) == str(p) for g, p in zip(ex.gold, out)) / len(ex.gold)


def rows_of(task, key, spec, path, test, attacked, work, args) -> dict[str, dict]:
    """The row of a victim (``key``: model, then its training) and, when ``--shield`` names
    it, its shielded twin (``MODEL+shield TRAINING``: the first ``--shield-examples`` of the
    sample, attacked through the shield)."""
    name = key.replace(" ", "-")
    rows = {key: attack(task, name, spec, path, test, attacked, work, args)}
    if args.shield == "all" or name in args.shield.split(","):
        model, _, training = key.partition(" ")
        rows[" ".join(filter(None, [f"{model}+shield", training]))] = attack(
            task, f"{name}-shield", spec, path, test, attacked, work, args, shielded=True)
    return rows


def attack(task, name, spec, path, test, attacked, work, args, shielded=False) -> dict:
    """One row: Clean% on the whole test set, the attack's metrics on the sample (behind the
    shield, on its first ``--shield-examples``)."""
    victim = load_victim(spec, path)
    if shielded:
        victim = ShieldedVictim(victim, task, get_shield(MECHANISMS), spec)
    clean = clean_accuracy(task, victim, test)
    settings = RunSettings(task, spec, str(attacked), RECIPE,
                           victim_path=str(path) if path else None, options=OPTIONS,
                           seed=args.seed, limit=args.shield_examples if shielded else None,
                           shield=list(MECHANISMS) if shielded else None)
    start = time.perf_counter()
    summary = run(settings, work / "runs" / task / name, processes=args.processes)
    print(f"{task} {name}: clean {clean:.1f}%, Aua {summary['accuracy_under_attack']:.1f}%, "
          f"Suc {summary['success_rate']:.1f}% ({time.perf_counter() - start:.0f}s)",
          file=sys.stderr, flush=True)
    keep = ("accuracy_under_attack", "success_rate", "queries", "perturbed_words",
            "edit_distance", "examples", "counts")
    return {"victim": name, "clean_accuracy": round(clean, 2),
            "attacked_clean_accuracy": summary["clean_accuracy"],
            **{k: summary[k] for k in keep}, "seconds": summary["timing"],
            "measured": args.measured}


def adversarial(task, train_path, mode, work, args) -> dict[str, Path]:
    """The adversarially trained TF-IDF victims of ``mode``: attacker α → model file."""
    attackers = gen.resolve_perturbers(task, "all")
    jobs = gen.plan(task, {"train": train_path}, attackers, LEVELS, work / f"{task}-{mode}",
                    args.seed, mode=mode)
    gen.run(jobs, args.processes)
    models = {}
    for alpha, job in zip(attackers, jobs):
        model = work / task / f"{mode}_{alpha}.joblib"
        train(task, TFIDF[task], Path(job.output), model)
        models[alpha] = model
    return models


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-defender"))
    parser.add_argument("--examples", type=int, default=500,
                        help="attacked examples per victim, a seeded sample (default: 500)")
    parser.add_argument("--tasks", default="tc,nli")
    parser.add_argument("--adv", default="1-1,loo", help="adversarial training modes ('' none)")
    parser.add_argument("--minilm", action="append", default=[], metavar="TASK[:MODE:ALPHA]=DIR",
                        help="a fine-tuned MiniLM hf: directory for a task (python -m "
                             "train.victim experiment=victim_minilm_olid / _snli), or an "
                             "adversarially trained one, e.g. nli:loo:visual=DIR")
    parser.add_argument("--minilm-examples", type=int, default=100,
                        help="attacked examples for the MiniLM victims, the first of the same "
                             "sample (default: 100; they answer ~50x slower than TF-IDF on CPU)")
    parser.add_argument("--shield", default="", metavar="ROW,ROW,...|all",
                        help="rows to add behind the shield too, by their run folder's name "
                             "(tfidf, tfidf-1-1-visual, tfidf-loo-visual, minilm, "
                             "minilm-loo-visual...) or all (default: none)")
    parser.add_argument("--shield-examples", type=int, default=None,
                        help="attacked examples for the shielded victims, the first of the same "
                             "sample (default: all of it; every query passes the shield)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-j", "--processes", type=int, default=1)
    args = parser.parse_args()
    # read once, before the run writes its results into the tree
    args.measured = {"date": time.strftime("%Y-%m-%d", time.gmtime()), "commit": commit()}
    data, work = args.data / "bench", args.work
    if not data.exists():
        sys.exit(f"benchmark data not found at {data} (pass --data DIR or set ZEROE_DATA)")
    setups = {"tc": (olid_test_with_labels(data, work), data / "olid/olid-training-v1.0.tsv"),
              "nli": (data / "snli/snli_test.tsv", data / "snli/snli_dev.tsv")}
    minilm: dict[str, dict[str, str]] = {}
    for value in args.minilm:
        key, _, path = value.partition("=")
        task, _, variant = key.partition(":")
        minilm.setdefault(task, {})[variant] = path
    out = ROOT / "benchmarks" / "results" / "defender_table.json"
    names = {"tfidf", *(f"tfidf-{mode}-{alpha}" for task in args.tasks.split(",")
                        for mode in filter(None, args.adv.split(","))
                        for alpha in gen.resolve_perturbers(task, "all")),
             *("-".join(["minilm", *filter(None, v.partition("=")[0].partition(":")[2]
                                           .split(":"))]) for v in args.minilm)}
    unknown = set(filter(None, args.shield.split(","))) - names - {"all"}
    if unknown:
        sys.exit(f"--shield: no such row {', '.join(sorted(unknown))} (rows: "
                 f"{', '.join(sorted(names))})")
    table = {"recipe": RECIPE, "options": OPTIONS, "seed": args.seed, "tasks": {}}
    before = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    if any(before.get(k) != table[k] for k in ("recipe", "options", "seed")):
        before = {}
    if args.shield:
        shield = get_shield(MECHANISMS)
        table["shield"] = {"describe": shield.describe(), "learned": shield.learned,
                           "examples": args.shield_examples}
    elif "shield" in before:
        table["shield"] = before["shield"]
    table["tasks"] = dict(before.get("tasks", {}))
    for task in args.tasks.split(","):
        test, train_path = setups[task]
        attacked = sample(test, task, args.examples, args.seed, work / task / "attacked.tsv")
        entry = {"test": OLID_TEST if task == "tc" else recorded(test, args.data),
                 "train": recorded(train_path, args.data), "attacked_examples": args.examples,
                 "minilm_examples": args.minilm_examples if task in minilm else None}
        kept = table["tasks"].get(task, {})
        if any(kept.get(k) != entry[k] for k in ("test", "train", "attacked_examples")):
            kept = {}
        entry["minilm_examples"] = entry["minilm_examples"] or kept.get("minilm_examples")
        rows = entry["rows"] = dict(kept.get("rows", {}))  # computed rows replace kept ones
        clean_model = work / task / f"{TFIDF[task]}.joblib"
        train(task, TFIDF[task], train_path, clean_model)
        rows.update(rows_of(task, "tfidf", TFIDF[task], clean_model, test, attacked, work,
                            args))
        for mode in filter(None, args.adv.split(",")):
            for alpha, model in adversarial(task, train_path, mode, work, args).items():
                rows.update(rows_of(task, f"tfidf {mode} {alpha}", TFIDF[task], model, test,
                                    attacked, work, args))
        if task in minilm:
            few = sample(test, task, args.minilm_examples, args.seed,
                         work / task / "attacked_minilm.tsv")
        for variant, path in minilm.get(task, {}).items():
            key = " ".join(["minilm", *filter(None, variant.split(":"))])
            rows.update(rows_of(task, key, f"hf:{path}", None, test, few, work, args))
        table["tasks"][task] = entry
    atomic_write(out, json.dumps(table, indent=1).encode() + b"\n")
    atomic_write(ROOT / "docs" / "defender.md", markdown(table).encode())
    json.dump(table, sys.stdout, indent=1)
    print()


def _f(value, digits=1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def measured(rows: dict[str, dict]) -> list[str]:
    """Which rows were measured when, on which code (rows kept from older runs are not what a
    rerun of today's code gives): one phrase per date and commit, its rows as the table groups
    them."""
    runs: dict[str, dict[str, int]] = {}
    for key, row in rows.items():
        when = row.get("measured")
        code = when and (when["commit"][:7] + (" + uncommitted changes"
                                               if "uncommitted" in when["commit"] else ""))
        run_ = f"{when['date']} at `{code}`" if when else "an unrecorded date and commit"
        model, _, rest = key.partition(" ")
        group = " ".join(filter(None, [model, rest.split(" ")[0]]))
        counts = runs.setdefault(run_, {})
        counts[group] = counts.get(group, 0) + 1
    return [f"{run_} ({', '.join(g + (f' ×{n}' if n > 1 else '') for g, n in counts.items())})"
            for run_, counts in runs.items()]


def markdown(table: dict) -> str:
    """docs/defender.md: the defender benchmark's four metrics per victim, 1-1 and LOO as the
    mean (and range) over the held-in/held-out attacker, every row in the details."""
    lines = ["# The defender table", "",
             f"Victims under `{table['recipe']}` (ρ_max = 0.3, K = 50 candidates per word, "
             "Q_max = K·L; stopwords and @USER/URL left alone), the defender benchmark's metrics "
             "(Li et al. 2021) counted as TextAttack counts them ([search.md](search.md)): "
             "Clean% on the whole test set; Aua%, Suc% and #Query on a seeded sample. "
             "Reproduce: `python benchmarks/defender_table.py` (raw numbers: "
             "[../benchmarks/results/defender_table.json](../benchmarks/results/defender_table.json)).",
             "", "Hardened victims (`zeroe defend`: robust encodings, monotone victims, "
             "certificates), attacked through the defense, are in [defend.md](defend.md).", ""]
    if "shield" in table:
        few = table["shield"]["examples"]
        lines += [f"`+shield`: the same victim behind the shield (`zeroe search --shield`, "
                  f"{table['shield']['describe']}), attacked by an adaptive attacker: it "
                  "queries the shielded victim, and every query counts"
                  + (f"; the first {few} examples of the sample." if few else "."), ""]
    for task, entry in table["tasks"].items():
        rows = entry["rows"]
        lines += [f"## {NAMES[task]}", "",
                  f"Test set `{entry['test']}`, trained on `{entry['train']}`; "
                  f"{entry['attacked_examples']} attacked examples (MiniLM: the first "
                  f"{entry['minilm_examples']} of them)." if entry["minilm_examples"] else
                  f"{entry['attacked_examples']} attacked examples.", "",
                  "| victim | training | Clean% | Aua% | Suc% | #Query | perturbed words % |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        groups: dict[tuple[str, str], list[dict]] = {}
        for key, row in rows.items():
            model, _, rest = key.partition(" ")
            groups.setdefault((model, rest.split(" ")[0] if rest else "clean"), []).append(row)
        for (model, training), members in groups.items():
            def cell(k, members=members):
                values = [m[k] for m in members if m[k] is not None]
                if len(values) <= 1:
                    return _f(values[0] if values else None)
                return f"{statistics.mean(values):.1f} ({min(values):.1f}–{max(values):.1f})"
            label = (f"{training} (mean over {len(members)})" if len(members) > 1 else
                     next(k for k, r in rows.items() if r is members[0]).partition(" ")[2]
                     or training)
            lines.append(f"| {model} | {label} | {cell('clean_accuracy')} | "
                         f"{cell('accuracy_under_attack')} | {cell('success_rate')} | "
                         f"{cell('queries')} | {cell('perturbed_words')} |")
        lines += textwrap.wrap("Measured: " + "; ".join(measured(rows)) + ".", 100) + [""]
        details = [(k, r) for k, r in rows.items() if " " in k]
        if details:
            lines += ["<details><summary>every adversarially trained victim</summary>", "",
                      "| victim | Clean% | Aua% | Suc% | #Query |", "|---|---:|---:|---:|---:|"]
            lines += [f"| {k} | {_f(r['clean_accuracy'])} | {_f(r['accuracy_under_attack'])} | "
                      f"{_f(r['success_rate'])} | {_f(r['queries'])} |" for k, r in details]
            lines += ["", "</details>", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
