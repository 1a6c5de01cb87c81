"""Word pairs labelled by how alike they sound (paper appendix A.1), for the Siamese embedder.

Distance: d(π1, π2) / min(|π1|, |π2|), the phone edit distance normalised by the shorter
pronunciation (silent-letter marks dropped; for words with several pronunciations, the closest
pair). Classes, closed on the right: identical d = 0 (different spellings), very similar
0 < d ≤ 0.1, similar 0.1 < d ≤ 0.3, different d > 0.3. The paper writes strict inequalities on
both sides, which leaves d = 0.1 and d = 0.3 in no class (and its "sim_ph = 0" means d = 0);
closing on the right keeps one phone edit in a 10-phone word "very similar" and in a short
word (3 phones: cat/cut, 0.33) "different", the conservative side for an attack that must sound
right.

Candidates come from deletion neighbourhoods (two strings that share a key, the string itself
or it minus one symbol, are at most two edits apart) of the pronunciations and of the spellings,
so the cost is linear in the lexicon, never all pairs. Spelling neighbours that sound different
(night/tight, good/goofed) are the hard negatives: they are what the attack's filter meets.
A pair belongs to the later split of its two words (train < val < test under
``lexicon.split_of``), so no held-out word is seen in training.
"""
from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Iterable, Sequence

from zeroe_assets.data import data_path
from zeroe_assets.phonetic.embedder import CLASSES
from zeroe_assets.phonetic.sound import BOUNDS, phone_distance, sound_class

from .lexicon import DEFAULT_RATIOS, DEFAULT_SALT, SPLITS, Lexicon, split_of

DEFAULT_BOUNDS = BOUNDS
normalised_distance = phone_distance  # the runtime's: the space ranks by what training labels by


def label_of(distance: float, bounds: Sequence[float] = DEFAULT_BOUNDS) -> int:
    """The class index of a normalised distance (module docstring: bins closed on the right)."""
    return CLASSES.index(sound_class(distance, bounds))


def read_slang(path: str | Path | None = None) -> list[tuple[str, str, int]]:
    """``(word, respelling, class index)`` from the slang TSV (default: the packaged list)."""
    text = Path(path or data_path("slang.tsv")).read_text(encoding="utf-8")
    out, where = [], path or "zeroe_assets/data/slang.tsv"
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not all(p.strip() for p in parts) or parts[2] not in CLASSES[:2]:
            raise ValueError(f"{where}:{number}: expected 'word<TAB>respelling<TAB>identical|"
                             f"very_similar', got {line!r}")
        word, respelling = parts[0].strip().lower(), parts[1].strip().lower()
        if word == respelling:
            raise ValueError(f"{where}:{number}: the respelling equals the word")
        out.append((word, respelling, CLASSES.index(parts[2])))
    return out


def pair_split(a: str, b: str, ratios=DEFAULT_RATIOS, salt: str = DEFAULT_SALT) -> str:
    """The later split of the two words: a pair with a test word is a test pair."""
    return SPLITS[max(SPLITS.index(split_of(w, ratios, salt)) for w in (a, b))]


@dataclass
class PairSet:
    """Labelled word pairs; ``source`` says where each came from (lexicon, slang, random)."""

    a: list[str] = field(default_factory=list)
    b: list[str] = field(default_factory=list)
    label: list[int] = field(default_factory=list)
    distance: list[float] = field(default_factory=list)
    split: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    seconds: float = 0.0
    shortfall: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.a)

    def add(self, a, b, label, distance, split, source) -> None:
        for name, value in zip(("a", "b", "label", "distance", "split", "source"),
                               (a, b, label, distance, split, source)):
            getattr(self, name).append(value)

    def rows(self, split: str) -> list[int]:
        return [i for i, s in enumerate(self.split) if s == split]

    def summary(self) -> dict:
        counts = Counter(zip(self.split, self.label))
        return {"pairs": len(self), "seconds": round(self.seconds, 1),
                "per_split": {s: {CLASSES[c]: counts[s, c] for c in range(len(CLASSES))}
                              for s in SPLITS},
                "per_source": dict(Counter(self.source)), "shortfall": self.shortfall}

    def write_tsv(self, path: str | Path) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write("a\tb\tlabel\tdistance\tsplit\tsource\n")
            for row in zip(self.a, self.b, self.label, self.distance, self.split, self.source):
                a, b, label, d, split, source = row
                f.write(f"{a}\t{b}\t{CLASSES[label]}\t{d:.4f}\t{split}\t{source}\n")


def sounding_strings(lexicon: Lexicon) -> dict[str, list[str]]:
    """Each word's distinct pronunciations as strings, one character per phone (fast edit distance)."""
    codes: dict[str, str] = {}
    out = {}
    for word, prons in lexicon.entries.items():
        strings = []
        for pron in prons:
            s = "".join(codes.setdefault(p, chr(0x100 + len(codes))) for p in lexicon.sounding(pron))
            if s and s not in strings:
                strings.append(s)
        if strings:
            out[word] = strings
    return out


