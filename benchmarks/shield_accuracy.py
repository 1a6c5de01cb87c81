"""How well and how fast the shield restores attacked text, next to no
cleaning, its cheap mechanisms alone, a cheap chain users would otherwise pick, and
BERT-Defense's published figures.

Held-out clean text: a seeded sample of SNLI test sentences (premises and hypotheses, each once)
and UD English-EWT test sentences (their ``# text`` lines), half each; the shield trains on
neither. Rows: the clean text itself (the share of clean words the shield leaves unchanged),
every perturber at level 0.3 under the ``reference`` protocol (the original code's counts),
natural-typo also with the original code's ``en.natural`` table, one random attacker twice
(the mix ``a+a|b+b|…``: per sentence one of the ten, seeded, applied twice) and all ten chained
at 0.05 (``a:0.05+b:0.05+…``, in the registry's order). Each row's sentences get the seeds the
toolkit derives from ``--seed`` (the list goes to the attacker in one call). Measure: word
accuracy (`zeroe_assets.shield.accuracy`), summed over the corpus. Speed: only the cleaning
calls are timed (``time.perf_counter``, and the thread's CPU time), one process, one thread,
after a warm-up. ``--ablation``: the shield without each mechanism in turn (what each adds).

Prints JSON, writes ``benchmarks/results/shield_accuracy.json``, ``docs/shield-results.md`` and
its HTML page ``docs/shield-results.html`` (``--render``: only the two pages, from the JSON).

    python benchmarks/shield_accuracy.py [--sentences 400] [--seed 0] [--ablation] [--render]
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core: FAISS and BLAS would otherwise use them all

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shlex  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from importlib import metadata, resources  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perturb_throughput import DATA, DATA_HELP, ROOT, read_corpus, recorded  # noqa: E402

import zeroe_assets as z  # noqa: E402
from zeroe_assets import registry  # noqa: E402
from zeroe_assets.assets import atomic_write  # noqa: E402
from zeroe_assets.progress import progress_bar  # noqa: E402
from zeroe_assets.report import html as H  # noqa: E402
from zeroe_assets.report.html import Markup  # noqa: E402
from zeroe_assets.report.plots import pyplot  # noqa: E402
from zeroe_assets.shield import get_shield  # noqa: E402
from zeroe_assets.shield.accuracy import matched_words, words  # noqa: E402

SNLI_TEST = "bench/snli/snli_test.tsv"
UD_TEST = "bench/ud_ewt/en_ewt-ud-test.conllu"
NATURAL = "noise/en.natural"
OUT = ROOT / "benchmarks" / "results" / "shield_accuracy.json"
DOC = ROOT / "docs" / "shield-results.md"  # and its HTML page beside it (.html)
EXAMPLES = 2  # sentences per row shown in the HTML page
LEVEL, MIX_LEVEL = 0.3, 0.05
CHEAP = ("visual", "intrude")
TWICE, ALL_TEN = "one random perturber, twice", "all ten at 0.05"
WARM_UP = "The quick brown fox jumps over the lazy dog near the river bank at night."

# Keller, Mackensen & Eger 2021 (BERT-Defense), full pipeline, rescored as word accuracy on 400
# STS-B sentences attacked by the original Zéroe code at level 0.3; no cleaning second.
# Published figures, not measured here.
PUBLISHED = {"visual": (.895, .318), "intrude": (.922, .623), "keyboard-typo": (.888, .620),
             "natural-typo": (.855, .642), "truncate": (.845, .638),
             "inner-shuffle": (.900, .625), "full-shuffle": (.897, .611),
             "disemvowel": (.881, .617), "phonetic": (.767, .502), "segment": (.881, .550),
             TWICE: (.779, .348), ALL_TEN: (.690, .317)}
PUBLISHED_SOURCE = ("Keller, Mackensen & Eger 2021, BERT-Defense (full pipeline), 400 STS-B "
                    "sentences attacked by the original Zéroe code at 0.3, rescored with this "
                    "word accuracy")
COLUMNS = {"none": "no cleaning", "shield": "shield", "cheap": "visual+intrude",
           "baseline": "anyascii+symspellpy"}
TARGETS = {"every_row_above_bert_defense": "above BERT-Defense on every row",
           "mean_ten": "≥ .920 mean over the ten single perturbers",
           "twice": "≥ .800 on one random attacker, twice",
           "clean_unchanged": "≥ 99.5% of clean words unchanged",
           "shield_ms": "≤ 20 ms CPU per sentence, whole shield",
           "cheap_ms": "≤ 2 ms CPU per sentence, visual+intrude"}


# -- the held-out text ----------------------------------------------------------------------------
def snli_sentences(path: Path) -> list[str]:
    """Premises and hypotheses of an SNLI tsv (header ``gold_label sentence1 sentence2``), each
    distinct sentence once, in file order."""
    seen: dict[str, None] = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            for text in line.rstrip("\n").split("\t")[1:3]:
                if text.strip():
                    seen.setdefault(text)
    return list(seen)


def held_out(data: Path, n: int, seed: int) -> list[tuple[str, str]]:
    """``(corpus, sentence)``: a seeded sample of ⌈n/2⌉ SNLI test and ⌊n/2⌋ EWT test
    sentences (each distinct sentence once)."""
    pools = {"snli": snli_sentences(data / SNLI_TEST),
             "ewt": list(dict.fromkeys(read_corpus(data / UD_TEST)))}
    rng = random.Random(seed)
    sizes = {"snli": n - n // 2, "ewt": n // 2}
    return [(name, text) for name, pool in pools.items()
            for text in rng.sample(pool, min(sizes[name], len(pool)))]


# -- what is measured -----------------------------------------------------------------------------
def attackers(natural: Path | None) -> dict[str, z.Perturbation | None]:
    """Row name → attacker (None: the clean text as it is)."""
    names = registry.NAMES
    rows: dict[str, z.Perturbation | None] = {"clean text": None}
    for name in names:
        rows[name] = z.get_perturbation(name, level=LEVEL, protocol="reference")
    if natural is not None:
        rows["natural-typo (en.natural)"] = z.get_perturbation(
            "natural-typo", level=LEVEL, protocol="reference", source=str(natural))
    rows[TWICE] = z.get_perturbation("|".join(f"{a}+{a}" for a in names), level=LEVEL,
                                 protocol="reference")
    rows[ALL_TEN] = z.get_perturbation("+".join(f"{a}:{MIX_LEVEL}" for a in names),
                                   protocol="reference")
    return rows


def baseline():
    """The cheap chain: ``anyascii`` transliteration, then symspellpy's ``lookup_compound``
    (max edit distance 2, its defaults otherwise) with the dictionaries it ships."""
    from anyascii import anyascii
    from symspellpy import SymSpell

    spell = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
    data = resources.files("symspellpy")
    spell.load_dictionary(str(data / "frequency_dictionary_en_82_765.txt"), 0, 1)
    spell.load_bigram_dictionary(str(data / "frequency_bigramdictionary_en_243_342.txt"), 0, 2)

    def clean(text: str) -> str:
        ascii_text = anyascii(text)
        return spell.lookup_compound(ascii_text, 2)[0].term if ascii_text.strip() else ascii_text
    return clean


class Timed:
    """A cleaning function with the wall and CPU time of its calls, counted once ``timing``."""

    def __init__(self, fn):
        self.fn, self.timing, self.calls, self.wall, self.cpu = fn, False, 0, 0.0, 0.0

    def __call__(self, text: str, *args) -> str:
        cpu, start = time.thread_time(), time.perf_counter()
        out = self.fn(text, *args)
        if self.timing:
            self.wall += time.perf_counter() - start
            self.cpu += time.thread_time() - cpu
            self.calls += 1
        return out

    def speed(self) -> dict:
        return {"sentences": self.calls, "ms_per_sentence": round(1e3 * self.wall / self.calls, 3),
                "cpu_ms_per_sentence": round(1e3 * self.cpu / self.calls, 3)}


def score(clean: list[str], attacked: list[str], outputs: list[str]) -> dict:
    """Word accuracy of ``outputs``; words won (wrong when attacked, right after) and lost."""
    before = [matched_words(c, a) for c, a in zip(clean, attacked)]
    after = [matched_words(c, o) for c, o in zip(clean, outputs)]
    total = sum(len(words(c)) for c in clean)
    return {"accuracy": round(sum(map(len, after)) / total, 4),
            "won": sum(len(y - x) for x, y in zip(before, after)),
            "lost": sum(len(x - y) for x, y in zip(before, after))}


def attack(clean: list[str], rows: dict, seed: int) -> dict[str, list[str]]:
    """Row → the clean sentences as its attacker leaves them (one call: the toolkit's seeds)."""
    out = {}
    for row, attacker in rows.items():
        if attacker is not None and attacker.prepares:
            attacker.prepare(clean)
        out[row] = clean if attacker is None else attacker(clean, seed=seed)
    return out


def measure(clean, attacked_rows, cleaners, bar) -> dict:
    """Every row × every cleaner: word accuracy and words won/lost, a few harmed sentences."""
    out = {}
    for row, attacked in attacked_rows.items():
        entry = {"words": sum(len(words(c)) for c in clean),
                 "none": score(clean, attacked, attacked)["accuracy"]}
        for name, fn in cleaners.items():
            wall = getattr(fn, "wall", 0.0)
            outputs = [fn(t) for t in attacked]
            bar.update(len(clean))
            entry[name] = score(clean, attacked, outputs)
            if isinstance(fn, Timed):
                entry[name]["ms_per_sentence"] = round(1e3 * (fn.wall - wall) / len(clean), 3)
            if name == "shield":
                triples = [{"clean": c, "attacked": a, "shield": o}
                           for c, a, o in zip(clean, attacked, outputs)]
                entry["harmed"] = [t for t in triples if matched_words(t["clean"], t["attacked"])
                                   - matched_words(t["clean"], t["shield"])][:3]
                entry["examples"] = [t for t in triples if t["attacked"] != t["clean"]][:EXAMPLES]
        out[row] = entry
        bar.write(f"{row} {json.dumps({k: entry[k]['accuracy'] for k in cleaners})}")
    return out


def ablation(clean, attacked_rows, shield, bar) -> dict:
    """Word accuracy of the shield without each of its mechanisms, per row."""
    out = {}
    for mechanism in shield.restorers:
        fewer = get_shield(mechanisms=[m for m in shield.mechanisms if m != mechanism])
        accuracy = measure(clean, attacked_rows, {"shield": fewer.restore}, bar)
        out[mechanism] = {row: entry["shield"]["accuracy"] for row, entry in accuracy.items()}
    return out


def targets(rows: dict, speed: dict) -> dict:
    """Each of the issue's targets: the measured value and whether it is met."""
    ten = [rows[n]["shield"]["accuracy"] for n in registry.NAMES]
    above = all(rows[r]["shield"]["accuracy"] > p[0] for r, p in PUBLISHED.items())
    values = {"every_row_above_bert_defense": (above, above),
              "mean_ten": (round(statistics.mean(ten), 4), statistics.mean(ten) >= .92),
              "twice": (rows[TWICE]["shield"]["accuracy"], rows[TWICE]["shield"]["accuracy"] >= .8),
              "clean_unchanged": (rows["clean text"]["shield"]["accuracy"],
                                  rows["clean text"]["shield"]["accuracy"] >= .995),
              # CPU time, as the targets say: on a shared machine wall time counts the others
              "shield_ms": (speed["shield"]["cpu_ms_per_sentence"],
                            speed["shield"]["cpu_ms_per_sentence"] <= 20),
              "cheap_ms": (speed["cheap"]["cpu_ms_per_sentence"],
                           speed["cheap"]["cpu_ms_per_sentence"] <= 2)}
    return {k: {"target": TARGETS[k], "measured": v, "met": bool(met)}
            for k, (v, met) in values.items()}


def commit() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout
    head = git("rev-parse", "HEAD").strip() or "unknown"
    return head + (" (with uncommitted changes)" if git("status", "--porcelain",
                                                        "--untracked-files=no").strip() else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--sentences", type=int, default=400,
                        help="held-out sentences, half SNLI test, half EWT test (default: 400)")
    parser.add_argument("--seed", type=int, default=0, help="sample and attack seed (default: 0)")
    parser.add_argument("--ablation", action="store_true",
                        help="also measure the shield without each mechanism in turn")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--render", action="store_true",
                        help="only rewrite --doc (.md and .html) from the JSON in --out")
    args = parser.parse_args()
    if args.render:
        return write_docs(json.loads(args.out.read_text(encoding="utf-8")), args.doc)
    if args.sentences < 2:
        sys.exit("--sentences must be at least 2")
    for name in (SNLI_TEST, UD_TEST):
        if not (args.data / name).is_file():
            sys.exit(f"{args.data / name} not found: pass --data DIR or set ZEROE_DATA")
    load, started = os.getloadavg(), time.perf_counter()
    sample = held_out(args.data, args.sentences, args.seed)
    clean = [text for _, text in sample]
    natural = args.data / NATURAL
    rows = attackers(natural if natural.is_file() else None)
    attacked = attack(clean, rows, args.seed)
    shield, cheap = get_shield(), get_shield(mechanisms=CHEAP)
    cleaners = {"shield": Timed(shield.restore), "cheap": Timed(cheap.restore),
                "baseline": Timed(baseline())}
    for attacker in rows.values():  # warm-up: every index the cleaners build on first use
        text = WARM_UP if attacker is None else attacker(WARM_UP, seed=args.seed)
        for fn in cleaners.values():
            fn(text)
    for fn in cleaners.values():
        fn.timing = True
    runs = len(rows) * (len(cleaners) + (len(shield.restorers) if args.ablation else 0))
    with progress_bar(runs * len(clean), "shield benchmark", " sentences") as bar:
        measured = measure(clean, attacked, cleaners, bar)
        ablated = ablation(clean, attacked, shield, bar) if args.ablation else None
    speed = {name: fn.speed() for name, fn in cleaners.items()}
    result = {
        "command": shlex.join(["python", "benchmarks/shield_accuracy.py", *sys.argv[1:]]),
        "commit": commit(),
        "corpus": {"snli": recorded(args.data / SNLI_TEST, args.data),
                   "ewt": recorded(args.data / UD_TEST, args.data),
                   "sentences": {c: sum(n == c for n, _ in sample) for c in ("snli", "ewt")},
                   "words": sum(len(words(t)) for t in clean)},
        "seed": args.seed, "level": LEVEL, "mix_level": MIX_LEVEL, "protocol": "reference",
        "shield": shield.describe(), "cheap": cheap.describe(),
        "baseline": f"anyascii {metadata.version('anyascii')} then symspellpy "
                    f"{metadata.version('symspellpy')} lookup_compound (max edit distance 2, "
                    "bundled unigram and bigram dictionaries)",
        "published": {"source": PUBLISHED_SOURCE,
                      "rows": {r: {"bert_defense": b, "none": n}
                               for r, (b, n) in PUBLISHED.items()}},
        "attacks": {row: "" if a is None else a.name for row, a in rows.items()},
        "rows": measured, "speed": speed, "targets": targets(measured, speed),
        "ablation": ablated,
        "threads": {v: os.environ[v] for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                               "MKL_NUM_THREADS")},
        "loadavg_at_start": [round(x, 2) for x in load],
        "seconds": round(time.perf_counter() - started, 1),
    }
    atomic_write(args.out, json.dumps(result, indent=1, ensure_ascii=False).encode() + b"\n")
    write_docs(result, args.doc)
    json.dump(result, sys.stdout, indent=1, ensure_ascii=False)
    print()


