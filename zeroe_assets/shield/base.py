"""What every restorer is: the mirror of a perturber. Given a word as it reached the shield, it
proposes the dictionary words it may have been before that perturber changed it.

A restorer only proposes; which candidate wins, in context, is the ranker's decision
(`shield.features`, `shield.ranker`), so one restorer's guess never silently overrides another's.
"""
from __future__ import annotations

LIMIT = 20  # candidates a restorer proposes for one token, best first


class Restorer:
    """Subclasses set ``name`` and override ``candidates``.

    ``candidates(word)`` gets the word's stem as it stands in the text (any case, any script) and
    returns lower-case candidates (a lexicon word, or words joined by single spaces) mapped to
    the restorer's confidence in (0, 1]; the ranker sees it as this restorer's feature column.
    """

    name: str = ""

    def __init__(self, lexicon):
        self.lexicon = lexicon  # the `Lexicon` candidates come from

    def candidates(self, word: str) -> dict[str, float]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
