"""Our search recipes vs TextAttack 0.3.11's, side by side (JSON on stdout and in results/).

One run, one victim (``tc-tfidf`` trained on OLID train, seed 0), the same first N OLID test
tweets and the same query budget per example (``--dataset mr``: ``generic-tfidf`` trained on
the Rotten Tomatoes movie-review sentences of ``sentiment_data.py``, the first N of its test
split; the splits are written into ``--work``, never into the repository): TextAttack's
``DeepWordBugGao2018`` and ``Pruthi2019`` through its ``Attacker``, and our ``deepwordbug``,
``pruthi``, ``textfooler-zeroe`` (all ten Zéroe transformations) and ``zeroe-random`` (no
search); on
request (``--recipes``) ``charmer``, ``bad-characters`` and ``zeroe-fast`` (its surrogate
trained on the even-numbered training examples; ``--victim-half odd`` trains the victim on
the others, held out from it; ``--charmer-lexicon`` lets charmer write that surrogate's
strongest words). Rows give the characters changed
and, for bad-characters, how many adversarial texts render as the original (code points shown).
Every attack's results become ``AttackResult`` records and go through the same ``summarize``; the
perturbed-word share is given as each tool counts it and recounted with our tokenizer's words.

TextAttack runs offline with the workarounds of ``zeroe_assets.integrations.textattack_offline``
and sees the victim through ``integrations.textattack.VictimWrapper``: run this where textattack
is installed (``pip install '.[textattack]'``, docs/search_benchmark.md), or pass
--skip-textattack.

    python benchmarks/search_vs_textattack.py [--dataset olid|mr] [--examples 200]
        [--max-queries 1000] [--victim-half all|odd]
        [--recipes deepwordbug,pruthi,textfooler-zeroe,zeroe-random] [--skip-textattack]
        [--textattack-recipes DeepWordBugGao2018,Pruthi2019,zeroe:visual] [--out FILE]
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import platform
import sys
import time
from importlib import metadata
from pathlib import Path

from paper_grid import olid_test_with_labels, train
from perturb_throughput import DATA, DATA_HELP
from sentiment_data import split_file
from zeroe_assets import tokenize
from zeroe_assets.integrations import textattack_offline
from zeroe_assets.search.results import (EXHAUSTED, FAILED, MISCLASSIFIED, SKIPPED, SUCCESSFUL,
                                         AttackResult, summarize)
from zeroe_assets.tasks import get_task
from zeroe_assets.victims.wrapper import TimedVictim

ROOT = Path(__file__).resolve().parents[1]
OURS = ("deepwordbug", "pruthi", "textfooler-zeroe", "zeroe-random")
THEIRS = ("DeepWordBugGao2018", "Pruthi2019")
SAME_RECIPE = {"deepwordbug": "DeepWordBugGao2018", "pruthi": "Pruthi2019"}
# a text per dataset that loads the perturbers' tables before the timings (none of its data)
WARM_UP = {"olid": ("you are such a stupid liar and everyone knows it", 1),
           "mr": ("a dull , clumsy sequel that squanders a charming cast", "neg")}
TASK = {"olid": "tc", "mr": "generic"}
DESCRIBED = {  # the JSON's words for each dataset's victims and examples
    "olid": {"all": "tc-tfidf (trained on OLID train, seed 0)",
             "odd": "tc-tfidf (trained on the odd-numbered OLID training tweets, seed 0)",
             "data": "OLID level-A test tweets"},
    "mr": {"all": "generic-tfidf (trained on the movie-review train split, seed 0)",
           "odd": "generic-tfidf (trained on the odd-numbered movie-review training sentences, "
                  "seed 0)",
           "data": "movie-review test sentences (sentiment_data.py, split seed 0)"},
}

def half_of(source: Path, out: Path, parity: str) -> Path:
    """The even- or odd-numbered examples of a training TSV (by line, header kept)."""
    if not out.exists():  # written once: its age tells `train` whether to retrain
        out.parent.mkdir(parents=True, exist_ok=True)
        lines = source.read_text(encoding="utf-8").splitlines(True)
        out.write_text(lines[0] + "".join(lines[1 + (parity == "odd")::2]), encoding="utf-8")
    return out


def olid_half(data: Path, work: Path, parity: str) -> Path:
    """The even- or odd-numbered OLID training tweets as a TSV."""
    return half_of(data / "olid/olid-training-v1.0.tsv", work / "olid" / f"train-{parity}.tsv",
                   parity)


def setup(dataset: str, data: Path, work: Path, n: int, half: str, split: str = "test"):
    """The first ``n`` test examples (mr: of ``split``) with their gold labels, and the
    benchmark's victim (`victim_for`) warmed up outside the timings."""
    task = get_task(TASK[dataset])
    test = (olid_test_with_labels(data, work) if dataset == "olid"
            else split_file(work / "mr", split))
    ex = task.examples(test, task.format_for(test))
    examples = list(zip(ex.inputs, ex.gold))[:n]
    victim = victim_for(dataset, data, work, half)
    victim.predict([t for t, _ in examples[:8]])
    return examples, victim


