"""Does the shield undo another tool's adversarial examples? TextAttack 0.3.11's character-level
recipes against the project's victims, each successful adversarial text restored by no cleaner,
``anyascii`` + symspellpy, and the shield.

Victims as ``benchmarks/search_vs_textattack.py`` and ``paper_grid.py`` train them: ``tc-tfidf``
on OLID train, tested on the first N OLID level-A test tweets; with ``--tasks tc,nli`` also
``nli-tfidf`` on SNLI dev, tested on the first N SNLI test pairs with a gold label (TextAttack
attacks the hypothesis only: its ``InputColumnModification`` leaves the premise alone, as its
own NLI recipes do); with ``mr`` also ``generic-tfidf`` on the movie-review sentences of
``sentiment_data.py`` (written to ``--work``, never to the repository), trained on their train
split and tested on the first N sentences of the test split (``--split dev``: of the dev split,
to tune on). Attacks: TextAttack's recipes by name (default ``DeepWordBugGao2018`` and
``Pruthi2019``), run offline (``zeroe_assets.integrations.textattack_offline``) against
``integrations.textattack.VictimWrapper(victim)`` with a query budget per example and
``random_seed = --seed``. A recipe that cannot be built offline (``TextBuggerLi2018`` needs
GloVe and the Universal Sentence Encoder) is skipped with a note.

Every *successful* adversarial text (the victim's clean prediction was right and the attack
flipped it) is restored by each cleaner: ``none``; ``baseline`` (``anyascii`` then symspellpy's
``lookup_compound``, ``shield_accuracy.baseline``); ``shield`` (``get_shield()``, default
settings). For NLI only the hypothesis is restored (the premise is the clean one); the shield
reads it against its premise (``Shield.restore``'s ``anchor``, as ``ShieldedVictim`` does). Per
task, recipe and cleaner: turned back (the victim on the restored text predicts the gold label),
exact (restored == clean text), same words and word accuracy (``shield.accuracy``: lower-cased
letter-and-digit runs, difflib-aligned, summed over the examples), the cleaner's CPU ms per
text (thread time, after a warm-up), and on the clean texts of the same examples: the share
whose prediction a cleaner keeps, and the share it leaves exactly as they were. Predictions are
``VictimWrapper``'s argmax, as TextAttack's goal reads them.

The adversarial texts go to ``benchmarks/results/shield_transfer_examples.jsonl``; ``--reuse``
reads them back and only reruns the cleaners (no attack: the victims are retrained, or loaded
from ``--work``, to predict), except for a task named in ``--tasks`` that has no examples in the
file: it is attacked and its examples added, the others' kept as they were. Prints JSON, writes
``benchmarks/results/shield_transfer.json`` and ``docs/shield-transfer.md`` (``--render``: only
the page, from the JSON).

    python benchmarks/shield_transfer.py [--tasks tc,nli,mr] [--examples 200] [--skip 0]
        [--max-queries 1000] [--textattack-recipes DeepWordBugGao2018,Pruthi2019] [--seed 0]
        [--split test] [--reuse] [--render]

``--skip 200`` with ``--examples-file`` and ``--out`` elsewhere attacks a dev split (test
examples 200–400) to tune the shield on, apart from the first N the figures report. The
movie-review dev texts made so (``--tasks mr --skip 200 --examples 800``: 488 DeepWordBug and
142 Pruthi texts) are kept in ``benchmarks/results/shield_transfer_examples_mr_dev.jsonl``;
``--reuse --tasks mr --skip 200 --examples 800 --examples-file`` that file restores them.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core: FAISS and BLAS would otherwise use them all

import argparse  # noqa: E402
import difflib  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper_grid import olid_test_with_labels, train  # noqa: E402
from perturb_throughput import DATA, DATA_HELP, ROOT, recorded  # noqa: E402
from sentiment_data import split_file  # noqa: E402
from shield_accuracy import Timed, baseline, commit  # noqa: E402

from zeroe_assets.assets import atomic_write  # noqa: E402
from zeroe_assets.shield.accuracy import word_accuracy, words  # noqa: E402
from zeroe_assets.tasks import get_task  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "shield_transfer.json"
EXAMPLES_OUT = ROOT / "benchmarks" / "results" / "shield_transfer_examples.jsonl"
DOC = ROOT / "docs" / "shield-transfer.md"
RECIPES = ("DeepWordBugGao2018", "Pruthi2019")
CLEANERS = {"none": "no cleaning", "baseline": "anyascii+symspellpy", "shield": "shield"}
VICTIMS = {"tc": "tc-tfidf", "nli": "nli-tfidf", "mr": "generic-tfidf"}
NAMES = {"tc": "toxicity (OLID)", "nli": "NLI (SNLI)", "mr": "sentiment (movie reviews)"}
SHOWN = 3  # examples per recipe on the page
MISSES = 20  # rows of the misses tables
WARM_UP = "you are such a stupid liar and everyone knows it"  # not a test text
# a line with no English function word: the shield reads its language tables (about 1.7 s)
WARM_UP_LANGUAGE = "Four kids pose during summre vacatino"
# why a recipe cannot run here, beyond the first error it raises
OFFLINE = {"TextBuggerLi2018": "besides, its WordSwapEmbedding downloads counter-fitted "
                               "embeddings and its UniversalSentenceEncoder constraint needs "
                               "tensorflow_hub (not installed): it cannot run offline"}


# -- the victims and their test sets --------------------------------------------------------------
def setup(task: str, data: Path, work: Path, n: int, skip: int = 0, split: str = "test"):
    """(victim, examples, labels, name): the victim trained as paper_grid trains it (cached in
    ``work``), ``n`` test examples as ``(input, gold)`` after the first ``skip`` (a dev split
    to tune the shield on, apart from the first N the figures are reported on; for ``mr`` also
    ``split="dev"``), the labels in the order of ``VictimWrapper``'s columns, and the test set's
    name."""
    spec, victim_name = get_task("generic" if task == "mr" else task), VICTIMS.get(task)
    if task == "tc":
        test, train_path = olid_test_with_labels(data, work), data / "olid/olid-training-v1.0.tsv"
        name = "OLID level-A test (olid/testset-levela.tsv joined with labels-levela.csv)"
    elif task == "nli":
        test, train_path = data / "snli/snli_test.tsv", data / "snli/snli_dev.tsv"
        name = recorded(test, data.parent)
    elif task == "mr":
        test, train_path = split_file(work / "mr", split), split_file(work / "mr", "train")
        name = f"the {split} split of the movie-review sentences (sentiment_data.py)"
    else:
        raise ValueError(f"task {task!r}: choose tc, nli or mr")
    ex = spec.examples(test, spec.format_for(test))
    victim = train(spec.name, victim_name, train_path, work / f"{victim_name}.joblib")
    labels = (0, 1) if task == "tc" else tuple(victim.labels)
    return victim, list(zip(ex.inputs, ex.gold))[skip:skip + n], labels, name


def predictor(task: str, victim, labels):
    """Victim inputs → predicted labels, the argmax of ``VictimWrapper``'s columns ([1 − p, p]
    for a tc score p; class probabilities otherwise)."""
    import numpy as np

    def predict(inputs: list) -> list:
        if not inputs:
            return []
        if task == "tc":
            p = np.asarray(victim.predict(inputs), dtype=float)
            return [labels[int(x)] for x in np.argmax(np.stack([1.0 - p, p], axis=1), axis=1)]
        return [labels[int(x)] for x in np.argmax(np.asarray(victim.scores(inputs)), axis=1)]
    return predict


def victim_input(row: dict, text: str):
    """What the victim gets for one of the row's texts: the text, or the pair with its premise."""
    return (row["premise"], text) if "premise" in row else text


