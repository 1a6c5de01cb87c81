"""The shield's context model: an interpolated Kneser–Ney word trigram model (Chen & Goodman
1999) over the clauses of the benchmark's *training* text (`train.shield.lm`), exported as the
``shield/lm`` component and read here with numpy alone. The lexicon's bigram PMI knows a pair
only above Google's cut-off and nothing of tweets; this model conditions a word on two words
each side (``shut up``, ``this crap``, ``at work on``), so a real-word error is judged by how
the whole window reads with each word in the slot.

Its lowest order is interpolated with the lexicon's unigram frequencies (``P0``), so every
lexicon word has a probability, whether or not the training text has it. Stored as an ARPA file
would store it (for each seen n-gram its interpolated log10 probability, for each seen history
its log10 back-off weight), as a trie of arrays (`encode`): a word's bigrams are one sorted run
of their second words, a bigram's trigrams one sorted run of their third, found by binary
search; a trigram costs its last word's id (16 bits below 65,536 words) and its probability.

A second model of another domain (``shield/lm_reviews``: movie reviews, `train.shield.lm
--reviews`) is mixed in line by line (`Mixture`): each line is read with the two models
weighted by how likely each makes the line's words, so a tweet is read with the tweets' model
and a film review with the reviews' (*remarkably dull*, *turning in his grave*), and neither
model's text dilutes the other's.
"""
from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np

from ..assets import ArtifactError, cached_component, component_available, json_bytes, \
    load_component, npy_bytes, rebuild_hint, write_component
from .lexicon import Lexicon, load_lexicon

COMPONENT = "shield/lm"
REVIEWS = "shield/lm_reviews"  # the second domain's model (movie reviews)
PRIOR = 2.0  # log10 prior odds of the general model: a line is read as a review on evidence
LAYOUT = "trie"  # model.json's layout (`encode`); the first exports keyed n-grams by packed ids
START, END = "<s>", "</s>"  # clause edges: the line's ends and punctuation


def encode(uni: np.ndarray, uni_bow: np.ndarray, bigrams: dict, trigrams: dict,
           half: bool = False) -> dict[str, np.ndarray]:
    """The arrays `ContextModel` reads, from log10 probabilities by word id: ``uni`` and
    ``uni_bow`` by word, ``bigrams`` {(v, w): (P(w | v), back-off weight of the history v w)},
    ``trigrams`` {(u, v, w): P(w | u v)}. Each word's bigrams are one run of ``bi_word`` sorted
    by second word (``bi_count`` of them), each bigram's trigrams one run of ``tri_word``
    (``tri_count``); a trigram history no bigram is (``<s> <s>``) is stored as a bigram with
    no probability. ``half``: n-gram probabilities and weights in 16-bit floats (±0.002 in
    log10 at worst) instead of 32, for a large model."""
    histories = {k[:2]: (-99.0, 0.0) for k in trigrams if k[:2] not in bigrams}
    keys = sorted({**bigrams, **histories}.items())
    index = {k: n for n, (k, _) in enumerate(keys)}
    tri = sorted(trigrams.items())
    word = np.uint16 if len(uni) <= 1 << 16 else np.uint32
    real = np.float16 if half else np.float32

    def counts(parents, n):
        found = np.bincount(np.asarray(parents, dtype=np.int64), minlength=n)
        return found.astype(np.min_scalar_type(int(found.max(initial=0))))

    return {"uni": np.asarray(uni, np.float32), "uni_bow": np.asarray(uni_bow, np.float32),
            "bi_count": counts([v for (v, _), _ in keys], len(uni)),
            "bi_word": np.array([w for (_, w), _ in keys], dtype=word),
            "bi": np.array([p for _, (p, _) in keys], dtype=real),
            "bi_bow": np.array([b for _, (_, b) in keys], dtype=real),
            "tri_count": counts([index[k[:2]] for k, _ in tri], len(keys)),
            "tri_word": np.array([k[2] for k, _ in tri], dtype=word),
            "tri": np.array([p for _, p in tri], dtype=real)}