# -- docs/shield-results.md -----------------------------------------------------------------------
def _a(value) -> str:
    return "–" if value is None else f"{value:.3f}".lstrip("0")


def _measured(key: str, value, speed: dict) -> str:
    """A target's measured value as the targets table shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key.endswith("_ms"):
        return f"{value:.2f} ms CPU ({speed[key[:-3]]['ms_per_sentence']:.2f} wall)"
    return f"{100 * value:.2f}%" if key == "clean_unchanged" else _a(value)


def markdown(result: dict) -> str:
    """docs/shield-results.md from the JSON: word accuracy per row and cleaner, the targets,
    speed, and (if measured) what each mechanism adds."""
    rows, published = result["rows"], result["published"]["rows"]
    corpus = result["corpus"]
    lines = ["# Shield results", "",
             f"Word accuracy (the share of the clean sentence's words recovered exactly: difflib "
             f"alignment of lower-cased letter-and-digit runs, `zeroe_assets.shield.accuracy`) on "
             f"{corpus['sentences']['snli'] + corpus['sentences']['ewt']} held-out sentences "
             f"({corpus['sentences']['snli']} from `{corpus['snli']}`, "
             f"{corpus['sentences']['ewt']} from `{corpus['ewt']}`; {corpus['words']} words), "
             f"every perturber at level {result['level']} under the `{result['protocol']}` "
             f"protocol, seed {result['seed']}. The *clean text* row is the share of clean words "
             "each cleaner leaves unchanged. BERT-Defense's figures are **published, not "
             f"measured here** ({result['published']['source']}; its no-cleaning figure in "
             "brackets). Reproduce: "
             f"`{result['command']}` (raw numbers: "
             "[../benchmarks/results/shield_accuracy.json]"
             "(../benchmarks/results/shield_accuracy.json); a page with a plot and examples: "
             "[shield-results.html](shield-results.html)).", "",
             "| attack | " + " | ".join(COLUMNS.values()) +
             " | shield: words won / lost | BERT-Defense (published) |",
             "|---|" + "---:|" * (len(COLUMNS) + 2)]
    ten = [r for r in registry.NAMES if r in rows]
    for row, entry in rows.items():
        pub = published.get(row)
        lines.append(f"| {row} | {_a(entry['none'])} | " +
                     " | ".join(_a(entry[c]["accuracy"]) for c in COLUMNS if c != "none") +
                     f" | {entry['shield']['won']} / {entry['shield']['lost']} | " +
                     (f"{_a(pub['bert_defense'])} ({_a(pub['none'])})" if pub else "–") + " |")
        if row == ten[-1]:
            means = [round(statistics.mean(rows[r][c] if c == "none" else rows[r][c]["accuracy"]
                                           for r in ten), 4) for c in COLUMNS]  # as targets
            pub_mean = statistics.mean(published[r]["bert_defense"] for r in ten)
            pub_none = statistics.mean(published[r]["none"] for r in ten)
            lines.append(f"| **mean of the ten** | " + " | ".join(map(_a, means)) +
                         f" | | {_a(pub_mean)} ({_a(pub_none)}) |")
    lines += ["", "## Targets", "", "| target | measured | met |", "|---|---:|---|"]
    for key, entry in result["targets"].items():
        lines.append(f"| {entry['target']} | {_measured(key, entry['measured'], result['speed'])}"
                     f" | {'yes' if entry['met'] else '**no**'} |")
    lines += ["", "## Speed", "",
              f"Only the cleaning calls are timed, after a warm-up, in one process with one thread "
              f"(`time.perf_counter`; CPU: the thread's CPU time), over every row's sentences; "
              f"load average at start {result['loadavg_at_start']} (the machine is shared, so "
              "wall time can exceed CPU time).", "",
              "| cleaner | sentences | ms per sentence | CPU ms per sentence |",
              "|---|---:|---:|---:|"]
    for name, entry in result["speed"].items():
        lines.append(f"| {COLUMNS[name]} | {entry['sentences']} | "
                     f"{entry['ms_per_sentence']:.2f} | {entry['cpu_ms_per_sentence']:.2f} |")
    cleaners = list(result["speed"])
    lines += ["", "Milliseconds per sentence by row:", "",
              "| attack | " + " | ".join(COLUMNS[c] for c in cleaners) + " |",
              "|---|" + "---:|" * len(cleaners)]
    lines += [f"| {row} | " + " | ".join(f"{entry[c]['ms_per_sentence']:.2f}" for c in cleaners)
              + " |" for row, entry in rows.items()]
    if result["ablation"]:
        mechanisms = list(result["ablation"])
        lines += ["", "## What each mechanism adds", "",
                  "Word accuracy of the whole shield minus that of the shield without the "
                  "mechanism, in points (positive: the mechanism wins more words than it loses; "
                  "on *clean text*, negative is harm it does).", "",
                  "| attack | " + " | ".join(mechanisms) + " |",
                  "|---|" + "---:|" * len(mechanisms)]
        for row, entry in rows.items():
            lines.append(f"| {row} | " + " | ".join(
                f"{100 * (entry['shield']['accuracy'] - result['ablation'][m][row]):+.1f}"
                for m in mechanisms) + " |")
    lines += ["", "## Setup", "",
              f"- shield: {result['shield']}", f"- visual+intrude: {result['cheap']}",
              f"- anyascii+symspellpy: {result['baseline']}",
              f"- one random perturber, twice: per sentence one of the ten drawn (seeded) and "
              f"applied twice, the mix `a+a|b+b|…`; all ten at {result['mix_level']}: the chain "
              f"`a:{result['mix_level']}+b:{result['mix_level']}+…` in the registry's order",
              f"- {result['seconds']:.0f} s in all (the commit it ran at is in the JSON)", ""]
    return "\n".join(lines)


# -- docs/shield-results.html --------------------------------------------------------------------
def write_docs(result: dict, doc: Path) -> None:
    atomic_write(doc, markdown(result).encode())
    atomic_write(doc.with_suffix(".html"), page(result).encode())


def plot(result: dict) -> bytes:
    """Word accuracy per row, one bar per cleaner (and BERT-Defense's published figure)."""
    import io

    plt = pyplot()

    rows, published = result["rows"], result["published"]["rows"]
    names = list(rows)
    bars = {label: [rows[r][c] if c == "none" else rows[r][c]["accuracy"] for r in names]
            for c, label in COLUMNS.items()}
    bars["BERT-Defense (published)"] = [published.get(r, {}).get("bert_defense", float("nan"))
                                        for r in names]
    fig, ax = plt.subplots(figsize=(10, 4.2))
    width = 0.8 / len(bars)
    for k, (label, values) in enumerate(bars.items()):
        ax.bar([i + (k - (len(bars) - 1) / 2) * width for i in range(len(names))], values,
               width, label=label)
    ax.set_xticks(range(len(names)), names, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("word accuracy")
    ax.set_ylim(0, 1.12)
    ax.legend(fontsize=7, ncol=len(bars), loc="upper center")
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=110)
    plt.close(fig)
    return out.getvalue()


def page(result: dict) -> str:
    """The HTML page: the accuracy table (sortable), the targets, a plot, and per row the
    first attacked sentences and those the shield harmed, clean / attacked / restored."""
    rows, published = result["rows"], result["published"]["rows"]
    accuracy = H.table(
        ["attack", *COLUMNS.values(), "shield: words won", "lost", "BERT-Defense (published)"],
        [[row, e["none"], *(e[c]["accuracy"] for c in COLUMNS if c != "none"),
          e["shield"]["won"], e["shield"]["lost"], published.get(row, {}).get("bert_defense")]
         for row, e in rows.items()])
    targets = H.table(["target", "measured", "met"],
                      [[t["target"], _measured(k, t["measured"], result["speed"]),
                        "yes" if t["met"] else "no"] for k, t in result["targets"].items()],
                      sortable=False)
    speed = H.table(["cleaner", "sentences", "ms per sentence", "CPU ms per sentence"],
                    [[COLUMNS[n], e["sentences"], e["ms_per_sentence"], e["cpu_ms_per_sentence"]]
                     for n, e in result["speed"].items()], digits=2)

    def shown(key):
        return [{"attack": row, "original": t["clean"], "attacked": t["attacked"],
                 "restored": t["shield"]} for row, e in rows.items() for t in e.get(key, ())]
    corpus = result["corpus"]
    parts = [H.paragraph(f"Word accuracy on {sum(corpus['sentences'].values())} held-out "
                         f"sentences ({corpus['words']} words), every perturber at level "
                         f"{result['level']} under the {result['protocol']} protocol, seed "
                         f"{result['seed']}; the clean-text row is the share of clean words "
                         "left unchanged. BERT-Defense's figures are published, not measured "
                         f"here. Reproduce: {result['command']}."),
             H.row(accuracy, Markup(H.heading("Targets", 3) + targets
                                    + H.heading("Speed", 3) + speed)),
             H.figure(plot(result), "word accuracy per attack and cleaner", width=1000)]
    for key, title in (("examples", "Attacked sentences (the first per row)"),
                       ("harmed", "Sentences the shield harmed (words right before, wrong "
                                  "after)")):
        if shown(key):
            parts.append(H.details(f"{title}: {len(shown(key))}",
                                   H.examples(shown(key), lead=("attack",))))
    return H.page("Shield results", *parts)


if __name__ == "__main__":
    main()
