"""A per-spelling cache for the perturbers' hot paths: corpora repeat words, so what a word's
change needs (its keys, its cased misspellings, its respellings) is worked out once per
spelling, not once per visit."""
from __future__ import annotations

from collections.abc import Callable

LIMIT = 200_000  # spellings kept before the cache starts over: memory stays bounded on any corpus


class PerWord(dict):
    """``cache[word]`` is ``build(word)``, built on the first lookup of ``word`` (a plain dict
    lookup after that). ``build`` must give the same value whenever it is called."""

    def __init__(self, build: Callable[[str], object], limit: int = LIMIT):
        super().__init__()
        self.build, self.limit = build, limit

    def __missing__(self, word: str):
        if len(self) >= self.limit:
            self.clear()
        value = self[word] = self.build(word)
        return value