def victim_for(dataset: str, data: Path, work: Path, half: str):
    """The dataset's victim, trained on all its training examples or the odd-numbered ones."""
    if dataset == "olid":
        return olid_victim(data, work, half)
    source = split_file(work / "mr", "train")
    if half == "all":
        return train("generic", "generic-tfidf", source, work / "mr" / "generic-tfidf.joblib")
    return train("generic", "generic-tfidf", half_of(source, work / "mr" / "train-odd.tsv", "odd"),
                 work / "mr" / "generic-tfidf-odd.joblib")


def surrogate_for(dataset: str, data: Path, work: Path) -> Path:
    """zeroe-fast's surrogate (its file), trained on the even-numbered training examples."""
    if dataset == "olid":
        return olid_surrogate(data, work)
    model = work / "mr" / "surrogate-even.joblib"
    train("generic", "generic-tfidf",
          half_of(split_file(work / "mr", "train"), work / "mr" / "train-even.tsv", "even"),
          model)
    return model


def olid_victim(data: Path, work: Path, half: str = "all"):
    """``tc-tfidf`` trained on all OLID training tweets, or on the odd-numbered ones."""
    if half == "all":
        return train("tc", "tc-tfidf", data / "olid/olid-training-v1.0.tsv",
                     work / "tc-tfidf.joblib")
    return train("tc", "tc-tfidf", olid_half(data, work, "odd"), work / "tc-tfidf-odd.joblib")


def olid_surrogate(data: Path, work: Path) -> Path:
    """zeroe-fast's surrogate: ``tc-tfidf`` trained on the even-numbered OLID training tweets,
    as an attacker holding half the data would (its file)."""
    model = work / "surrogate-even.joblib"
    train("tc", "tc-tfidf", olid_half(data, work, "even"), model)
    return model


def words_perturbed(original: str, adversarial: str) -> tuple[int, int]:
    """(words, perturbed) with our tokenizer's words: the original words not kept in the
    adversarial text's word sequence (an inserted symbol that splits a word counts once)."""
    before, after = tokenize.words(original), tokenize.words(adversarial)
    kept = sum(b.size for b in difflib.SequenceMatcher(None, before, after,
                                                       autojunk=False).get_matching_blocks())
    return len(before), len(before) - kept


def edit_distance(a: str, b: str) -> float:
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_distance(a, b))


def characters_changed(a: str, b: str) -> int:
    """Levenshtein distance in characters (Charmer's k)."""
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(a, b))


def imperceptibility(won: list) -> dict:
    """How many successful adversarial texts display as the original, pixel for pixel
    (``search.display``), and the first three with their code points."""
    from zeroe_assets.search.display import codepoints, renders_identically

    same = [renders_identically(r.original, r.adversarial) for r in won]
    return {"renders_identically": sum(same), "successful": len(won),
            "examples": [codepoints(r.adversarial) for r in won[:3]]}


