"""A respelling must sound like the word it replaces: the phonetic embedder's pair classifier
(``zeroe_assets.phonetic``) puts the two in one of the sound-alike classes."""
from __future__ import annotations

from pathlib import Path

from .. import tokenize
from ..phonetic.names import CLASSES, SOUND_ALIKE
from .base import Constraint


class PhoneticClass(Constraint):
    """Every changed word is judged against the original by the Siamese embedder; its class
    must be one of ``classes`` (default: identical or very similar). Changes that are not
    respellings of a word (a join) fail. Needs torch and the phonetic assets (loaded on first
    use); judgements are batched per candidate list and cached."""

    def __init__(self, classes=SOUND_ALIKE, root: Path | str | None = None):
        wrong = [c for c in classes if c not in CLASSES]
        if wrong or not classes:
            raise ValueError(f"phonetic classes are {', '.join(CLASSES)}, got {list(classes)}")
        self.classes, self.root = frozenset(classes), root
        self._judged: dict[tuple[str, str], bool] = {}
        self._embedder = None

    def _judge(self, pairs: set[tuple[str, str]]) -> None:
        todo = sorted(p for p in pairs if p not in self._judged)
        if not todo:
            return
        if self._embedder is None:
            from ..phonetic.embedder import load_embedder  # NeedsTorch without torch
            self._embedder = load_embedder(Path(self.root) if self.root else None)
        for pair, verdict in self._embedder.judge_pairs(todo).items():
            self._judged[pair] = verdict.label in self.classes

    @staticmethod
    def _pairs(original, candidate):
        out = []
        for p in candidate.modified:
            old, new = tokenize.stem(original.word(p))[1], tokenize.stem(candidate.word(p))[1]
            out.append((old.lower(), new.lower()) if old != new else None)
        return out

    def filter(self, original, candidates):
        per = [self._pairs(original, c) for c in candidates]
        self._judge({p for pairs in per for p in pairs if p is not None})
        judged = self._judged
        return [c for c, pairs in zip(candidates, per)
                if all(p is not None and (p[0] == p[1] or judged[p]) for p in pairs)]

    def check(self, original, candidate):
        return bool(self.filter(original, [candidate]))

    def __repr__(self):
        return f"PhoneticClass({sorted(self.classes)})"
