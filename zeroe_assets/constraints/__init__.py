"""Constraints (TextAttack's second part): what a candidate text may be.

A constraint has ``allows(text, position)`` (before any candidate is made: may this word be
changed at all?) and ``check(original, candidate)`` (is this candidate acceptable?), and
``filter`` for a batch. Texts are the search's ``AttackedText`` (read through its ``word``,
``modified``, ``attacked_string`` …; this layer does not import the search).

- :mod:`.words`: share of words perturbed (ρ_max), no word modified twice, stopwords, protected
  tokens (``@USER``, ``URL``, hashtags, user patterns), minimum word length.
- :mod:`.overlap`: maximum character edit distance (normalised or absolute).
- :mod:`.visual`, :mod:`.phonetic`: replaced characters must be look-alikes (the visual table);
  a respelling must sound alike (the phonetic embedder's classes). They load their assets on
  first use.
- :mod:`.scored`: a word-pair score (sound: the embedder, G2P phones, Double Metaphone,
  spelling; sight: the visual space, raw pixels, the UTS #39 skeleton) at a threshold ε, the
  form the constraint robustness bench sweeps.

The NLI rule "only the hypothesis unless asked" is the text's own (its attacked segments).
"""
from .base import Constraint, check_all
from .overlap import EditDistance
from .phonetic import PhoneticClass
from .visual import VisualSimilarity
from .words import (PROTECTED, MaxPerturbed, MinWordLength, NoRepeat, Protected, Stopwords,
                    WordFilter)

__all__ = ["PROTECTED", "Constraint", "EditDistance", "MaxPerturbed", "MinWordLength",
           "NoRepeat", "PhoneticClass", "Protected", "Stopwords", "VisualSimilarity",
           "WordFilter", "check_all"]