def textattack_recipe(name: str, model, seed: int):
    """A TextAttack recipe by name, or ``zeroe:MECHANISM``: a Zéroe transformation in TextAttack
    (``integrations.textattack``) under our ``textfooler-zeroe``'s search and limits — ranking by
    deletion then greedy, K = 50 candidates per word, ρ_max = 0.3, stop words left alone."""
    import textattack
    from textattack.constraints.overlap import MaxWordsPerturbed
    from textattack.constraints.pre_transformation import (RepeatModification,
                                                           StopwordModification)
    from textattack.goal_functions import UntargetedClassification
    from textattack.search_methods import GreedyWordSwapWIR
    from zeroe_assets.integrations.textattack import ZeroeTransformation

    if not name.startswith("zeroe:"):
        return getattr(textattack.attack_recipes, name).build(model)
    return textattack.Attack(
        UntargetedClassification(model),
        [RepeatModification(), StopwordModification(), MaxWordsPerturbed(max_percent=0.3)],
        ZeroeTransformation(name.split(":", 1)[1], k=50, seed=seed), GreedyWordSwapWIR("delete"))


def run_textattack(name: str, victim: TimedVictim, examples: list, budget: int, seed: int,
                   dataset: str = "olid"):
    """One TextAttack recipe over the examples: our records and TextAttack's own word figure.
    TextAttack's labels are the columns of the victim's probabilities (``VictimWrapper``):
    a label victim's gold goes in as its column, and its outputs come back as names."""
    import textattack
    from textattack.attack_results import FailedAttackResult, SkippedAttackResult
    from zeroe_assets.integrations.textattack import VictimWrapper
    from zeroe_assets.victims import Scorer

    labels = tuple(victim.labels) if isinstance(victim, Scorer) else (0, 1)

    start = time.perf_counter()
    attack = textattack_recipe(name, VictimWrapper(victim), seed)
    args = textattack.AttackArgs(num_examples=len(examples), query_budget=budget,
                                 disable_stdout=True, silent=True, random_seed=seed)
    columns = [(text, labels.index(gold)) for text, gold in examples]
    attacker = textattack.Attacker(attack, textattack.datasets.Dataset(columns), args)
    setup = time.perf_counter() - start
    print(f"TextAttack {name}", file=sys.stderr)
    start = time.perf_counter()
    found = attacker.attack_dataset()
    wall = time.perf_counter() - start
    records, own = [], []
    for i, ((text, gold), r) in enumerate(zip(examples, found)):
        adversarial = r.perturbed_result.attacked_text.text
        queries = r.perturbed_result.num_queries
        if isinstance(r, SkippedAttackResult):
            status, reason = SKIPPED, MISCLASSIFIED
        elif isinstance(r, FailedAttackResult):
            status, reason = (EXHAUSTED if queries >= budget else FAILED), None
        else:
            status, reason = SUCCESSFUL, None
            # TextAttack's WordsPerturbed metric: changed words / the original's words
            ta_words = r.original_result.attacked_text.words
            changed = r.original_result.attacked_text.all_words_diff(
                r.perturbed_result.attacked_text)
            own.append(100.0 * len(changed) / len(ta_words) if ta_words else 0.0)
        words, perturbed = words_perturbed(text, adversarial)
        records.append(AttackResult(
            i, text, adversarial, gold, labels[r.original_result.output],
            labels[r.perturbed_result.output],
            status, queries, words, perturbed, edit_distance(text, adversarial), reason))
    return records, wall, (sum(own) / len(own) if own else None), setup


def run_ours(name: str, victim: TimedVictim, examples: list, budget: int, seed: int,
             dataset: str = "olid", surrogate=None, lexicon: bool = False,
             merges: bool = False):
    """One of our recipes (``RECIPE:T1+T2`` with those transformations), example by example
    (index = the example's line: its seed); ``surrogate`` for zeroe-fast, and with ``lexicon``
    for charmer (which writes its strongest words)."""
    from zeroe_assets.search import get_recipe

    start = time.perf_counter()
    recipe, _, transformations = name.partition(":")
    attack = get_recipe(recipe, TASK[dataset], transformations.replace("+", ",") or None,
                        max_queries=budget, seed=seed,
                        **({"surrogate": surrogate} if recipe == "zeroe-fast" or
                           (recipe == "charmer" and lexicon) else {}))
    if recipe == "charmer" and merges:  # the option of Charmer the recipe leaves off
        attack.method.merges = True
    return attack_all(attack, name, victim, examples, time.perf_counter() - start,
                      WARM_UP[dataset])