# -- the attacks ----------------------------------------------------------------------------------
def attack(task: str, recipe: str, victim, examples: list, labels, budget: int,
           seed: int) -> tuple[list[dict], dict]:
    """One TextAttack recipe over the examples: the successful adversarial texts (example rows)
    and the attack's counts."""
    import textattack
    from textattack.attack_results import (FailedAttackResult, SkippedAttackResult,
                                           SuccessfulAttackResult)
    from zeroe_assets.integrations.textattack import VictimWrapper

    built = getattr(textattack.attack_recipes, recipe).build(VictimWrapper(victim))
    if task == "nli":
        from textattack.constraints.pre_transformation import InputColumnModification

        built = textattack.Attack(
            built.goal_function,
            [*built.pre_transformation_constraints, *built.constraints,
             InputColumnModification(["premise", "hypothesis"], {"premise"})],
            built.transformation, built.search_method)
        dataset = textattack.datasets.Dataset(
            [(tuple(x), labels.index(g)) for x, g in examples],
            input_columns=("premise", "hypothesis"))
    else:
        dataset = textattack.datasets.Dataset([(x, labels.index(g)) for x, g in examples])
    args = textattack.AttackArgs(num_examples=len(examples), query_budget=budget,
                                 disable_stdout=True, silent=True, random_seed=seed)
    print(f"TextAttack {recipe} on {task}", file=sys.stderr)
    start = time.perf_counter()
    found = textattack.Attacker(built, dataset, args).attack_dataset()
    wall = time.perf_counter() - start
    rows, counts, queries = [], Counter(), []
    for i, ((x, gold), r) in enumerate(zip(examples, found)):
        if isinstance(r, SkippedAttackResult):
            counts["skipped"] += 1
        elif isinstance(r, FailedAttackResult):
            counts["exhausted" if r.perturbed_result.num_queries >= budget else "failed"] += 1
        elif isinstance(r, SuccessfulAttackResult):
            counts["successful"] += 1
            queries.append(r.perturbed_result.num_queries)
            out = r.perturbed_result.attacked_text
            row = {"task": task, "recipe": recipe, "index": i, "gold": gold,
                   "queries": r.perturbed_result.num_queries}
            if task == "nli":
                adversarial = out._text_input["hypothesis"]
                if out._text_input["premise"] != x[0]:
                    raise RuntimeError(f"{recipe} changed a premise (example {i})")
                row.update(premise=x[0], clean=x[1], adversarial=adversarial)
            else:
                row.update(clean=x, adversarial=out.text)
            rows.append(row)
        else:
            counts[type(r).__name__] += 1
    attacked = len(examples) - counts["skipped"]
    return rows, {"examples": len(examples), **{k: counts[k] for k in
                                                ("successful", "failed", "exhausted",
                                                 "skipped")},
                  "success_rate": round(counts["successful"] / attacked, 4) if attacked else None,
                  "mean_queries_successful": round(sum(queries) / len(queries), 1)
                  if queries else None,
                  "wall_s": round(wall, 1)}