class ContextModel:
    """Log10 probabilities of words given up to two words before them."""

    @property
    def general(self) -> "ContextModel":
        """The model of the shield's own training text (this one)."""
        return self

    def __init__(self, words: list[str], arrays: dict[str, np.ndarray], gamma: float,
                 lexicon: Lexicon):
        self.ids = {w: i for i, w in enumerate(words)}
        self.lexicon = lexicon
        self.gamma = gamma  # log10 weight of the lexicon's unigram in the lowest order
        self.uni, self.uni_bow = arrays["uni"], arrays["uni_bow"]
        self.bi_word, self.bi, self.bi_bow = arrays["bi_word"], arrays["bi"], arrays["bi_bow"]
        self.tri_word, self.tri = arrays["tri_word"], arrays["tri"]
        self.bi_start = np.concatenate(([0], np.cumsum(arrays["bi_count"], dtype=np.int64)))
        self.tri_start = np.concatenate(([0], np.cumsum(arrays["tri_count"], dtype=np.int64)))

    @staticmethod
    def _child(starts: np.ndarray, words: np.ndarray, parent: int, i: int) -> int:
        """The index of word ``i`` in the run of ``parent``'s children, or -1."""
        lo, hi = int(starts[parent]), int(starts[parent + 1])
        # the id as the array's own type: a Python int makes numpy convert the whole run
        k = lo + int(np.searchsorted(words[lo:hi], words.dtype.type(i)))
        return k if k < hi and int(words[k]) == i else -1

    def _unigram(self, word: str, i: int | None) -> float:
        return float(self.uni[i]) if i is not None else self.gamma + self.lexicon.logfreq(word)

    def _bigram(self, v: int, word: str, i: int | None) -> float:
        k = -1 if i is None else self._child(self.bi_start, self.bi_word, v, i)
        return float(self.bi[k]) if k >= 0 else float(self.uni_bow[v]) + self._unigram(word, i)

    def pair(self, first: str, second: str) -> bool:
        """Whether the model's text has ``second`` right after ``first`` (a stored bigram)."""
        v, w = self.ids.get(first), self.ids.get(second)
        return v is not None and w is not None \
            and self._child(self.bi_start, self.bi_word, v, w) >= 0

    def logprob(self, word: str, history: tuple[str | None, ...] = ()) -> float:
        """log10 P(word | history), history the (up to two) words before it, nearest last; a
        word the model never saw, or None (a word not read), cuts the history there."""
        hist: list[int] = []
        for h in reversed(history[-2:]):
            if (j := self.ids.get(h)) is None:
                break
            hist.insert(0, j)
        i = self.ids.get(word)
        if len(hist) == 2:
            h = self._child(self.bi_start, self.bi_word, *hist)
            k = -1 if i is None or h < 0 else self._child(self.tri_start, self.tri_word, h, i)
            if k >= 0:
                return float(self.tri[k])
            return (float(self.bi_bow[h]) if h >= 0 else 0.0) + self._bigram(hist[1], word, i)
        if hist:
            return self._bigram(hist[0], word, i)
        return self._unigram(word, i)

    def window(self, left: tuple[str | None, ...], word: str,
               right: tuple[str | None, ...]) -> float:
        """log10 P(word, right | left): how the window reads with ``word`` in its slot, the
        words after it scored as far as the first one not read (None) or the clause's end."""
        total = self.logprob(word, left)
        seq = list(left[-2:]) + [word]
        for r in right:
            if r is None:
                break
            total += self.logprob(r, tuple(seq[-2:]))
            if r == END:
                break
            seq.append(r)
        return total


