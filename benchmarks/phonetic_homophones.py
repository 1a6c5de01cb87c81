"""Does the phonetic space hear? Homophone retrieval, hit@1 and hit@10 (JSON on stdout).

Truth comes from a lexicon: the words that share a pronunciation with the query. Query sets:

- ``combilex``: the other lexicon (Combilex; the space and the embedder were built on CMUdict).
  Queries are vocabulary words outside the training split (``split_of`` ≠ train, so no training
  pair of the embedder contains them) with a Combilex homophone in the vocabulary;
- ``combilex-only``: those of them whose Combilex homophones are all *not* homophones in CMUdict
  (the two lexicons disagree: what exact matching cannot find);
- ``combilex-unknown``: Combilex words outside the vocabulary (the space pronounces them with the
  G2P's n-best), with a Combilex homophone in it;
- ``cmudict``: test-split CMUdict words with a CMUdict homophone (the older yardstick).

Methods: the space (``neighbours``), its parts (ranked without word counts; the index's vectors
alone), the character-level embedder's nearest spellings (the phonetic index before the sound
index), Double Metaphone and Soundex buckets ranked by spelling edit distance, and exact matching
of CMUdict pronunciations (more frequent words first). ``near_first``: share of queries whose
top 10 put every near-homophone (CMUdict phone distance ≤ 0.1) before every other word.

    python benchmarks/phonetic_homophones.py [--data DIR] [--root ARTIFACTS] [--out FILE]

Needs ``train`` (lexicon readers), the ``bench`` extra (jellyfish, metaphone) and torch (the
embedder and G2P).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from zeroe_assets.assets.index import normalise  # noqa: E402
from zeroe_assets.phonetic.sound import BOUNDS, phone_vectors  # noqa: E402
from zeroe_assets.phonetic.space import load_phonetic  # noqa: E402

COMBILEX = "combilex/combilex_en_ph.tsv"


def groups(lexicon, vocab: set[str]) -> dict[str, set[str]]:
    """Word → the vocabulary words sharing one of its pronunciations in ``lexicon``."""
    by_pron: dict[tuple, set[str]] = defaultdict(set)
    for word, pron in lexicon.pairs():
        by_pron[lexicon.sounding(pron)].add(word)
    truth: dict[str, set[str]] = defaultdict(set)
    for group in by_pron.values():
        inside = group & vocab
        for word in group:
            truth[word] |= inside - {word}
    return {w: t for w, t in truth.items() if t}


def query_sets(space, data: Path) -> dict[str, tuple[list[str], dict[str, set[str]]]]:
    from train.phonetic.lexicon import filter_lexicon, read_cmudict, read_combilex, split_of

    vocab = set(space.table.words)
    cmu = groups(filter_lexicon(read_cmudict()), vocab)
    sets = {}
    path = data / COMBILEX
    if path.exists():
        comb = groups(read_combilex(path, lenient=True), vocab)
        held = sorted(w for w in comb if w in vocab and split_of(w) != "train")
        sets["combilex"] = (held, comb)
        sets["combilex-only"] = ([w for w in held if not comb[w] & cmu.get(w, set())], comb)
        sets["combilex-unknown"] = (sorted(w for w in comb if w not in vocab and w.isascii() and w.isalpha()), comb)
    sets["cmudict"] = (sorted(w for w in cmu if split_of(w) == "test"), cmu)
    return sets


def methods(space) -> dict:
    import jellyfish
    from metaphone import doublemetaphone
    from rapidfuzz.distance import Levenshtein

    from zeroe_assets.phonetic.embedder import load_embedder

    sound, words = space.sound, space.table.words
    rows = {w: i for i, w in enumerate(words)}

    def bucketed(codes):
        buckets: dict[str, list[str]] = defaultdict(list)
        for word in words:
            for code in codes(word):
                if code:
                    buckets[code].append(word)

        def rank(word):
            pool = {w for c in codes(word) if c for w in buckets.get(c, ())} - {word}
            return sorted(pool, key=lambda w: (Levenshtein.distance(word, w), w))[:10]
        return rank

    by_pron: dict[tuple, list[int]] = defaultdict(list)
    for row, word in enumerate(words):
        for p in sound.pronunciations(word):
            by_pron[p].append(row)

    def exact(word):
        pool = {r for p in sound.pronounce([word])[0] for r in by_pron.get(p, ())} - \
            {rows.get(word)}
        return [words[r] for r in sorted(pool, key=lambda r: (-int(sound.counts[r]), words[r]))][:10]

    embedder = load_embedder(space.root)
    vectors = normalise(embedder.embed(list(words)))

    def spelling(word):
        v = embedder.embed([word])[0]
        order = np.argsort(-(vectors @ normalise(v[None])[0]))[:11]
        return [words[r] for r in order.tolist() if words[r] != word][:10]

    def vector_only(word):
        prons = sound.pronounce([word])[0]
        keys, scores = sound.index.batch_search(phone_vectors(prons), 40)
        best: dict[int, float] = {}
        for k, s in zip(keys.ravel().tolist(), scores.ravel().tolist()):
            if k != rows.get(word):
                best[k] = max(best.get(k, -1.0), s)
        return [words[r] for r in sorted(best, key=lambda r: -best[r])][:10]

    def no_counts(word):
        saved = sound.counts
        sound.counts = np.zeros_like(saved)
        try:
            return [w for w, _ in sound.neighbours(word, 10)]
        finally:
            sound.counts = saved

    return {
        "sound space": lambda w: [x for x, _ in sound.neighbours(w, 10)],
        "sound space without counts": no_counts,
        "sound index vectors alone": vector_only,
        "embedder spellings (before)": spelling,
        "cmudict exact": exact,
        "double metaphone": bucketed(lambda w: doublemetaphone(w)),
        "soundex": bucketed(lambda w: [jellyfish.soundex(w)]),
    }


def near_first(sound, word: str, found: list[str]) -> bool | None:
    """Whether every near-homophone in ``found`` comes before every other word (None: no
    near-homophone, or a word without pronunciation)."""
    dist = [sound.distance(word, w) for w in found]
    if any(d is None for d in dist) or not any(d <= BOUNDS[0] for d in dist):
        return None
    near = [d <= BOUNDS[0] for d in dist]
    return near == sorted(near, reverse=True)


def evaluate(space, sets, chosen) -> dict:
    out = {}
    for name, (queries, truth) in sets.items():
        row = {"queries": len(queries)}
        space.sound.pronounce(queries)  # the G2P for unknown words, batched once
        for method, rank in chosen.items():
            if name.endswith("unknown") and method in ("cmudict exact", "sound space without counts",
                                                        "sound index vectors alone"):
                continue
            started, h1, h10, ordered, judged = time.perf_counter(), 0, 0, 0, 0
            for word in queries:
                found = rank(word)
                h1 += bool(found) and found[0] in truth[word]
                h10 += any(w in truth[word] for w in found[:10])
                if word in space.rows:
                    ok = near_first(space.sound, word, found[:10])
                    if ok is not None:
                        judged += 1
                        ordered += ok
            row[method] = {"hit@1": round(h1 / max(len(queries), 1), 4),
                           "hit@10": round(h10 / max(len(queries), 1), 4),
                           "near_first": round(ordered / judged, 4) if judged else None,
                           "ms_per_query": round(1000 * (time.perf_counter() - started)
                                                 / max(len(queries), 1), 2)}
            print(name, method, row[method], file=sys.stderr, flush=True)
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("ZEROE_DATA", ".")),
                        help="the shared data folder (default $ZEROE_DATA)")
    parser.add_argument("--root", type=Path, default=None, help="artifact root (default artifacts/)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/phonetic_homophones.json")
    args = parser.parse_args()
    space = load_phonetic(args.root)
    started = time.perf_counter()
    result = {"vocabulary": len(space.table.words),
              "pronunciations": len(space.sound.prons),
              "sets": evaluate(space, query_sets(space, args.data), methods(space))}
    result["seconds"] = round(time.perf_counter() - started, 1)
    text = json.dumps(result, indent=1)
    args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