def _neighbour_pairs(forms: dict[str, list[str]], max_bucket: int) -> set[tuple[str, str]]:
    """Word pairs whose forms (pronunciations or spellings) share a deletion key; keys shared by
    more than ``max_bucket`` words (short keys, which link only short words) are skipped."""
    buckets: dict[str, set[str]] = {}
    for word, strings in forms.items():
        for s in strings:
            for key in {s, *(s[:i] + s[i + 1:] for i in range(len(s)))}:
                if key:
                    buckets.setdefault(key, set()).add(word)
    pairs: set[tuple[str, str]] = set()
    for words in buckets.values():
        if 1 < len(words) <= max_bucket:
            pairs.update(combinations(sorted(words), 2))
    return pairs


def word_distance(prons: dict[str, list[str]], a: str, b: str) -> float:
    return min(normalised_distance(x, y) for x in prons[a] for y in prons[b])


def lexicon_labeller(lexicon: Lexicon, bounds: Sequence[float] = DEFAULT_BOUNDS):
    """``(word, candidate) -> class name``, or None unless both are lexicon words: the exact
    answer the embedder only estimates."""
    prons = sounding_strings(lexicon)

    def known(word: str, candidate: str) -> str | None:
        if word in prons and candidate in prons:
            return CLASSES[label_of(word_distance(prons, word, candidate), bounds)]
        return None

    return known


def build_pairs(lexicon: Lexicon, per_class: int = 5000, bounds: Sequence[float] = DEFAULT_BOUNDS,
                slang: Iterable[tuple[str, str, int]] = (), hard_negatives: float = 0.75,
                max_bucket: int = 64, split_ratios: Sequence[float] = DEFAULT_RATIOS,
                split_salt: str = DEFAULT_SALT, seed: int = 0) -> PairSet:
    """A class-balanced pair set: ``per_class`` pairs per class over all splits.

    identical: homophones (the lexicon) plus the slang pairs; very similar and similar:
    deletion neighbours; different: ``hard_negatives`` of them deletion neighbours (close in
    sound or spelling, yet too far: the cases a filter must reject), the rest random word
    pairs. A class with too few candidates keeps all of them and records the shortfall.
    """
    if not 0 <= hard_negatives <= 1:
        raise ValueError(f"hard_negatives must be a share in [0, 1], got {hard_negatives}")
    if not 0 < bounds[0] < bounds[1]:
        raise ValueError(f"bounds must be 0 < very similar < similar, got {list(bounds)}")
    start = time.perf_counter()
    rng = random.Random(seed)
    prons = sounding_strings(lexicon)
    pools: list[list[tuple[str, str, float]]] = [[] for _ in CLASSES]
    candidates = (_neighbour_pairs(prons, max_bucket)
                  | _neighbour_pairs({w: [w] for w in prons}, max_bucket))
    # a slang pair is labelled by the slang list (this/dis: very similar); the same two words
    # from the lexicon pools would teach the opposite label (by spelling-level phones: different)
    slang = list(slang)
    taken = {frozenset((w, r)) for w, r, _ in slang}
    for a, b in sorted(candidates):
        if frozenset((a, b)) not in taken:
            d = word_distance(prons, a, b)
            pools[label_of(d, bounds)].append((a, b, d))
    out = PairSet()

    def take(pool, n, source):
        chosen = rng.sample(pool, min(n, len(pool)))
        for a, b, d in chosen:
            if rng.random() < 0.5:
                a, b = b, a
            out.add(a, b, label_of(d, bounds), d, pair_split(a, b, split_ratios, split_salt), source)
        return len(chosen)

    slang_by_class: list[list[tuple[str, str, float]]] = [[], []]
    for word, respelling, label in slang:
        slang_by_class[label].append((word, respelling, float("nan")))  # not measured
    for label, name in enumerate(CLASSES):
        want = per_class
        if label < 2:
            for word, respelling, d in slang_by_class[label][:want]:
                out.add(word, respelling, label, d, pair_split(word, respelling, split_ratios,
                                                               split_salt), "slang")
            want -= min(want, len(slang_by_class[label]))
        if label == 3:
            want -= take(pools[3], round(want * hard_negatives), "lexicon")
            words, randoms, tries = sorted(prons), set(), 0
            while len(randoms) < want and tries < 50 * max(want, 1):
                tries += 1
                a, b = rng.sample(words, 2)
                d = word_distance(prons, a, b)
                if label_of(d, bounds) == 3 and frozenset((a, b)) not in taken:
                    randoms.add((min(a, b), max(a, b), d))
            want -= take(sorted(randoms), want, "random")
        else:
            want -= take(pools[label], want, "lexicon")
        if want:
            out.shortfall[name] = want
    out.seconds = time.perf_counter() - start
    return out