class Mixture:
    """Two context models read as one: log10 of P = λ P_general + (1 − λ) P_other, with λ set
    for each line (`fit`) to the posterior that the line's words come from the general model's
    text, its prior odds ``PRIOR`` (a short line that a review might have said, *Britt's Pizza
    is long gone*, stays with the general model). A line's words mostly decide it outright (λ
    near 0 or 1): the general model reads tweets and image captions as before, the other model
    reads film reviews. λ is kept per thread, so one shield may restore lines from several
    threads at once."""

    def __init__(self, general: ContextModel, other: ContextModel):
        self.general, self.other = general, other
        self.ids = {**other.ids, **general.ids}  # a word either model knows (`Context.known`)
        self._line = threading.local()

    @property
    def weight(self) -> float:
        """λ, the general model's share, for this thread's line (1 until one is fitted)."""
        return getattr(self._line, "weight", 1.0)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_line"}  # a lock-like object

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._line = threading.local()

    def read(self, words: list[str], state: tuple | None = None) -> tuple:
        """``state`` (log10 P of the words read so far under the general and the other model,
        and the last two of them) with the lower-case ``words`` read on after it: a line read a
        piece at a time adds up as the line read at once."""
        general, other, history = state or (0.0, 0.0, (START, START))
        for word in words:
            general += self.general.logprob(word, history)
            other += self.other.logprob(word, history)
            history = (history[1], word)
        return general, other, history

    def fit(self, words: list[str], state: tuple | None = None) -> None:
        """Set λ for the line whose lower-case words are ``words`` (in order), read on after
        ``state`` (`read`: the line's earlier pieces)."""
        general, other, _ = self.read(words, state)
        self._line.weight = 1.0 / (1.0 + 10.0 ** max(min(other - general - PRIOR, 30.0),
                                                      -30.0))

    def pair(self, first: str, second: str) -> bool:
        """Whether either model's text has ``second`` right after ``first``."""
        return self.general.pair(first, second) or self.other.pair(first, second)

    def logprob(self, word: str, history: tuple[str | None, ...] = ()) -> float:
        a, b = self.general.logprob(word, history), self.other.logprob(word, history)
        top = max(a, b)
        return top + math.log10(self.weight * 10.0 ** (a - top)
                                + (1.0 - self.weight) * 10.0 ** (b - top))

    window = ContextModel.window  # the same window, over the mixed probabilities


def write_context_model(words: list[str], arrays: dict[str, np.ndarray], gamma: float,
                        meta: dict, root: Path | None = None, component: str = COMPONENT
                        ) -> None:
    """Export a context model (``arrays`` as `encode` makes them) as ``component``
    (``shield/lm``, or the second domain's ``shield/lm_reviews``; atomic, checksummed)."""
    files = {f"{name}.npy": npy_bytes(array) for name, array in arrays.items()}
    files["words.txt"] = ("\n".join(words) + "\n").encode("utf-8")
    files["model.json"] = json_bytes({"order": 3, "layout": LAYOUT, "gamma": gamma,
                                      "arrays": sorted(arrays)})
    write_component(component, files, meta, root)


def vocabulary(root: Path | str | None = None, name: str = COMPONENT) -> list[str] | None:
    """The words of an exported context model (None: not exported), without reading its
    n-grams: what the reviews model's export keeps (`train.shield.lm`), whatever the reviews
    model already there is."""
    where = Path(root) if root else None
    return _words(load_component(name, where)) if component_available(name, where) else None


def _words(component) -> list[str]:
    return component.file("words.txt").read_text(encoding="utf-8").split("\n")[:-1]


def _builder(name: str):
    def build(root: Path) -> ContextModel:
        component = load_component(name, root)
        body = component.load_json("model.json")
        if body.get("layout") != LAYOUT or body.get("order") != 3:
            raise ArtifactError(f"{component.file('model.json')}: not a trigram model in "
                                f"the {LAYOUT} layout; {rebuild_hint(name)}")
        words = _words(component)  # the component checked once, above
        arrays = {part: component.load_npy(f"{part}.npy") for part in body["arrays"]}
        return ContextModel(words, arrays, float(body["gamma"]), load_lexicon())
    return build


def load_context_model(root: Path | str | None = None) -> ContextModel | Mixture | None:
    """The exported context model, mixed with the reviews model where that was exported too
    (`Mixture`), or None when none was exported (the shield falls back on the lexicon's
    bigrams); a corrupt one is an error naming the rebuild command."""
    where = Path(root) if root else None
    if not component_available(COMPONENT, where):
        return None
    general = cached_component(COMPONENT, root, _builder(COMPONENT))
    if not component_available(REVIEWS, where):
        return general
    return Mixture(general, cached_component(REVIEWS, root, _builder(REVIEWS)))

