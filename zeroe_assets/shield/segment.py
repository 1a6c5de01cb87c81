"""Segmentation: a token that is no word but splits into words (``nearthe`` → near the), split by
``wordsegment``'s unigram and bigram model (Norvig's, over Google's web counts)."""
from __future__ import annotations

import functools

from .base import Restorer

MAX_LENGTH = 40  # longer tokens are URLs, hashes or code, not joined words
SHORT_PARTS = {1: -3.0, 2: -3.5, 3: -4.5}  # the log10 frequency a short part needs (up str sam)


@functools.lru_cache(maxsize=1)
def _segmenter():
    import wordsegment

    wordsegment.load()
    return wordsegment.segment


class SegmentRestorer(Restorer):
    name = "segment"

    def candidates(self, word):
        low = word.lower()
        if not (4 <= len(low) <= MAX_LENGTH and low.isascii() and low.isalpha()) \
                or low in self.lexicon:
            return {}
        parts = _segmenter()(low)
        if len(parts) < 2 or "".join(parts) != low or not all(map(self._plausible, parts)):
            return {}
        return {" ".join(parts): 1.0}

    def _plausible(self, part: str) -> bool:
        """A word, and a common one if it is short: rare short words split anything."""
        return part in self.lexicon and (len(part) > 3
                                         or self.lexicon.logfreq(part) >= SHORT_PARTS[len(part)])