# -- what is measured (pure: tests/test_shield_transfer.py) ---------------------------------------
def shares(rows: list[dict], restored: list[str], restored_clean: list[str], predict) -> dict:
    """One cleaner on the successful adversarial texts ``rows`` (``clean``, ``adversarial``,
    ``gold``, ``premise`` for pairs): ``restored[i]`` is its output on row i's adversarial text,
    ``restored_clean[i]`` on its clean text; ``predict`` maps victim inputs to labels.

    ``turned_back``: the victim on the restored text predicts the gold label; ``exact``: restored
    == clean; ``same_words``: the same word sequence (``shield.accuracy.words``);
    ``word_accuracy``: matched / total clean words, summed over the rows; ``clean_kept``: the
    victim's prediction on the restored clean text is its prediction on the clean text;
    ``clean_exact``: the clean text comes back as it was."""
    n = len(rows)
    if not n:
        return {"adversarial": 0}
    after = predict([victim_input(r, t) for r, t in zip(rows, restored)])
    before_clean = predict([victim_input(r, r["clean"]) for r in rows])
    after_clean = predict([victim_input(r, t) for r, t in zip(rows, restored_clean)])
    matched = total = 0
    for r, t in zip(rows, restored):
        m, w = word_accuracy(r["clean"], t)
        matched, total = matched + m, total + w
    return {
        "adversarial": n,
        "turned_back": round(sum(p == r["gold"] for p, r in zip(after, rows)) / n, 4),
        "exact": round(sum(t == r["clean"] for t, r in zip(restored, rows)) / n, 4),
        "same_words": round(sum(words(t) == words(r["clean"])
                                for t, r in zip(restored, rows)) / n, 4),
        "word_accuracy": round(matched / total, 4) if total else None,
        "clean_kept": round(sum(a == b for a, b in zip(after_clean, before_clean)) / n, 4),
        "clean_exact": round(sum(t == r["clean"] for t, r in zip(restored_clean, rows)) / n, 4),
    }


