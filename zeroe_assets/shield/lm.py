"""The shield's context model: an interpolated Kneser–Ney word trigram model (Chen & Goodman
1999) over the clauses of the benchmark's *training* text (`train.shield.lm`), exported as the
``shield/lm`` component and read here with numpy alone. The lexicon's bigram PMI knows a pair
only above Google's cut-off and nothing of tweets; this model conditions a word on two words
each side (``shut up``, ``this crap``, ``at work on``), so a real-word error is judged by how
the whole window reads with each word in the slot.

Its lowest order is interpolated with the lexicon's unigram frequencies (``P0``), so every
lexicon word has a probability, whether or not the training text has it. Stored as an ARPA file
would store it, as arrays: for each seen n-gram its interpolated log10 probability, for each
seen history its log10 back-off weight; n-grams are keyed by their word ids packed into one
``uint64`` (``BITS`` bits a word) and found by binary search.

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
BITS = 21  # bits of a word id in a packed n-gram key (2 million words)
START, END = "<s>", "</s>"  # clause edges: the line's ends and punctuation


def pack(*ids: int) -> int:
    """One key for an n-gram of word ids (first word in the high bits)."""
    key = 0
    for i in ids:
        key = (key << BITS) | i
    return key


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
        self.bi_keys, self.bi, self.bi_bow = arrays["bi_keys"], arrays["bi"], arrays["bi_bow"]
        self.tri_keys, self.tri = arrays["tri_keys"], arrays["tri"]

    @staticmethod
    def _find(keys: np.ndarray, key: int) -> int:
        # the key as the array's own type: a Python int makes numpy convert the whole array
        i = int(np.searchsorted(keys, np.uint64(key)))
        return i if i < len(keys) and int(keys[i]) == key else -1

    def _unigram(self, word: str, i: int | None) -> float:
        return float(self.uni[i]) if i is not None else self.gamma + self.lexicon.logfreq(word)

    def _bigram(self, v: int, word: str, i: int | None) -> float:
        k = -1 if i is None else self._find(self.bi_keys, pack(v, i))
        return float(self.bi[k]) if k >= 0 else float(self.uni_bow[v]) + self._unigram(word, i)

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
            k = -1 if i is None else self._find(self.tri_keys, pack(*hist, i))
            if k >= 0:
                return float(self.tri[k])
            h = self._find(self.bi_keys, pack(*hist))
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

    def fit(self, words: list[str]) -> None:
        """Set λ for the line whose lower-case words are ``words`` (in order)."""
        general = other = 0.0
        history: tuple[str, ...] = (START, START)
        for word in words:
            general += self.general.logprob(word, history)
            other += self.other.logprob(word, history)
            history = (history[1], word)
        self._line.weight = 1.0 / (1.0 + 10.0 ** max(min(other - general - PRIOR, 30.0),
                                                      -30.0))

    def logprob(self, word: str, history: tuple[str | None, ...] = ()) -> float:
        a, b = self.general.logprob(word, history), self.other.logprob(word, history)
        top = max(a, b)
        return top + math.log10(self.weight * 10.0 ** (a - top)
                                + (1.0 - self.weight) * 10.0 ** (b - top))

    window = ContextModel.window  # the same window, over the mixed probabilities


def write_context_model(words: list[str], arrays: dict[str, np.ndarray], gamma: float,
                        meta: dict, root: Path | None = None, component: str = COMPONENT
                        ) -> None:
    """Export a context model as ``component`` (``shield/lm``, or the second domain's
    ``shield/lm_reviews``; atomic, checksummed)."""
    if len(words) >= 1 << BITS:
        raise ValueError(f"{len(words)} words do not fit {BITS}-bit ids")
    files = {f"{name}.npy": npy_bytes(array) for name, array in arrays.items()}
    files["words.txt"] = ("\n".join(words) + "\n").encode("utf-8")
    files["model.json"] = json_bytes({"order": 3, "bits": BITS, "gamma": gamma,
                                      "arrays": sorted(arrays)})
    write_component(component, files, meta, root)


def _builder(name: str):
    def build(root: Path) -> ContextModel:
        component = load_component(name, root)
        body = component.load_json("model.json")
        if body.get("bits") != BITS or body.get("order") != 3:
            raise ArtifactError(f"{component.file('model.json')}: not a trigram model with "
                                f"{BITS}-bit keys; {rebuild_hint(name)}")
        words = component.file("words.txt").read_text(encoding="utf-8").split("\n")[:-1]
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

