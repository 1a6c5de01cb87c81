"""The shield's phonetic restorer on held-out text (JSON on stdout, benchmarks/results/).

SNLI test hypotheses (sentence2, distinct, in file order) attacked by ``phonetic`` at level 0.3
under the ``reference`` protocol, seed = the sentence's number:

- recall@1/5/20: share of the changed words whose clean form is among the restorer's first
  1/5/20 candidates for the attacked stem;
- clean words: the candidates the restorer proposes for words the attack left alone;
- word accuracy (difflib alignment of lower-cased alphanumeric tokens) of the whole shield with
  and without the phonetic restorer, on the attacked and on the clean sentences;
- speed: the restorer's load time and µs per lookup.

    python benchmarks/shield_phonetic.py [--data DIR] [--recall 1000] [--sentences 300]
"""
from __future__ import annotations

import argparse
import csv
import difflib
import json
import re
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.perturb_throughput import DATA, DATA_HELP, recorded  # noqa: E402
from zeroe_assets import attack, tokenize  # noqa: E402
from zeroe_assets.perturbers.phonetic import oov_available  # noqa: E402
from zeroe_assets.shield import MECHANISMS, Shield, get_shield  # noqa: E402
from zeroe_assets.shield.lexicon import load_lexicon  # noqa: E402

SNLI_TEST = Path("bench/snli/snli_test.tsv")


def hypotheses(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(dict.fromkeys(r["sentence2"] for r in csv.DictReader(f, delimiter="\t")
                                  if r["sentence2"].strip()))


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def word_accuracy(pairs: list[tuple[str, str]]) -> float:
    """Share of the clean sentences' tokens that the restored ones match (difflib alignment)."""
    hit = total = 0
    for clean, restored in pairs:
        a, b = tokens(clean), tokens(restored)
        hit += sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False)
                   .get_matching_blocks())
        total += len(a)
    return round(hit / max(total, 1), 4)


def changed_words(clean: str, attacked: str) -> list[tuple[str, str]]:
    """``(clean stem, attacked stem)`` of each word the attack changed (it changes words one
    for one; a sentence whose word count changed is skipped)."""
    a, b = tokenize.split(clean)[0], tokenize.split(attacked)[0]
    if len(a) != len(b):
        return []
    return [(tokenize.stem(x)[1], tokenize.stem(y)[1]) for x, y in zip(a, b) if x != y]


def recall(restorer, pairs: list[tuple[str, str]]) -> dict:
    """recall@k of the clean word among the candidates of the attacked stem."""
    lexicon = load_lexicon()
    ranks = []
    for clean, attacked in pairs:
        found = list(restorer.candidates(attacked))
        ranks.append(found.index(clean.lower()) + 1 if clean.lower() in found else None)
    restorable = [r for (c, _), r in zip(pairs, ranks) if c.lower() in lexicon]
    out = {"changed_words": len(pairs), "clean_in_lexicon": len(restorable)}
    for k in (1, 5, 20):
        out[f"recall@{k}"] = round(sum(r is not None and r <= k for r in ranks) / len(ranks), 4)
    return out


def clean_load(restorer, sentences: list[str]) -> dict:
    """How many candidates the restorer proposes for clean words (the shield's false alarms)."""
    stems = [tokenize.stem(w)[1] for s in sentences for w in tokenize.split(s)[0]]
    stems = [s for s in stems if any(c.isalpha() for c in s)]
    sizes = [len(restorer.candidates(s)) for s in stems]
    return {"clean_words": len(stems), "mean_candidates": round(sum(sizes) / len(sizes), 3),
            "with_candidates": round(sum(n > 0 for n in sizes) / len(sizes), 4)}