def attack_all(attack, name: str, victim: TimedVictim, examples: list, setup: float,
               warm_up: tuple = WARM_UP["olid"]):
    """``attack`` on every example (records, wall seconds, None, setup seconds); a warm-up text
    first loads the perturbers' tables (setup, not attack time)."""
    from tqdm import tqdm

    start = time.perf_counter()
    attack.run(warm_up, victim.victim)
    setup += time.perf_counter() - start
    start = time.perf_counter()
    records = [attack.run(example, victim, index=i)
               for i, example in enumerate(tqdm(examples, desc=name, file=sys.stderr))]
    return records, time.perf_counter() - start, None, setup


def row(tool: str, name: str, records: list, wall: float, victim: TimedVictim,
        own_perturbed: float | None, setup: float) -> dict:
    """The metrics of one attack: ``summarize`` over its records, both perturbed-word figures,
    and where the time went."""
    s = summarize(records)
    won = [r for r in records if r.status == SUCCESSFUL]
    recount = [100.0 * words_perturbed(r.original, r.adversarial)[1] / r.words
               for r in won if r.words]
    characters = [characters_changed(r.original, r.adversarial) for r in won]
    return {
        "tool": tool, "recipe": name, "examples": s["examples"], "counts": s["counts"],
        "clean_accuracy": s["clean_accuracy"], "accuracy_under_attack": s["accuracy_under_attack"],
        "success_rate": s["success_rate"], "queries": s["queries"],
        "perturbed_words": own_perturbed if own_perturbed is not None else s["perturbed_words"],
        "perturbed_words_recount": sum(recount) / len(recount) if recount else None,
        "edit_distance": s["edit_distance"],
        "characters_changed": sum(characters) / len(characters) if characters else None,
        **(imperceptibility(won) if name.startswith("bad-characters") else {}),
        "setup_s": setup, "wall_s": wall,
        "examples_per_s": s["examples"] / wall if wall else None,
        "victim_s": victim.seconds, "victim_texts": victim.texts, "victim_calls": victim.calls,
        "overhead_pct": 100.0 * (wall - victim.seconds) / victim.seconds
        if victim.seconds else None,
    }


def seed_spread(args, victim, examples: list, rows: dict) -> dict:
    """Suc% and #Query of both DeepWordBugs over ``--seed`` and ``--spread-seeds`` (random
    character edits: the success rate moves with the seed)."""
    seeds = [args.seed] + [int(x) for x in args.spread_seeds.split(",") if x]
    out = {}
    for tool, name, runner in (("textattack", "DeepWordBugGao2018", run_textattack),
                               ("ours", "deepwordbug", run_ours)):
        first = rows.get(f"{tool}:{name}")
        if first is None:
            continue
        runs = [(first["success_rate"], first["queries"])]
        for seed in seeds[1:]:
            s = summarize(runner(name, TimedVictim(victim), examples, args.max_queries, seed,
                                 args.dataset)[0])
            runs.append((s["success_rate"], s["queries"]))
        out[name] = {"seeds": seeds, "success_rate": [r[0] for r in runs],
                     "queries": [r[1] for r in runs],
                     "mean_success_rate": sum(r[0] for r in runs) / len(runs),
                     "mean_queries": sum(r[1] for r in runs) / len(runs)}
    return out


