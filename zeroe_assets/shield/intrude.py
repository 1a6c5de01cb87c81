"""Intruders: a symbol repeated between the letters of a word (``t+oda+y``, ``h e llo``) splits it
into pieces; the pieces that join into a dictionary word, where they are not words themselves,
are one word again. Apostrophes stay inside a word token, so they are dropped within it too."""
from __future__ import annotations

from ..perturbers.intrude import SYMBOLS
from .base import Restorer
from .lexicon import Lexicon

MAX_PIECES = 16


def _word_like(piece: str, lexicon: Lexicon) -> bool:
    low = piece.lower()
    return low in lexicon and (len(low) > 1 or low in ("a", "i"))


class IntrudeRestorer(Restorer):
    name = "intrude"

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon

    def candidates(self, word):
        """Inside one token only the apostrophe can have intruded (``h'e'llo``)."""
        if "'" not in word and "’" not in word:
            return {}
        joined = word.replace("'", "").replace("’", "").lower()
        return {joined: 1.0} if joined in self.lexicon and joined != word.lower() else {}

    def merges(self, words: list[str], gaps: list[str], read) -> list[tuple[int, int, str]]:
        """``(i, j, word)``: words ``i..j`` with one repeated symbol between them read as
        ``word``; ``read(piece)`` is how a piece reads (look-alikes undone). Longest first."""
        found, i, n = [], 0, len(words)
        while i < n - 1:
            symbol = gaps[i + 1]
            best = None
            if len(symbol) == 1 and symbol in SYMBOLS:
                j = i + 1
                while j + 1 < n and gaps[j + 1] == symbol and j - i + 1 < MAX_PIECES:
                    j += 1
                for end in range(j, i, -1):
                    pieces = [read(w) for w in words[i:end + 1]]
                    joined = "".join(pieces).lower()
                    if (len(joined) >= 3 and joined in self.lexicon
                            and not all(_word_like(p, self.lexicon) for p in pieces)
                            and not (symbol == "." and all(len(p) == 1 for p in pieces))):
                        best = (i, end, joined)
                        break
            if best:
                found.append(best)
                i = best[1] + 1
            else:
                i += 1
        return found