def _key(token: str) -> str:
    return " ".join(words(token))


def _aligned(source: list[str], target: list[str]) -> list[tuple[int, int]]:
    """For each source token, the span of target tokens in its place: the same position when
    both have as many tokens, else by difflib over the tokens' words (case and punctuation do
    not count; a replaced stretch of as many tokens pairs up one by one)."""
    if len(source) == len(target):
        return [(i, i + 1) for i in range(len(source))]
    spans = [(0, 0)] * len(source)
    matcher = difflib.SequenceMatcher(None, [_key(s) for s in source], [_key(t) for t in target],
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for i in range(i1, i2):
            one = tag == "equal" or i2 - i1 == j2 - j1
            spans[i] = (j1 + i - i1, j1 + i - i1 + 1) if one else (j1, j2)
    return spans


def token_kind(token: str) -> str:
    """What a clean tweet token is (leading quotes and symbols aside): a hashtag, a mention
    (OLID's @USER), OLID's URL, or a word."""
    token = re.sub(r"^[^\w#@]+", "", token)
    if token.startswith("#"):
        return "hashtag"
    if token.startswith("@"):
        return "mention"
    return "URL" if _key(token) == "url" else "word"


def misses(clean: str, adversarial: str, restored: str) -> list[tuple[str, str, str, str]]:
    """``(kind, clean token, adversarial token, restored)`` for each whitespace token of the clean
    text whose words the restored text does not have in its place: ``unrestored`` where the
    attack had changed the token, ``broken`` where it had not. Empty when the attack changed the
    number of tokens (then they do not pair up)."""
    c, a, r = clean.split(), adversarial.split(), restored.split()
    if len(c) != len(a):
        return []
    out = []
    for i, (j1, j2) in enumerate(_aligned(c, r)):
        got = " ".join(r[j1:j2])
        if _key(got) != _key(c[i]):
            out.append(("unrestored" if _key(a[i]) != _key(c[i]) else "broken", c[i], a[i], got))
    return out


WHY = {"proposed, kept": "its restorers proposed the clean word, the ranker kept the token",
       "proposed, other": "its restorers proposed the clean word, the ranker chose another",
       "not proposed": "no restorer proposed the clean word",
       "a word": "the attack made another dictionary word (only context can tell)",
       "not one word": "the clean or the adversarial token is not one word to the tokenizer"}


def why_missed(shield, clean: str, adversarial: str, restored: str) -> str:
    """Why the shield left an attacked word (a key of ``WHY``), from its lexicon and the readings
    its restorers propose for the adversarial token's stem (``Shield._propose``)."""
    from zeroe_assets import tokenize

    a, c = tokenize.split(adversarial)[0], tokenize.split(clean)[0]
    if len(a) != 1 or len(c) != 1:
        return "not one word"
    stem, gold = tokenize.stem(a[0])[1], tokenize.stem(c[0])[1].lower()
    if stem.lower() in shield.lexicon:
        return "a word"
    if gold not in shield._propose(stem):
        return "not proposed"
    return "proposed, kept" if restored == adversarial else "proposed, other"


def measure(rows: list[dict], cleaners: dict, predict_for: dict,
            shield=None) -> tuple[dict, dict]:
    """Every (task, recipe) × cleaner: ``shares`` and CPU ms per text; the shield's misses
    counted over all rows; the first examples per (task, recipe) with every cleaner's output."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["task"], row["recipe"]), []).append(row)
    table, shown, counted, forms, why = {}, {}, Counter(), {}, Counter()
    for (task, recipe), group in groups.items():
        entry, outputs = {}, {}
        for name, fn in cleaners.items():
            cpu, calls = fn.cpu, fn.calls
            restored = [fn(r["adversarial"], r.get("premise")) for r in group]
            adversarial_ms = 1e3 * (fn.cpu - cpu) / max(fn.calls - calls, 1)
            cpu, calls = fn.cpu, fn.calls
            restored_clean = [fn(r["clean"], r.get("premise")) for r in group]
            clean_ms = 1e3 * (fn.cpu - cpu) / max(fn.calls - calls, 1)
            entry[name] = {**shares(group, restored, restored_clean, predict_for[task]),
                           "cpu_ms_per_text": round(adversarial_ms, 3),
                           "cpu_ms_per_clean_text": round(clean_ms, 3)}
            outputs[name] = restored
        turned = predict_for[task]([victim_input(r, t) for r, t in zip(group, outputs["shield"])])
        for r, t in zip(group, outputs["shield"]):
            for kind, c, a, got in misses(r["clean"], r["adversarial"], t):
                key = (kind, token_kind(c), _key(c) or c)
                counted[key] += 1
                if shield is not None and key[:2] == ("unrestored", "word"):
                    why[why_missed(shield, c, a, got)] += 1
                seen = forms.setdefault(key, [])
                if [a, got] not in seen and len(seen) < 3:
                    seen.append([a, got])
        shown[f"{task}:{recipe}"] = [
            {"clean": r["clean"], "adversarial": r["adversarial"], "gold": r["gold"],
             **{name: outputs[name][k] for name in cleaners if name != "none"},
             "shield_turned_back": turned[k] == r["gold"]}
            for k, r in enumerate(group[:SHOWN])]
        table[f"{task}:{recipe}"] = entry
        print(json.dumps({f"{task}:{recipe}": {n: [e["turned_back"], e["exact"]]
                                                for n, e in entry.items()}}), file=sys.stderr)
    kinds = ("unrestored", "broken")
    top = {kind: [{"word": w, "count": n, "forms": forms[k, t, w]}
                  for (k, t, w), n in counted.most_common() if k == kind][:MISSES]
           for kind in kinds}
    top["unrestored_words"] = [{"word": w, "count": n, "forms": forms[k, t, w]}
                               for (k, t, w), n in counted.most_common()
                               if k == "unrestored" and t == "word"][:MISSES]
    top["totals"] = {kind: {t: sum(n for (k, tt, _), n in counted.items()
                                   if k == kind and tt == t)
                            for t in ("word", "hashtag", "mention", "URL")}
                     for kind in kinds}
    top["why_unrestored_words"] = {k: why[k] for k in WHY} if shield is not None else None
    return table, {"examples": shown, "misses": top}


# -- the run --------------------------------------------------------------------------------------
def read_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_rows(rows: list[dict], path: Path) -> None:
    atomic_write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n"
                               for r in rows).encode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-shield-transfer"),
                        help="the joined OLID test set, the victims and TextAttack's cache")
    parser.add_argument("--tasks", default="tc",
                        help="tc, nli, mr, comma-separated (default: tc; with --reuse, tasks "
                             "without examples in --examples-file are attacked and added)")
    parser.add_argument("--examples", type=int, default=200,
                        help="the first N test examples per task (default: 200)")
    parser.add_argument("--skip", type=int, default=0,
                        help="take the N examples after the first SKIP (default: 0; a dev "
                             "split to tune on: --skip 200 with --examples-file and --out "
                             "elsewhere)")
    parser.add_argument("--split", choices=("test", "dev"), default="test",
                        help="mr's sentences to attack (default: test; dev to tune on)")
    parser.add_argument("--max-queries", type=int, default=1000,
                        help="query budget per example (default: 1000, as search_vs_textattack)")
    parser.add_argument("--textattack-recipes", default=",".join(RECIPES),
                        help="TextAttack's recipes, comma-separated (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="TextAttack's random_seed")
    parser.add_argument("--reuse", action="store_true",
                        help="no attack: restore the adversarial texts in --examples-file again "
                             "(the attacks' counts are kept from --out)")
    parser.add_argument("--examples-file", type=Path, default=EXAMPLES_OUT)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--render", action="store_true",
                        help="only rewrite --doc from the JSON in --out")
    args = parser.parse_args()
    if args.render:
        return atomic_write(args.doc, markdown(json.loads(args.out.read_text("utf-8"))).encode())
    data = args.data / "bench"
    if not data.exists():
        sys.exit(f"benchmark data not found at {data} (pass --data DIR or set ZEROE_DATA)")
    started, load = time.perf_counter(), os.getloadavg()
    args.work.mkdir(parents=True, exist_ok=True)
    previous = json.loads(args.out.read_text("utf-8")) if args.reuse and args.out.exists() else {}
    named = [t for t in args.tasks.split(",") if t]
    if args.reuse:
        rows = read_rows(args.examples_file)
        cached = list(dict.fromkeys(r["task"] for r in rows))
        tasks, fresh = cached + [t for t in named if t not in cached], \
            [t for t in named if t not in cached]
        attacks, notes = previous.get("attacks", {}), previous.get("notes", [])
        settings = previous.get("settings", {})
    else:
        tasks = fresh = named
        rows, attacks, notes = [], {}, []
        settings = {"examples": args.examples, "max_queries": args.max_queries,
                    "seed": args.seed, **({"skip": args.skip} if args.skip else {}),
                    **({"split": args.split} if args.split != "test" else {})}
    if fresh:
        from zeroe_assets.integrations import textattack_offline

        textattack_offline.prepare(args.work / "textattack")
    predict_for, test_sets = {}, {}
    for task in tasks:
        victim, examples, labels, test_sets[task] = setup(
            task, data, args.work, settings.get("examples", args.examples),
            settings.get("skip", 0), settings.get("split", "test"))
        predict_for[task] = predictor(task, victim, labels)
        if task not in fresh:
            continue
        for recipe in [r for r in args.textattack_recipes.split(",") if r]:
            try:
                found, counts = attack(task, recipe, victim, examples, labels,
                                       args.max_queries, args.seed)
            except Exception as e:  # noqa: BLE001 - a recipe that needs a download
                said = str(e).splitlines()[0][:300].replace(sys.prefix, "<venv>") if str(e) \
                    else ""
                note = f"{recipe} skipped: {type(e).__name__}: {said}"
                if recipe in OFFLINE:
                    note += f"; {OFFLINE[recipe]}"
                if note not in notes:
                    notes.append(note)
                print(note, file=sys.stderr)
                continue
            rows += found
            attacks[f"{task}:{recipe}"] = counts
            print(json.dumps({f"{task}:{recipe}": counts}), file=sys.stderr)
        write_rows(rows, args.examples_file)

    from zeroe_assets.shield import get_shield

    shield = get_shield()
    spell = baseline()  # reads no anchor: each cleaner takes (text, anchor)
    cleaners = {"none": Timed(lambda t, anchor=None: t),
                "baseline": Timed(lambda t, anchor=None: spell(t)),
                "shield": Timed(shield.restore)}
    import zeroe_assets as z
    from zeroe_assets import registry

    warm = [WARM_UP, WARM_UP_LANGUAGE, "#Watchng @USEER URL"] + [
        z.get_perturbation(name, level=0.3, protocol="reference")(WARM_UP, seed=0)
        for name in registry.NAMES]
    for fn in cleaners.values():  # warm-up: the indexes the cleaners build on first use
        for text in warm:
            fn(text)
        fn.timing = True
    table, extra = measure(rows, cleaners, predict_for, shield)
    result = {
        "command": shlex.join(["python", "benchmarks/shield_transfer.py", *sys.argv[1:]]),
        "commit": commit(),
        "victims": {t: f"{VICTIMS[t]} as paper_grid trains it" for t in tasks},
        "test_sets": {t: (f"examples {settings['skip']}–{settings['skip'] + settings['examples']}"
                          if settings.get("skip") else f"the first {settings.get('examples')}")
                      + f" of {test_sets[t]}" for t in tasks},
        "settings": settings,
        "reused_examples": args.reuse,
        "examples_file": recorded(args.examples_file, ROOT),
        "environment": {d: _version(d) for d in ("textattack", "anyascii", "symspellpy",
                                                 "scikit-learn")},
        "shield": shield.describe(),
        "baseline": f"anyascii then symspellpy lookup_compound (max edit distance 2, bundled "
                    "dictionaries): shield_accuracy.baseline",
        "attacks": attacks, "notes": notes, "results": table, **extra,
        "threads": {v: os.environ[v] for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                               "MKL_NUM_THREADS")},
        "loadavg_at_start": [round(x, 2) for x in load],
        "seconds": round(time.perf_counter() - started, 1),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }
    atomic_write(args.out, json.dumps(result, indent=1, ensure_ascii=False).encode() + b"\n")
    atomic_write(args.doc, markdown(result).encode())
    json.dump(result, sys.stdout, indent=1, ensure_ascii=False)
    print()


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


# -- docs/shield-transfer.md ----------------------------------------------------------------------
def _p(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _cell(text) -> str:
    """Text for a Markdown table cell: pipes escaped, code spans kept literal."""
    return "`" + str(text).replace("`", "'").replace("|", "\\|") + "`"


def markdown(result: dict) -> str:
    """The page from the JSON: the attacks, the restoration table, examples and misses."""
    s = result["settings"]
    lines = ["# The shield against another tool's adversarial examples", "",
             "TextAttack's character-level recipes attack the project's victims; every "
             "*successful* adversarial text (the clean prediction was right, the attack flipped "
             "it) is then restored by a cleaner before the victim sees it again. This is the "
             "transfer setting of the design (\"other tools' adversarial examples\"): the "
             "attacker does not know the shield is there, and the shield never saw TextAttack's "
             "edits. Reproduce: "
             f"`{result['command']}` (raw numbers: [../benchmarks/results/shield_transfer.json]"
             "(../benchmarks/results/shield_transfer.json); the adversarial texts: "
             "[../benchmarks/results/shield_transfer_examples.jsonl]"
             "(../benchmarks/results/shield_transfer_examples.jsonl), which `--reuse` restores "
             "again without attacking).", ""]
    lines += [f"- victims: " + "; ".join(f"{NAMES.get(t, t)}: {v}, tested on "
                                         f"{result['test_sets'][t]}"
                                         for t, v in result["victims"].items()),
              f"- attacks: TextAttack {result['environment']['textattack']}, offline, "
              f"query budget {s.get('max_queries')} per example, random_seed {s.get('seed')}; "
              "for NLI only the hypothesis is attacked and restored (the shield reads it "
              "against its premise)",
              f"- shield: {result['shield']}",
              f"- anyascii+symspellpy: {result['baseline']}", ""]
    lines += ["## The attacks", "",
              "| task | recipe | examples | successful | failed | budget exhausted | skipped "
              "(clean prediction wrong) | success rate | queries (successful) | seconds |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, a in result["attacks"].items():
        task, recipe = key.split(":", 1)
        lines.append(f"| {task} | {recipe} | {a['examples']} | {a['successful']} | "
                     f"{a['failed']} | {a['exhausted']} | {a['skipped']} | "
                     f"{_p(a['success_rate'])} | {a['mean_queries_successful']} | "
                     f"{a['wall_s']:.0f} |")
    lines += [""] + [f"- {note}" for note in result["notes"]] + ([""] if result["notes"] else [])
    lines += ["## Restored", "",
              "Over the successful adversarial texts of each attack. *Turned back*: the victim "
              "on the restored text predicts the gold label again. *Exact*: the restored text is "
              "the clean text, character for character; *same words*: the same lower-cased "
              "letter-and-digit runs; *word accuracy*: the clean words the restored text has, "
              "difflib-aligned (`zeroe_assets.shield.accuracy`), summed. On the clean texts of "
              "the same examples: *clean kept*, the victim's prediction is the same after "
              "the cleaner; *clean exact*, the cleaner returns them unchanged. CPU ms per "
              "adversarial text, one thread, after a warm-up (the restorers cache words, so the "
              "clean texts, restored after their adversarial ones, are cheaper). "
              "anyascii+symspellpy lower-cases the text and drops punctuation and symbols (`#`, "
              "`@`), so it is never exact: *same words* is its fair measure.", "",
              "| task | recipe | cleaner | adversarial texts | turned back | exact | same words "
              "| word accuracy | CPU ms / text | clean kept | clean exact |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, entry in result["results"].items():
        task, recipe = key.split(":", 1)
        for name, e in entry.items():
            if not e["adversarial"]:
                continue
            lines.append(f"| {task} | {recipe} | {CLEANERS[name]} | {e['adversarial']} | "
                         f"{_p(e['turned_back'])} | {_p(e['exact'])} | {_p(e['same_words'])} | "
                         f"{e['word_accuracy']:.3f} | {e['cpu_ms_per_text']:.2f} | "
                         f"{_p(e['clean_kept'])} | {_p(e['clean_exact'])} |")
    lines += ["", "## Examples", "",
              f"The first {SHOWN} successful adversarial texts of each attack (for NLI, "
              "hypotheses), restored; ✓: the victim predicts the gold label on the shield's "
              "output.", ""]
    for key, shown in result["examples"].items():
        lines += [f"### {key.replace(':', ' · ')}", "",
                  "| clean | adversarial | shield | | anyascii+symspellpy |",
                  "|---|---|---|---|---|"]
        lines += [f"| {_cell(x['clean'])} | {_cell(x['adversarial'])} | {_cell(x['shield'])} | "
                  f"{'✓' if x['shield_turned_back'] else '✗'} | {_cell(x['baseline'])} |"
                  for x in shown]
        lines.append("")
    m = result["misses"]

    def forms(x):
        return "; ".join(f"{_cell(a)} → {_cell(b)}" for a, b in x["forms"])

    def total(kind):
        t = m["totals"][kind]
        return (f"{sum(t.values())} in all: " +
                ", ".join(f"{n} {k}{'s' if n != 1 and k != 'URL' else ''}"
                          for k, n in t.items() if n))
    lines += ["## What the shield missed", "",
              "Whitespace tokens of the clean texts (every task and recipe) whose words the "
              "shield's output does not have in their place. *Left unrestored*: the attack had "
              f"changed the token ({total('unrestored')}). *Broken*: the attack had left it "
              f"and the shield changed it ({total('broken')}). The plain words left unrestored "
              "most often, with up to three of their forms (adversarial → shield):", "",
              "| count | clean word | adversarial → shield |", "|---:|---|---|"]
    lines += [f"| {x['count']} | {x['word']} | {forms(x)} |" for x in m["unrestored_words"]]
    if m.get("why_unrestored_words"):
        lines += ["", f"Why the {m['totals']['unrestored']['word']} plain words were left:", ""]
        lines += [f"- {n}: {WHY[k]}" for k, n in m["why_unrestored_words"].items()]
    if m["broken"]:
        lines += ["", "Broken most often:", "",
                  "| count | clean word | adversarial → shield |", "|---:|---|---|"]
        lines += [f"| {x['count']} | {x['word']} | {forms(x)} |" for x in m["broken"]]
    reused = "cleaners rerun on the saved adversarial texts (`--reuse`); " \
        if result["reused_examples"] else ""
    lines += ["", "## Setup", "",
              f"- measured {result.get('date', 'before dates were recorded')}; "
              f"{reused}{result['seconds']:.0f} s in all, load average at start "
              f"{result['loadavg_at_start']} (the commit it ran at is in the JSON)",
              f"- versions: " + ", ".join(f"{k} {v}" for k, v in result["environment"].items()),
              ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