def speed(restorer_type, words: list[str]) -> dict:
    """Load time (the inverse table, then the sound-key index) and µs per lookup, on every
    token of ``words`` and on those outside the lexicon and the table (the sound keys')."""
    lexicon = load_lexicon()
    start = time.perf_counter()
    restorer = restorer_type(lexicon, None)
    loaded = time.perf_counter()
    restorer.by_sound
    keyed = time.perf_counter()
    out = {"load_table_s": round(loaded - start, 3), "load_keys_s": round(keyed - loaded, 3)}
    rare = [w for w in words if w.lower() not in lexicon and w.lower() not in restorer.inverse]
    for label, todo in (("lookup_us", words), ("lookup_keys_us", rare)):
        start = time.perf_counter()
        for w in todo:
            restorer.candidates(w)
        out[label] = round((time.perf_counter() - start) / max(len(todo), 1) * 1e6, 2)
    out["tokens_keyed"] = round(len(rare) / len(words), 4)
    return out


def unseen(restorer, held) -> None:
    """Drop the words ``held`` keeps from ``restorer``'s inverse table: their respellings then
    stand for another tool's, which the table never saw."""
    restorer.inverse = {k: kept for k, v in restorer.inverse.items()
                        if (kept := {w: s for w, s in v.items() if not held(w)})}


def held_half(word: str) -> bool:
    return zlib.crc32(word.encode()) % 2 == 0


def shield_accuracy(shield, clean: list[str], attacked: list[str]) -> dict:
    return {"attacked": word_accuracy(list(zip(clean, shield(attacked)))),
            "clean": word_accuracy(list(zip(clean, shield(clean))))}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--recall", type=int, default=1000, help="sentences for recall@k")
    parser.add_argument("--sentences", type=int, default=300, help="sentences for the shield")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks/results/shield_phonetic.json")
    args = parser.parse_args(argv)
    from zeroe_assets.shield.phonetic import PhoneticRestorer

    path = args.data / SNLI_TEST
    clean = hypotheses(path)[:max(args.recall, args.sentences)]
    attacked = [attack(s, "phonetic", level=0.3, protocol="reference", seed=i)
                for i, s in enumerate(clean)]
    timing = speed(PhoneticRestorer, [w for s in attacked for w in tokenize.words(s)])
    lexicon = load_lexicon()
    restorer = PhoneticRestorer(lexicon, None)
    pairs = [p for c, a in zip(clean[:args.recall], attacked) for p in changed_words(c, a)]
    n = args.sentences
    configs = {"without_phonetic": [m for m in MECHANISMS if m != "phonetic"],
               "with_phonetic": list(MECHANISMS), "phonetic_only": ["phonetic"]}
    shield = {label: shield_accuracy(get_shield(mechanisms=m), clean[:n], attacked[:n])
              for label, m in configs.items()}
    # another tool's respellings: half the words leave the inverse table; recall and the
    # shield on the changed words of that half (the sound keys must find them)
    hidden, exact_only = PhoneticRestorer(lexicon, None), PhoneticRestorer(lexicon, None)
    unseen(hidden, held_half)
    unseen(exact_only, held_half)
    exact_only.by_sound = {}  # no sound keys: what the inverse table alone finds
    hidden_shield = {}
    for label, which in (("with_phonetic", hidden), ("phonetic_only", hidden),
                         ("phonetic_only_no_keys", exact_only)):
        s = Shield(configs[label.replace("_no_keys", "")])
        s.restorers["phonetic"] = which
        hidden_shield[label] = shield_accuracy(s, clean[:n], attacked[:n])
    result = {"data": recorded(path, args.data), "attack": "phonetic, level 0.3, reference",
              "oov_path": oov_available(), "sentences_recall": min(args.recall, len(clean)),
              "sentences_shield": min(n, len(clean)),
              "recall": recall(restorer, pairs), "clean_words": clean_load(restorer, clean[:n]),
              "no_attack": word_accuracy(list(zip(clean[:n], attacked[:n]))),
              "shield": shield,
              "unseen_half": {"recall": recall(hidden, [(c, a) for c, a in pairs
                                                        if held_half(c.lower())]),
                              "shield": hidden_shield},
              "speed": timing}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
