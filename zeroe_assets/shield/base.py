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

    Three optional hooks let a restorer act on more than one stem; the shield calls each on
    every restorer it runs, so it never asks for one by name:

    - ``read(word)``: how a reader sees the word (visual undoes look-alikes); the shield reads
      a word through every restorer's ``read``, and casts a restored word in its case.
    - ``merges(words, gaps, read)``: ``(i, j, word)`` spans of the line's words ``i..j`` to be
      read as one ``word`` (intrude joins the pieces of an intruded word); none by default.
      The spans of all restorers together must not overlap.
    - ``keeps_whole(word, head, stem, tail)``: whether the restorers should see the whole word,
      apostrophes and clitics included, rather than its stem (``h'ello``, ``pain'ting``).
    """

    name: str = ""

    def __init__(self, lexicon):
        self.lexicon = lexicon  # the `Lexicon` candidates come from

    def candidates(self, word: str) -> dict[str, float]:
        raise NotImplementedError

    def read(self, word: str) -> str:
        return word

    def merges(self, words: list[str], gaps: list[str], read,
               joins: list | None = None) -> list[tuple[int, int, str]]:
        return []

    def keeps_whole(self, word: str, head: str, stem: str, tail: str) -> bool:
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
