"""Real-word errors: a typo that makes another dictionary word (``hole`` for *hope*, ``sit`` for
*shit*, ``wok`` for *work*) gives the restorers no non-word to catch, and the ranker keeps a
known word; only the context tells. This is the noisy channel of Mays, Damerau & Mercer (1991):
every dictionary word one edit away from the token (a letter put for another, added, dropped,
two adjacent ones swapped; SymSpell's index over the lexicon) is weighed by its frequency, how
well it goes with both neighbours (the lexicon's bigram association) and the typo channel's
P(token | word), against the token itself with the prior that it was typed as meant. A change
needs the neighbours to speak for it (``CONTEXT``) and the whole score to win by ``MARGIN``, so a
clean word is left unless its neighbours clearly call for another.

The lexicon's bigrams are a weak context model (a pair below their cut-off is no evidence), so a
change also needs what a typo of a common word looks like apart from context: the reading is a
common word (``READING``) far more frequent than the token (``RATIO``), and the edit keeps the
first and last letters (``ENDS``: people rarely mistype them, and Pruthi et al.'s attack never
does; *racing* → facing, *brooms* → rooms, *meal* → real were the clean words a context-only
rule changed).
"""
from __future__ import annotations

from .channel import load_channel
from .keyboard import _symspell
from .lexicon import Lexicon

MARGIN = 2.0  # log10 odds an alternative must win by over the token as typed
CONTEXT = 2.5  # log10 the neighbours' association must gain (left and right together)
FITS = 0.0  # a token whose neighbours go with it better than this (log10 PMI) is kept
COMMON = -4.0  # log10 frequency of a word too common to be taken for a typo (his, woman, there)
MIN_LENGTH = 3  # shorter words (of, in, on, to) have too many neighbours one edit away
READING = -4.0  # log10 frequency a reading needs (work, girl, time)
RATIO = 1.5  # log10: how much more frequent than the token the reading must be
ENDS = True  # the edit keeps the token's first and last letters


class RealWords:
    """Decide, in context, whether a dictionary word was typed for another one edit away."""

    def __init__(self, lexicon: Lexicon, margin: float = MARGIN, context: float = CONTEXT,
                 fits: float = FITS, reading: float = READING, ratio: float = RATIO,
                 ends: bool = ENDS):
        self.lexicon = lexicon
        self.margin, self.context, self.fits = margin, context, fits
        self.reading, self.ratio, self.ends = reading, ratio, ends

    def neighbours(self, low: str) -> list[str]:
        """The lexicon words one Damerau–Levenshtein edit from ``low``."""
        from symspellpy import Verbosity

        found = _symspell(self.lexicon, 2).lookup(low, Verbosity.ALL, 1, transfer_casing=False)
        return [s.term for s in found if s.distance == 1 and s.term in self.lexicon]

    def fit(self, word: str, left: str | None, right: str | None) -> float:
        lexicon = self.lexicon
        return (lexicon.association(left, word) if left else 0.0) + \
            (lexicon.association(word, right) if right else 0.0)

    def correct(self, low: str, left: str | None, right: str | None) -> str | None:
        """The word ``low`` was meant as, or None to keep it. ``left``/``right``: the
        neighbouring words as read (lower case; None at an edge or when unknown)."""
        if len(low) < MIN_LENGTH or low not in self.lexicon or not (left or right) \
                or self.lexicon.logfreq(low) >= COMMON:
            return None
        lexicon, channel = self.lexicon, load_channel()
        mine = self.fit(low, left, right)
        if mine > self.fits:
            return None
        keep = lexicon.logfreq(low) + mine
        best, best_score = None, keep + self.margin
        floor = max(self.reading, lexicon.logfreq(low) + self.ratio)
        for word in self.neighbours(low):
            if lexicon.logfreq(word) < floor \
                    or self.ends and (word[0] != low[0] or word[-1] != low[-1]):
                continue
            gain = self.fit(word, left, right) - mine
            if gain < self.context:
                continue
            score = lexicon.logfreq(word) + mine + gain + channel.score(low, word)
            if score >= best_score:
                best, best_score = word, score
        return best
