"""A robust encoding (Jones et al. 2020, *Robust Encodings*): every word goes to one encoding
shared by its perturbations, and the victim is trained on encoded text, so that an attacker who
perturbs a word changes nothing the victim sees unless the perturbation leaves the word's
encoding.

The encoding of a word is decided from the word alone (no context; a pair's hypothesis also
sees its premise), so for single texts it is a fixed map from tokens to encodings that a
certificate can enumerate (`defend.certify`):

- pieces with one symbol between each two are one word again unless each is a word (`_intruded`);
- a word of the encoder's vocabulary (the victim's training words, the shield's lexicon) is
  itself, lower-cased; with ``counts``, a token one change of the certificates' surface from a
  vocabulary word is that word (`source`; from words of two clusters: ``UNKNOWN``), unless the
  word is ``guarded``: one a victim whose score only adds up weighs more than ``UNKNOWN``
  (`guard`), so that a token can hide such a word but never make one (nor can a rare word the
  clusters joined to a guarded one: it is ``UNKNOWN``);
- a token still unread is the one word a reader reads in it (`_read`: look-alikes undone, or
  the one vocabulary word it is a shuffle, a keyboard slip, a near form or a cut of, or the
  words it joins; `anchor.Keys`), and a pair's hypothesis token may first be a premise word it
  perturbs (`anchor.Anchors`);
- with ``restore``, any other token is read back by the shield's restorers (one per
  perturbation mechanism) and goes to the reading the shield's learned ranker scores highest out
  of context, when the ranker gives it a probability of at least ``SURE``;
- anything else is ``UNKNOWN``: one token the victim learns like any other, instead of a guessed
  word or character n-grams an attacker can steer (``zeroe defend`` leaves ``restore`` off:
  out of context, the restorers' readings were what the adaptive attack steered).

With ``anagrams`` every word is then its anagram class (`RobustEncoder.cluster`): a shuffled
word keeps its encoding whatever the restorers read (a shuffle that is no word reads as the
class of its letters), at the price of telling anagrams apart (*no*
and *on*); measured worse on OLID (docs/defend.md), so off by default.

The words of #tags, @mentions and URLs are read like any other token (*#THESWAMP* → *the
swamp*, *#Boomer* → *book*); the gaps between words (digits, symbols, the marks themselves)
are dropped: the victim sees words.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .. import tokenize
from .anchor import Anchors, Keys, letters

UNKNOWN = "unkword"  # one word for every unreadable token: TF-IDF and subword models keep it
CACHE = 200_000  # tokens whose encodings a process keeps
# the ranker probability a reading needs: below it the token is UNKNOWN, which an attacker can
# only use to hide a word, not to turn it into another one (the measured trade-off:
# docs/defend.md)
SURE = 0.5
PIECES = 12  # the most pieces a split word is joined from


class RobustEncoder:
    """``encode(text)``: the text as the victim is trained and queried on it.

    ``vocabulary``: the words (lower case) that are kept as they are, besides the shield's
    lexicon; ``shield``: the `Shield` whose restorers read perturbed tokens (default all)."""

    def __init__(self, vocabulary: Iterable[str], shield=None, anagrams: bool = False,
                 counts: Mapping[str, int] | None = None, clusters: Mapping[str, str] | None = None,
                 restore: bool = True):
        from ..shield import get_shield

        self.vocabulary = frozenset(w.lower() for w in vocabulary)
        self.shield = shield if shield is not None else get_shield()
        self.anagrams = anagrams
        self.counts = counts  # with them, a token one change from vocabulary words is one of them
        self.clusters = clusters or {}
        self.restore = restore  # without: a token no lookup finds is UNKNOWN, never guessed
        self.guarded: frozenset[str] = frozenset()  # words no lookup returns (`guard`)
        self._surface = None
        self._keys = None  # `anchor.Keys` of the vocabulary, built when first needed
        self._reads: dict[tuple[str, str], str | None] = {}  # `_read`'s, by token and reading
        self._cache: dict[str, str] = {}

    def guard(self, words: Iterable[str]) -> None:
        """Lookups (`source`) never return ``words``, and a rare word the clusters joined to
        one of them is not it: ``UNKNOWN`` instead. Given the words a victim whose score only
        adds up weighs more than ``UNKNOWN``, an attacker who changes a harmless word can hide
        a word but never make one of these (docs/defend.md)."""
        self.guarded = frozenset(words)
        self._cache.clear()
        self._reads.clear()

    def known(self, word: str) -> bool:
        return word in self.vocabulary or word in self.shield.lexicon

    def encode(self, text: str, anchor: str | None = None) -> str:
        """The encoded text: the encodings of its units, one space apart. ``anchor``: the
        premise of a pair whose hypothesis ``text`` is; a token that is no word and a
        perturbation of one premise word is that word (`anchor.Anchors`)."""
        if not isinstance(text, str):
            raise ValueError(f"a robust encoding encodes text (str), got {type(text).__name__}")
        return " ".join(e for _, _, e in self.segments(text, anchor) if e)

    def segments(self, text: str, anchor: str | None = None,
                 joins: list | None = None) -> list[tuple[int, int, str]]:
        """`encode`'s reading of ``text`` unit by unit: (first word, last word, encoding) over
        the words of `shield.core.split`, an encoding "" where it drops the unit; ``joins`` gets
        the intruder's joins in those words (`Shield.units`). What `defend.certify` reads a
        form in a window of its sentence from."""
        from ..shield.core import split

        words, gaps = split(text)
        if not words:
            return []
        anchors = _anchors(anchor) if anchor is not None else None
        return self._segments(words, gaps, anchors, joins)

    def _encodings(self, words: list[str], gaps: list[str], anchors=None) -> list[str]:
        """The encodings of a line's units; pieces a space split a word into are one word."""
        return [e for _, _, e in self._segments(words, gaps, anchors) if e]

    def _segments(self, words: list[str], gaps: list[str], anchors=None,
                  joins: list | None = None) -> list[tuple[int, int, str]]:
        """`_encodings` with the words behind each: (first, last, encoding), in ``words``."""
        count = len(words)
        words, gaps, firsts = self._intruded(words, gaps)
        lasts = [f - 1 for f in firsts[1:]] + [count - 1]
        found: list | None = [] if joins is not None else None
        # readings: `_decide`'s last step
        units = self.shield.units(words, gaps, propose=self.restore, joins=found)
        out, k = [], 0
        while k < len(units):
            width, joined = self._split_word(units, k, gaps)
            if width:
                out.append((firsts[units[k].start], lasts[units[k + width - 1].end],
                            self.cluster(joined)))
                k += width
                continue
            unit = units[k]
            raw = unit.head + unit.stem + unit.tail if unit.start == unit.end else unit.stem
            word = None if anchors is None or unit.low in self.vocabulary or (
                letters(unit.template) in self.vocabulary) else anchors.of(unit.template)
            out.append((firsts[unit.start], lasts[unit.end],
                        self.token(word) if word else self.cluster(self._token(raw, unit))))
            k += 1
        if joins is not None:
            joins += [(firsts[i], lasts[j], margin) for i, j, margin in found]
        return out

    def _intruded(self, words: list[str], gaps: list[str]
                  ) -> tuple[list[str], list[str], list[int]]:
        """Words with one symbol (not a space) between each two (*s*t*il*l*, *sho-ot-i-ngs*)
        are one word again, their letters joined, unless every piece is a vocabulary word of its
        own (*and/or*, *Progressives/Socialist*): intruded symbols never leave a word's
        encoding, and the pieces of a cut word are never read as words one change away (*shi* as
        *shit*). Also the first of ``words`` behind each word."""
        if len(words) < 2:
            return words, gaps, list(range(len(words)))
        out_words, out_gaps, firsts, k = [], [], [], 0
        while k < len(words):
            j = k
            while j + 1 < len(words) and symbol_gap(gaps[j + 1]):
                j += 1
            out_gaps.append(gaps[k])
            if j > k and not all(w.lower() in self.vocabulary for w in words[k:j + 1]):
                out_words.append("".join(words[k:j + 1]))
                firsts.append(k)
            else:
                out_words += words[k:j + 1]
                out_gaps += gaps[k + 1:j + 1]
                firsts += range(k, j + 1)
            k = j + 1
        return out_words, out_gaps + [gaps[-1]], firsts

    @property
    def surface(self):
        """The certificates' surface (`surface.Surface`), whose changes ``counts`` undo."""
        if self._surface is None:
            from .surface import Surface

            self._surface = Surface()
        return self._surface

    def _split_word(self, units, k: int, gaps: list[str]) -> tuple[int, str]:
        """(pieces, word) when units ``k..`` are two to ``PIECES`` letter pieces with one and the same
        character between them (a space, a dot...) that join into a lexicon word more frequent
        than the rarest piece (*st ill* → still, *go.ing* → going; never *a part* → apart):
        intrude's symbols the shield leaves, and other tools' splits. (0, "") otherwise. The
        widest join first, from the run of such pieces at ``k``."""
        lexicon, lows, between = self.shield.lexicon, [], None
        for u in units[k:k + PIECES]:
            if u.start != u.end or u.head or u.tail or not u.stem.isalpha():
                break
            if lows:
                gap = gaps[u.start]
                if between is None and (len(gap) != 1 or gap.isalnum()) \
                        or between is not None and gap != between:
                    break
                between = gap
            lows.append(u.low)
        for width in range(len(lows), 1, -1):
            joined = "".join(lows[:width])
            if joined in lexicon and lexicon.logfreq(joined) > min(
                    lexicon.logfreq(low) if low in lexicon else -99.0 for low in lows[:width]):
                return width, joined
        return 0, ""

    def cluster(self, encoded: str) -> str:
        """Each vocabulary word as its cluster's representative (`clusters`), and with
        ``anagrams`` each word as its anagram class (RobEn's clusters: a shuffle of a word
        can never move it): the class's most frequent lexicon word, so *evil*, *vile* and *live*
        are all *live*, and *read*, *dare*, *dear* are *read*."""
        if self.clusters and encoded:
            encoded = " ".join(self._representative(w) for w in encoded.split())
        if not self.anagrams or not encoded or encoded == UNKNOWN:
            return encoded
        by_sorted = self.shield.lexicon.by_sorted
        return " ".join(by_sorted.get("".join(sorted(w)), (w,))[0] for w in encoded.split())

    def _representative(self, word: str) -> str:
        """``word``'s cluster representative; ``UNKNOWN`` for a rare word the clusters joined
        to a ``guarded`` one (*hill* to *hell*): it is not that word, and an attacker makes it
        from others with one change (*will* → *hill*)."""
        found = self.clusters.get(word, word)
        return UNKNOWN if found != word and word in self.guarded else found

    def __call__(self, texts: str | Sequence[str]):
        return self.encode(texts) if isinstance(texts, str) else [self.encode(t) for t in texts]

    def token(self, word: str, anchor: str | None = None) -> str:
        """The encoding of one token as it stands alone (what a certificate enumerates), the
        same as `encode`'s; ``anchor``: the premise it is read against."""
        from ..shield.core import split

        words, gaps = split(word)
        if len(words) == 1 and (anchor is None or words[0].lower() in self.vocabulary) and (
                "'" not in words[0] and "’" not in words[0]):
            # a vocabulary word or one change from one: no restorer needed. A word with an
            # apostrophe is read as `encode` reads it (its units decide what the stem is:
            # *pa'role* is *parole* intruded, not *role*)
            found = self._vocabulary_word(words[0], words[0])
            if found is not None:
                return self.cluster(found)
        anchors = _anchors(anchor) if anchor is not None else None
        return " ".join(self._encodings(words, gaps, anchors)) if words else ""

    def _token(self, raw: str, unit) -> str:
        if not unit.candidates:  # protected, or nothing proposed: cheap, and context decides
            return self._decide(unit)
        found = self._cache.get(raw)
        if found is None:
            found = self._decide(unit)
            if len(self._cache) < CACHE:
                self._cache[raw] = found
        return found

    def _vocabulary_word(self, whole: str, stem: str) -> str | None:
        """The vocabulary word a token is, or is one change from: the whole token with its marks
        first, then its stem (*mor'on* is *moron* intruded, not *mor* cut)."""
        if whole.lower() in self.vocabulary:
            return whole.lower()
        found = self.source(whole)  # before the stem: *t'his* is *this* intruded, not *his*
        if found is not None or stem == whole:  # a word without clitics: asked already
            return found
        if stem.lower() in self.vocabulary:
            return stem.lower()
        return self.source(stem)

    def source(self, token: str) -> str | None:
        """With ``counts``: the vocabulary word ``token`` is one change of the certificates'
        surface away from (`surface.Surface.sources`), if any: the change undone before any
        restorer guesses, so a word's one-change forms keep its encoding. A token one change
        from words of two clusters (*shiot*: *shot*, *shit*) is ``UNKNOWN``: picking the more
        frequent would let an attacker turn a word into its neighbour; so is one from a
        ``guarded`` word."""
        if self.counts is None or not token:
            return None
        found = self.surface.sources(token, self.counts)
        if len({self.clusters.get(w, w) for w in found}) > 1 or not self.guarded.isdisjoint(found):
            return UNKNOWN
        return next(iter(found)) if found else None

    @staticmethod
    def _unknown(stem: str) -> str:
        return UNKNOWN if any(c.isalpha() for c in stem) else ""

    def _read(self, unit) -> str | None:
        """The word a reader reads in a token no lookup finds, when only one can be read: its
        look-alikes undone and symbols dropped (then looked up as any token); or, with
        ``anagrams``, the class of its letters; or the one vocabulary word (cluster) of the
        first key family that finds any (`anchor.Keys`: shuffles, consonants, keyboard slips of
        every letter, near forms, cuts); or the words it joins (`_joined`). A ``guarded`` word
        is never read: ``UNKNOWN``."""
        key = (unit.low, unit.template)
        if key not in self._reads:
            if len(self._reads) >= CACHE:
                self._reads.clear()
            self._reads[key] = self._read_uncached(unit)
        return self._reads[key]

    def _read_uncached(self, unit) -> str | None:
        read = letters(unit.template)
        if not read:
            return None
        if read != unit.low:
            found = self._vocabulary_word(read, read)
            if found is not None:
                return found
            if read in self.shield.lexicon:
                return read
        if self.anagrams:
            shuffled = self.shield.lexicon.by_sorted.get("".join(sorted(read)))
            if shuffled:
                return shuffled[0]
        if self._keys is None:
            self._keys = Keys(self.vocabulary)
        found = {self.clusters.get(w, w) for w in self._keys.of(read, first=True)}
        if len(found) > 1:
            return None
        words = [found.pop()] if found else self._joined(read)
        if not words:
            return None
        return UNKNOWN if self.guarded.intersection(words) else " ".join(words)

    def _joined(self, token: str) -> list[str]:
        """The vocabulary words of two letters or more that ``token`` is, joined without their
        spaces (*peoplestand*: segment's joins), when it splits into them in one way only with
        the fewest words; [] otherwise."""
        best: list[list[list[str]]] = [[[]]] + [[] for _ in token]  # fewest-word splits of token[:i]
        for i in range(1, len(token) + 1):
            for j in range(max(0, i - 30), i - 1):
                if token[j:i] in self.vocabulary and best[j]:
                    ways = [w + [token[j:i]] for w in best[j]]
                    if not best[i] or len(ways[0]) < len(best[i][0]):
                        best[i] = ways[:2]
                    elif len(ways[0]) == len(best[i][0]):
                        best[i] = (best[i] + ways)[:2]
        return best[-1][0] if len(best[-1]) == 1 and len(best[-1][0]) > 1 else []

    def _decide(self, unit) -> str:
        known = self._vocabulary_word(unit.head + unit.stem + unit.tail, unit.stem)
        if known is not None:
            return known
        if unit.low in self.shield.lexicon:  # a word, if not one the victim trained on
            return unit.low
        read = self._read(unit)
        if read is not None:
            return read
        readings = [r for r in unit.candidates if all(self.known(w) for w in r.split())]
        if not readings or not self.restore:
            return self._unknown(unit.stem)
        # the shield's learned ranker, out of context: which reading the token most looks like
        from ..shield.features import token_features

        shield = self.shield
        found, rows = token_features(shield.lexicon, unit.stem, unit.low, False,
                                     {r: unit.candidates[r] for r in readings}, None, None,
                                     shield.evidence([unit]), unit.template.lower())
        scores = rows @ shield.ranker.weights
        best = 1 + int(scores[1:].argmax())  # row 0 is "keep": the token is no word here
        sure = 1.0 / float(np.exp(scores - scores[best]).sum())  # its probability
        return found[best] if sure >= SURE else self._unknown(unit.stem)


@functools.lru_cache(maxsize=256)
def _anchors(premise: str) -> Anchors:
    """A premise's anchors, built once: a search encodes many hypotheses against one premise."""
    from ..shield.core import split

    return Anchors(split(premise)[0])


def symbol_gap(gap: str) -> bool:
    """One character that is neither a letter, a digit nor a space: what intrude puts inside."""
    return len(gap) == 1 and not gap.isspace() and not gap.isalnum()


def vocabulary(texts: Iterable[str], min_count: int = 2,
               lexicon=None) -> dict[str, int]:
    """The lower-cased tokens (whole, with their marks: #tags, @users) that occur at least
    ``min_count`` times in ``texts``, with their counts: the words an encoding keeps besides the
    lexicon's, and how often each was seen. With ``lexicon``, tokens of one or two characters
    must be its words: *ck*, *ar*, *tf* are the pieces an attacker splits words into (*f ck*),
    and as words of their own the victim would learn them as cues."""
    from collections import Counter

    counts: Counter = Counter()
    for text in texts:
        counts.update(w.lower() for w in tokenize.split(text)[0])
    return {w: c for w, c in sorted(counts.items()) if c >= min_count
            and (lexicon is None or len(w) > 2 or w in lexicon)}