def targets(rows: dict, spread: dict) -> dict:
    """The issue's targets, checked on this run (absent: a side of the comparison not run);
    the DeepWordBug pair also on the mean over seeds."""
    def get(key):
        return rows.get(key) or {}

    ours_dwb, ta_dwb, tf = get("ours:deepwordbug"), get("textattack:DeepWordBugGao2018"), \
        get("ours:textfooler-zeroe")
    ta_best = max((r["success_rate"] for k, r in rows.items()
                   if k.startswith("textattack:") and r["success_rate"] is not None),
                  default=None)
    out = {}
    if ours_dwb and ta_dwb:
        out["deepwordbug_success_within_3_points"] = \
            abs(ours_dwb["success_rate"] - ta_dwb["success_rate"]) <= 3
        out["deepwordbug_no_more_queries"] = ours_dwb["queries"] <= ta_dwb["queries"]
    a, b = spread.get("deepwordbug"), spread.get("DeepWordBugGao2018")
    if a and b and len(a["seeds"]) > 1:
        out["deepwordbug_success_within_3_points_seed_mean"] = \
            abs(a["mean_success_rate"] - b["mean_success_rate"]) <= 3
        out["deepwordbug_no_more_queries_seed_mean"] = a["mean_queries"] <= b["mean_queries"]
    fast = get("ours:zeroe-fast")
    if fast:
        out["zeroe_fast_success_ge_95"] = fast["success_rate"] >= 95
        out["zeroe_fast_queries_le_30"] = fast["queries"] <= 30
    charmer, bad = get("ours:charmer"), get("ours:bad-characters")
    if charmer:
        out["charmer_success_ge_95"] = charmer["success_rate"] >= 95
        out["charmer_characters_le_2"] = charmer["characters_changed"] <= 2
    if bad:
        out["bad_characters_success_ge_90"] = bad["success_rate"] >= 90
        out["bad_characters_all_render_identically"] = \
            bad["renders_identically"] == bad["successful"]
    if tf:
        out["textfooler_zeroe_success_ge_95"] = tf["success_rate"] >= 95
        out["textfooler_zeroe_queries_le_45"] = tf["queries"] <= 45
        out["textfooler_zeroe_perturbed_le_20pct"] = tf["perturbed_words"] <= 20
        if ta_best is not None:
            out["textfooler_zeroe_beats_textattack_best"] = tf["success_rate"] > ta_best
    for ours, theirs in SAME_RECIPE.items():
        a, b = get(f"ours:{ours}"), get(f"textattack:{theirs}")
        if a and b:
            out[f"{ours}_10x_examples_per_s"] = a["examples_per_s"] >= 10 * b["examples_per_s"]
    for key, r in rows.items():
        if key.startswith("ours:") and r["overhead_pct"] is not None:
            out[f"{key[5:]}_overhead_le_25pct"] = r["overhead_pct"] <= 25
    return out


def speedups(rows: dict) -> dict:
    """Ours vs TextAttack for the same recipe: examples/s, and the attack's own seconds (wall −
    victim); the first is bounded by the victim's share of TextAttack's wall time."""
    out = {}
    for ours, theirs in SAME_RECIPE.items():
        a, b = rows.get(f"ours:{ours}"), rows.get(f"textattack:{theirs}")
        if a and b:
            out[ours] = {
                "examples_per_s": a["examples_per_s"] / b["examples_per_s"],
                "attack_own_seconds": (b["wall_s"] - b["victim_s"])
                / max(a["wall_s"] - a["victim_s"], 1e-9),
                "victim_texts": a["victim_texts"] / b["victim_texts"],
                "victim_calls": a["victim_calls"] / b["victim_calls"],
                "textattack_victim_share_pct": 100.0 * b["victim_s"] / b["wall_s"],
            }
    return out


