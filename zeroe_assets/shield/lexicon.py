"""The shield's lexicon: which strings are English words, how frequent each is and which pairs
go together, from the frequency lists that ``symspellpy`` ships (82,765 words and 243,342 bigrams
counted over Google's n-grams, intersected with SCOWL) and, for the common words that list lacks
(American spellings: traveling, theater, mom), ``pyspellchecker``'s English list; a word more
frequent in tweets than in books (shit, crap, liberals) counts as often as in OLID's training
tweets (``data/tweets.tsv``); and the key indexes the restorers look candidates up in, built once
per process.
"""
from __future__ import annotations

import functools
import json
import math
import statistics
from collections import defaultdict
from importlib import resources

from ..data import data_path, spellchecker_path, spellchecker_text

VOWELS = "aeiou"
_DROP_VOWELS = str.maketrans("", "", VOWELS)


def _data(name: str):
    return resources.files("symspellpy") / name


def skeleton(word: str) -> str:
    """``word`` without its plain vowels: the disemvoweller's output and the key of its index."""
    return word.translate(_DROP_VOWELS)


def inner_key(word: str) -> tuple[str, str, str]:
    """First letter, last letter and the sorted inner letters: the inner-shuffle's invariant."""
    return word[0], word[-1], "".join(sorted(word[1:-1]))


AMERICAN_MIN = 500  # pyspellchecker count a word needs to join the lexicon (OpenSubtitles)


def _american(counts: dict[str, int]) -> dict[str, int]:
    """The common words of ``pyspellchecker``'s English list that symspellpy's lacks, mostly
    American spellings (traveling, theater, favorite, mom): counted on symspellpy's scale, by
    the median ratio of the two lists' counts over the words both have."""
    other = json.loads(spellchecker_text(spellchecker_path("en")))
    ratio = statistics.median(counts[w] / c for w, c in other.items() if w in counts and c)
    return {w: max(1, int(c * ratio)) for w, c in other.items()
            if c >= AMERICAN_MIN and len(w) >= 3 and w.isascii() and w.isalpha()
            and w.islower() and w not in counts}


TWEETS_RATIO = 3.0  # how much more often than in books a word must appear in tweets to be raised
TWEETS_MIN = 4  # amp (&amp;), bro, lol: short tweet words are markup or slang no attack hides


def _tweets(counts: dict[str, int], total: float, path=None) -> dict[str, int]:
    """The lexicon words whose share of OLID's training tweets (``data/tweets.tsv``,
    `train.shield.tweets`) is ``TWEETS_RATIO`` times their share of ``counts`` or more, counted
    at that share (four letters or more).
    Insults and slang are what an attack on an offensive-language model hides (``carp`` for
    *crap*, ``niyga``), and Google's books rate them two powers of ten rarer than tweets do, so
    the shield read them as rarer than the typo; only known words are raised, none is added
    (the clean words kept fell when tweet words joined the lexicon)."""
    tweets: dict[str, int] = {}
    with (path or data_path("tweets.tsv")).open(encoding="utf-8") as f:
        for line in f:
            word, _, count = line.rstrip("\n").partition("\t")
            if word == "# total":
                size = int(count)
            elif not word.startswith("#"):
                tweets[word] = int(count)
    return {w: int(c / size * total) for w, c in tweets.items() if w in counts
            and len(w) >= TWEETS_MIN and c / size * total > TWEETS_RATIO * counts[w]}


class Lexicon:
    """Lower-case ASCII words with counts and bigram counts, and the indexes built over them."""

    def __init__(self):
        counts: dict[str, int] = {}
        with _data("frequency_dictionary_en_82_765.txt").open(encoding="utf-8") as f:
            for line in f:
                word, _, count = line.rstrip("\n").partition(" ")
                if word.isalpha() and word.isascii():
                    counts[word.lower()] = counts.get(word.lower(), 0) + int(count)
        for word, count in _american(counts).items():
            counts.setdefault(word, count)
        self.total = float(sum(counts.values()))
        # raised words keep the books' total: a share is the larger of the two, and the tuned
        # log-frequency bounds (`core.CHANNEL_FREQ`, `COMMON`) stay on the scale they were set on
        counts.update(_tweets(counts, self.total))
        self.counts = counts
        bigrams: dict[tuple[str, str], int] = {}
        with _data("frequency_bigramdictionary_en_243_342.txt").open(encoding="utf-8") as f:
            for line in f:
                a, b, count = line.split()
                bigrams[a.lower(), b.lower()] = int(count)
        self.bigrams = bigrams
        self._unseen = min(bigrams.values()) / 2  # pairs below the list's cut-off count less
        self._floor = math.log10(0.1 / self.total)

    def __contains__(self, word: str) -> bool:
        return word in self.counts

    def __len__(self) -> int:
        return len(self.counts)

    def logfreq(self, word: str) -> float:
        """log10 of the word's relative frequency; a floor below any listed word when unknown."""
        count = self.counts.get(word)
        return math.log10(count / self.total) if count else self._floor

    def association(self, left: str, right: str) -> float:
        """log10 P(right | left) − log10 P(right) in [−3, 3], 0 when either is no word: how
        much more likely the pair is than chance. A pair missing from the list was seen less
        than its cut-off: it scores below chance when chance alone would have listed it, and 0
        (no evidence) when the two words are too rare for that."""
        if left not in self.counts or right not in self.counts:
            return 0.0
        expected = self.counts[left] * self.counts[right] / self.total
        count = self.bigrams.get((left, right))
        if count is None:
            return max(-3.0, min(0.0, math.log10(self._unseen / expected)))
        return max(-3.0, min(3.0, math.log10(count / expected)))

    @functools.cached_property
    def by_sorted(self) -> dict[str, list[str]]:
        """Sorted letters → words (anagrams: the full shuffle's invariant), frequent first."""
        return self._index(lambda w: "".join(sorted(w)), 2)

    @functools.cached_property
    def by_inner(self) -> dict[tuple[str, str, str], list[str]]:
        return self._index(inner_key, 4)

    @functools.cached_property
    def by_skeleton(self) -> dict[str, list[str]]:
        """Consonant skeleton → words longer than three letters that have a vowel."""
        return self._index(skeleton, 4, lambda w: skeleton(w) != w and skeleton(w))

    @functools.cached_property
    def by_truncation(self) -> dict[str, list[str]]:
        """A word without its last letter → the words of length ≥ 3 it may be cut from."""
        return self._index(lambda w: w[:-1], 3)

    @functools.cached_property
    def by_double_truncation(self) -> dict[str, list[str]]:
        return self._index(lambda w: w[:-2], 4)

    def _index(self, key, min_length: int, keep=None) -> dict:
        index: dict = defaultdict(list)
        for word in sorted(self.counts, key=self.counts.__getitem__, reverse=True):
            if len(word) >= min_length and (keep is None or keep(word)):
                index[key(word)].append(word)
        return dict(index)


@functools.lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """The lexicon, read once per process."""
    return Lexicon()
