"""Count the benchmark's *training* text and export the shield's context model
(`zeroe_assets.shield.lm`, component ``shield/lm``): an interpolated Kneser–Ney word trigram
model whose lowest order falls back on the lexicon's unigram frequencies.

The text is what the ranker trains on (``conf/shield.yaml``'s sources): OLID's training tweets,
SNLI dev (the NLI victim's training split) and UD EWT train; never the test splits the
benchmarks score on (OLID test, SNLI test, EWT test), and not every ``HELD_OUT``-th training
tweet, kept apart to count the clean words the shield changes on tweets the model never read.
Each sentence is cut into clauses where punctuation, a number or a placeholder (OLID's
``@USER``, ``URL``) stands, as the shield cuts a word's context; words are the tokenizer's stems
in lower case, each clitic (``n't``, ``'s``) a word of its own.

    python -m train.shield.lm [--data DIR] [--export-to DIR]
"""
from __future__ import annotations

import argparse
import math
import os
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from zeroe_assets import tokenize
from zeroe_assets.shield.lexicon import load_lexicon
from zeroe_assets.shield.lm import END, START, pack, write_context_model

from .data import read_sentences
from .tweets import PLACEHOLDERS

SOURCES = {"olid": ("bench/olid/olid-training-v1.0.tsv", ["tweet"]),
           "snli": ("bench/snli/snli_dev.tsv", ["sentence1", "sentence2"]),
           "ud_ewt": ("bench/ud_ewt/en_ewt-ud-train.conllu", None)}
HELD_OUT = 10  # OLID training tweets 0, 10, 20 … (after de-duplication) are not counted


def held_out(tweets: list[str]) -> list[str]:
    """The OLID training tweets the model does not count (a false-positive check's text)."""
    return tweets[::HELD_OUT]


def clauses(text: str) -> list[list[str]]:
    """The clauses of ``text`` as lists of lower-case words (stems and clitics)."""
    words, gaps = tokenize.split(text)
    out: list[list[str]] = [[]]
    for word, gap in zip(words, gaps):
        head, stem, tail = tokenize.stem(word)
        low = stem.lower()
        if gap.strip() or head or not (low.isascii() and low.isalpha()) \
                or low in PLACEHOLDERS:
            out.append([])
        if low.isascii() and low.isalpha() and low not in PLACEHOLDERS:
            out[-1].append(low)
            if tail:
                out[-1].append(tail.lower().replace("’", "'"))
    return [c for c in out if c]


def _discount(counts) -> float:
    """Kneser–Ney's absolute discount from the counts of counts: n1 / (n1 + 2 n2)."""
    of = Counter(c for c in counts if c <= 2)
    return of[1] / (of[1] + 2 * of[2]) if of[1] else 0.5


def estimate(sentences, lexicon) -> tuple[list[str], dict[str, np.ndarray], float, dict]:
    """Interpolated Kneser–Ney over the clauses of ``sentences``: the vocabulary, the arrays
    `ContextModel` reads, the log10 weight of the lexicon's unigram and the model's sizes."""
    tri: Counter = Counter()
    tokens = 0
    for text in sentences:
        for clause in clauses(text):
            tokens += len(clause)
            seq = [START] + clause + [END]
            tri.update(zip(seq, seq[1:], seq[2:]))
            tri[START, START, seq[1]] += 1  # the first word's history: the clause's start
    # lower orders count the distinct words before an n-gram (continuation counts), except
    # n-grams that start a clause, which nothing precedes: those keep their raw counts
    bi: Counter = Counter()
    for (u, v, w), c in tri.items():
        bi[v, w] += c if v == START else 1
    uni: Counter = Counter(w for (_, w) in bi)
    d3, d2, d1 = _discount(tri.values()), _discount(bi.values()), _discount(uni.values())

    words = [START, END] + sorted(w for w in uni if w != END)
    ids = {w: i for i, w in enumerate(words)}
    total1 = sum(uni.values())
    gamma = d1 * len(uni) / total1
    p1 = np.full(len(words), -99.0)
    for w, c in uni.items():
        p1[ids[w]] = math.log10(max(c - d1, 0) / total1 + gamma * 10 ** lexicon.logfreq(w))

    def history_stats(counts, order):
        total, types = defaultdict(int), defaultdict(int)
        for k, c in counts.items():
            total[k[:order - 1]] += c
            types[k[:order - 1]] += 1
        return total, types

    total2, types2 = history_stats(bi, 2)
    uni_bow = np.zeros(len(words))
    for (v,), t in total2.items():
        uni_bow[ids[v]] = math.log10(d2 * types2[v,] / t)
    bi_keys = np.array(sorted(pack(ids[v], ids[w]) for v, w in bi), dtype=np.uint64)
    p2 = {}
    for (v, w), c in bi.items():
        t = total2[v,]
        p2[v, w] = math.log10(max(c - d2, 0) / t + d2 * types2[v,] / t * 10 ** p1[ids[w]])
    total3, types3 = history_stats(tri, 3)
    index = {int(k): n for n, k in enumerate(bi_keys)}
    bi_p = np.zeros(len(bi_keys))
    bi_bow = np.zeros(len(bi_keys))
    for (v, w), p in p2.items():
        n = index[pack(ids[v], ids[w])]
        bi_p[n] = p
        if (v, w) in total3:
            bi_bow[n] = math.log10(d3 * types3[v, w] / total3[v, w])
    tri_items = sorted((pack(ids[u], ids[v], ids[w]), u, v, w, c) for (u, v, w), c in tri.items())
    tri_keys = np.array([k for k, *_ in tri_items], dtype=np.uint64)
    tri_p = np.array([math.log10(max(c - d3, 0) / total3[u, v]
                                 + d3 * types3[u, v] / total3[u, v] * 10 ** p2[v, w])
                      for _, u, v, w, c in tri_items])
    arrays = {"uni": p1.astype(np.float32), "uni_bow": uni_bow.astype(np.float32),
              "bi_keys": bi_keys, "bi": bi_p.astype(np.float32),
              "bi_bow": bi_bow.astype(np.float32), "tri_keys": tri_keys,
              "tri": tri_p.astype(np.float32)}
    sizes = {"words": len(words), "bigrams": len(bi_keys), "trigrams": len(tri_keys),
             "tokens": tokens,
             "discounts": [round(d1, 4), round(d2, 4), round(d3, 4)]}
    return words, arrays, math.log10(gamma), sizes


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("ZEROE_DATA", "data")))
    parser.add_argument("--export-to", type=Path, default=None,
                        help="artifacts folder (default: the runtime's)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    sentences, counted = [], {}
    for name, (rel, fields) in SOURCES.items():
        found = read_sentences(args.data / rel, fields)
        if name == "olid":
            found = [t for k, t in enumerate(found) if k % HELD_OUT]  # without `held_out`
        counted[name] = {"path": rel, "sentences": len(found)}
        sentences += found
    words, arrays, gamma, sizes = estimate(sentences, load_lexicon())
    meta = {"sources": counted, **sizes, "seconds": round(time.perf_counter() - started, 1),
            "command": "python -m train.shield.lm"}
    write_context_model(words, arrays, gamma, meta, args.export_to)
    print(meta)


if __name__ == "__main__":
    main()