def versions() -> dict:
    out = {"python": platform.python_version(), "cpu_count": os.cpu_count()}
    for dist in ("textattack", "scikit-learn", "numpy", "torch", "transformers", "rapidfuzz"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def rounded(value):
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--dataset", choices=tuple(TASK), default="olid",
                        help="olid: OLID tweets, tc-tfidf victims; mr: the movie-review "
                             "sentences of sentiment_data.py, generic-tfidf victims")
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-search-vs-textattack"),
                        help="the joined OLID test set (mr: mr/, the three splits), the victim, "
                             "TextAttack's cache and each attack's records "
                             "(records/TOOL-RECIPE.jsonl; mr: mr/records/)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the JSON (default: benchmarks/results/search_vs_textattack.json, "
                             "search_mr.json for mr)")
    parser.add_argument("--examples", type=int, default=200,
                        help="the first N test examples")
    parser.add_argument("--max-queries", type=int, default=1000,
                        help="query budget per example, the same for every attack")
    parser.add_argument("--recipes", default=",".join(OURS),
                        help="our recipes, comma-separated ('' for none); RECIPE:T1+T2 with "
                             "those transformations (textfooler-zeroe:visual)")
    parser.add_argument("--textattack-recipes", default=",".join(THEIRS),
                        help="TextAttack's recipes, comma-separated; zeroe:MECHANISM for a Zéroe "
                             "transformation under textfooler-zeroe's search and limits")
    parser.add_argument("--skip-textattack", action="store_true")
    parser.add_argument("--victim-half", choices=("all", "odd"), default="all",
                        help="train the victim on all training examples, or on the "
                             "odd-numbered ones only: held out from zeroe-fast's surrogate")
    parser.add_argument("--surrogate", type=Path, default=None,
                        help="zeroe-fast's surrogate, a tc-tfidf (mr: generic-tfidf) model "
                             "file (default: one trained on the even-numbered training "
                             "examples)")
    parser.add_argument("--charmer-lexicon", action="store_true",
                        help="charmer may also write the 500 words per label that zeroe-fast's "
                             "surrogate weighs most (the attacker's half of the data)")
    parser.add_argument("--charmer-merges", action="store_true",
                        help="charmer probes the slot that replaces the space after a word by "
                             "deleting it (`Charmer(merges=True)`), not with a space")
    parser.add_argument("--split", choices=("test", "dev"), default="test",
                        help="mr: the split whose first --examples sentences are attacked "
                             "(dev to choose an option before measuring test)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--spread-seeds", default="1,2,3,4",
                        help="more seeds for both DeepWordBugs ('' for none): one seed's Suc%% "
                             "moves by a few points, as much as the ±3-point target")
    args = parser.parse_args()
    data = args.data / "bench"
    if args.dataset == "olid" and not data.exists():
        sys.exit(f"benchmark data not found at {data} (pass --data DIR or set ZEROE_DATA)")
    out = args.out or ROOT / "benchmarks" / "results" / (
        "search_vs_textattack.json" if args.dataset == "olid" else "search_mr.json")
    ours = [r for r in args.recipes.split(",") if r]
    theirs = [] if args.skip_textattack else [r for r in args.textattack_recipes.split(",") if r]
    if theirs:
        textattack_offline.prepare(args.work / "textattack")

    if args.split != "test" and args.dataset != "mr":
        sys.exit("--split dev is for --dataset mr")
    examples, victim = setup(args.dataset, data, args.work, args.examples, args.victim_half,
                             args.split)
    surrogate = None
    if any(r.partition(":")[0] == "zeroe-fast" for r in ours) or args.charmer_lexicon:
        from zeroe_assets.search import NgramSurrogate

        surrogate = NgramSurrogate.load(args.surrogate or
                                        surrogate_for(args.dataset, data, args.work))

    rows, load = {}, os.getloadavg()
    for tool, names, runner in (("textattack", theirs, run_textattack),
                                ("ours", ours, run_ours)):
        for name in names:
            timed = TimedVictim(victim)
            records, wall, own, started = runner(
                name, timed, examples, args.max_queries, args.seed, args.dataset,
                *([surrogate, args.charmer_lexicon, args.charmer_merges]
                  if tool == "ours" else []))
            rows[f"{tool}:{name}"] = row(tool, name, records, wall, timed, own, started)
            lines = "".join(json.dumps(r.to_json()) + "\n" for r in records)
            kept = args.work / ("records" if args.dataset == "olid" else "mr/records")
            kept.mkdir(parents=True, exist_ok=True)
            (kept / f"{tool}-{name}.jsonl").write_text(lines, encoding="utf-8")
            print(json.dumps(rounded(rows[f"{tool}:{name}"])), file=sys.stderr)
    spread = seed_spread(args, victim, examples, rows) if args.spread_seeds else {}
    words = [len(tokenize.words(t)) for t, _ in examples]
    result = {
        "victim": DESCRIBED[args.dataset][args.victim_half],
        "data": f"first {len(examples)} " + DESCRIBED[args.dataset]["data"].replace(
            "test", args.split),
        "examples": len(examples), "mean_words": sum(words) / len(words),
        "max_queries": args.max_queries, "seed": args.seed,
        "charmer_lexicon": args.charmer_lexicon, "charmer_merges": args.charmer_merges,
        "split": args.split,
        "loadavg_at_start": list(load), "environment": versions(),
        "results": [rounded(r) for r in rows.values()],
        "speedup_vs_textattack": rounded(speedups(rows)),
        "deepwordbug_seeds": rounded(spread),
        "targets": targets(rows, spread),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
