"""Constraints on which words change: how many (ρ_max), not twice, and never stopwords,
protected tokens or short words."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

from .. import tokenize
from ..data import stopwords
from .base import Constraint

PROTECTED = ("@USER", "URL")  # OLID's placeholders for user mentions and links
_PREFIX = re.compile(r"\S*\Z")  # what is glued to a word's front: "@" of @USER, "#" of #tag


class MaxPerturbed(Constraint):
    """At most ``share`` (ρ_max, of the attacked words, rounded up as TextAttack does) and at
    most ``count`` words perturbed."""

    def __init__(self, share: float | None = None, count: int | None = None):
        if share is None and count is None:
            raise ValueError("MaxPerturbed needs a share (ρ_max) or a count")
        if share is not None and not 0 < share <= 1:
            raise ValueError(f"the share of words perturbed must be in (0, 1], got {share!r}")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)
                                  or count < 1):
            raise ValueError(f"the number of words perturbed must be at least 1, got {count!r}")
        self.share, self.count = share, count

    def limit(self, text) -> int:
        """The most words of ``text`` that may change."""
        limits = [self.count] if self.count is not None else []
        if self.share is not None:
            limits.append(math.ceil(self.share * len(text) - 1e-9))
        return min(limits)

    def allows(self, text, position):
        return len(text.modified) < self.limit(text)

    def check(self, original, candidate):
        return len(candidate.modified) <= self.limit(original)

    def __repr__(self):
        return f"MaxPerturbed(share={self.share}, count={self.count})"


class NoRepeat(Constraint):
    """No word modified twice (TextAttack's RepeatModification)."""

    def allows(self, text, position):
        return position not in text.modified

    def check(self, original, candidate):
        return not candidate.repeated


class WordFilter(Constraint):
    """Words that must stay as they are (``keeps``): never offered, and no candidate may
    touch one (a segment join touches the word after too). The kept positions of the
    original are found once per original text."""

    _original = None
    _kept: frozenset = frozenset()

    def keeps(self, text, position: int) -> bool:
        raise NotImplementedError

    def allows(self, text, position):
        return not self.keeps(text, position)

    def kept(self, original) -> frozenset:
        if original is not self._original:
            self._kept = frozenset(p for p in range(len(original)) if self.keeps(original, p))
            self._original = original
        return self._kept

    def check(self, original, candidate):
        return self.kept(original).isdisjoint(candidate.modified)

    def filter(self, original, candidates):
        kept = self.kept(original)
        return [c for c in candidates if kept.isdisjoint(c.modified)]


class Stopwords(WordFilter):
    """Stopwords stay (compared in lower case, also by their stem: don't → do).
    ``case_sensitive``: as TextAttack compares them, so "The" and "YOU" may change."""

    def __init__(self, words: Iterable[str] | None = None, case_sensitive: bool = False):
        self.words = frozenset(w.lower() for w in words) if words is not None \
            else stopwords()
        self.case_sensitive = case_sensitive

    def keeps(self, text, position):
        word = text.word(position)
        if not self.case_sensitive:
            word = word.lower()
        return word in self.words or tokenize.stem(word)[1] in self.words

    def __repr__(self):
        return f"Stopwords({len(self.words)} words" + \
            (", case-sensitive)" if self.case_sensitive else ")")


class Protected(WordFilter):
    """Protected tokens stay: ``tokens`` (compared with the word and with the word plus what
    is glued to its front, so ``@USER`` protects the USER of "@USER"), hashtags if asked, and
    words matching a user regular expression (``re.fullmatch``, word or glued form)."""

    def __init__(self, tokens: Iterable[str] = PROTECTED, hashtags: bool = False,
                 patterns: Iterable[str] = ()):
        self.tokens = frozenset(tokens)
        self.hashtags = hashtags
        try:
            self.patterns = [re.compile(p) for p in patterns]
        except re.error as e:
            raise ValueError(f"protected pattern is not a regular expression: {e}") from None

    def keeps(self, text, position):
        word = text.word(position)
        glued = _PREFIX.search(text.gap_before(position)).group() + word
        if word in self.tokens or glued in self.tokens or (self.hashtags and glued[:1] == "#"):
            return True
        return any(p.fullmatch(word) or p.fullmatch(glued) for p in self.patterns)

    def __repr__(self):
        return (f"Protected({sorted(self.tokens)}, hashtags={self.hashtags}, "
                f"patterns={[p.pattern for p in self.patterns]})")


class MinWordLength(WordFilter):
    """Words shorter than ``length`` characters stay (Pruthi et al.: 4)."""

    def __init__(self, length: int):
        self.length = length

    def keeps(self, text, position):
        return tokenize.length(tokenize.stem(text.word(position))[1]) < self.length

    def __repr__(self):
        return f"MinWordLength({self.length})"
