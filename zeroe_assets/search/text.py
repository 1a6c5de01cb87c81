"""The text under attack: a victim input as segments of the toolkit's own words and gaps
(`tokenize.split`), immutable, with the global word positions the search speaks of.

Words are the toolkit's tokens and stay so: a candidate changes a word (or, for segment, the gap
after it) in place, so an inserted symbol never splits one word into many and the perturbed-word
count counts original words (a segment join of words i and i+1 counts 2). ``pos`` inputs are
token lists, each token one word; ``nli`` inputs are (premise, hypothesis) with the hypothesis
attacked unless asked; other tasks have one segment.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import NamedTuple

from .. import tokenize

MASK = "[UNK]"  # what masking-based word importance puts in a word's place (TextAttack's)


class Edit(NamedTuple):
    """A change of one segment: local word and gap indices → new strings, and the global word
    positions it modifies."""

    segment: int
    words: tuple[tuple[int, str], ...]
    gaps: tuple[tuple[int, str], ...]
    positions: tuple[int, ...]


def respellings(segment: int, index: int, position: int, forms) -> list[Edit]:
    """One edit per form, each putting it in place of word ``index`` of ``segment`` (global
    ``position``): a word's candidates. Made with ``tuple.__new__``, as ``Edit`` would make
    them: a named tuple's own constructor is a Python function, twice the cost."""
    new, gaps, positions = tuple.__new__, (), (position,)
    return [new(Edit, (segment, ((index, form),), gaps, positions)) for form in forms]


class AttackedText:
    """Segments of (words, gaps), which of them are attacked, and the positions modified so far.

    Global position p numbers the words of the attacked segments in order; ``locate(p)`` gives
    (segment, index). ``repeated`` records whether some edit modified a position twice.
    """

    __slots__ = ("kind", "segments", "attacked", "modified", "repeated", "_starts", "_key",
                 "_index")

    def __init__(self, kind: str, segments: tuple, attacked: tuple[int, ...],
                 modified: frozenset = frozenset(), repeated: bool = False, _starts=None,
                 _index=None):
        self.kind, self.segments, self.attacked = kind, segments, attacked
        self.modified, self.repeated = modified, repeated
        if _starts is None:
            _starts, _index, at = [], [], 0
            for s in attacked:
                _starts.append(at)
                n = len(segments[s][0])
                _index.extend((s, i) for i in range(n))
                at += n
        self._starts, self._index = _starts, _index
        self._key = None

    @classmethod
    def from_input(cls, task_inputs: str, item, attack: Sequence[int] | None = None
                   ) -> "AttackedText":
        """The text of one victim input; ``task_inputs`` is the task's ``inputs`` (text, pair,
        tokens); ``attack``: which segments of a pair (default: the hypothesis, 1)."""
        if task_inputs == "tokens":
            if isinstance(item, str) or not isinstance(item, Sequence) or \
                    not all(isinstance(t, str) for t in item):
                raise ValueError(f"a pos example is a list of token strings, got {item!r}")
            tokens = tuple(item)
            return cls("tokens", ((tokens, ("",) * (len(tokens) + 1)),), (0,))
        if task_inputs == "pair":
            if isinstance(item, str) or not isinstance(item, Sequence) or len(item) != 2 or \
                    not all(isinstance(t, str) for t in item):
                raise ValueError(f"an nli example is a (premise, hypothesis) pair of strings, "
                                 f"got {item!r}")
            parts = tuple(item)
            attacked = (1,) if attack is None else tuple(sorted(set(attack)))
            if not attacked or any(s not in (0, 1) for s in attacked):
                raise ValueError(f"nli attacks segment 0 (premise) and/or 1 (hypothesis), got "
                                 f"{attack!r}")
        else:
            if not isinstance(item, str):
                raise ValueError(f"a {task_inputs} example is a string, got {item!r}")
            parts, attacked = (item,), (0,)
        segments = tuple((tuple(w), tuple(g)) for w, g in map(tokenize.split, parts))
        return cls("pair" if task_inputs == "pair" else "text", segments, attacked)

    def __len__(self) -> int:
        """How many words the attacked segments have (L of the defender benchmark's ρ·L)."""
        return len(self._index)

    def locate(self, position: int) -> tuple[int, int]:
        return self._index[position]

    def word(self, position: int) -> str:
        s, i = self._index[position]
        return self.segments[s][0][i]

    def gap_before(self, position: int) -> str:
        s, i = self._index[position]
        return self.segments[s][1][i]

    def gap_after(self, position: int) -> str:
        s, i = self._index[position]
        return self.segments[s][1][i + 1]

    def position(self, segment: int, index: int) -> int:
        return self._starts[self.attacked.index(segment)] + index

    def apply(self, edit: Edit) -> "AttackedText":
        """The text with ``edit`` made; its positions join ``modified``."""
        words, gaps = self.segments[edit.segment]
        if edit.words:
            words = list(words)
            for i, new in edit.words:
                words[i] = new
            words = tuple(words)
        if edit.gaps:
            gaps = list(gaps)
            for j, new in edit.gaps:
                gaps[j] = new
            gaps = tuple(gaps)
        segments = list(self.segments)
        segments[edit.segment] = (words, gaps)
        modified = self.modified.union(edit.positions)
        return AttackedText(self.kind, tuple(segments), self.attacked, modified,
                            self.repeated or len(modified) < len(self.modified) +
                            len(edit.positions), self._starts, self._index)

    def restored(self, original: "AttackedText", position: int) -> "AttackedText":
        """The text with the word at ``position`` and the gap after it as in ``original``
        again, and the word no longer counted as modified."""
        s, i = self._index[position]
        edit = Edit(s, ((i, original.word(position)),), ((i + 1, original.gap_after(position)),),
                    ())
        text = self.apply(edit)
        return AttackedText(text.kind, text.segments, text.attacked,
                            self.modified - {position}, self.repeated, self._starts,
                            self._index)

    def without(self, position: int, mask: str | None = None) -> "AttackedText":
        """The text with the word at ``position`` deleted (TextFooler's importance) or replaced by
        ``mask``; for word importance only (the word count stays as far as positions go)."""
        s, i = self._index[position]
        words, gaps = map(list, self.segments[s])
        if mask is not None:
            words[i] = mask
        else:
            before, after = gaps[i], gaps[i + 1]
            # one separator for two: "a b c" without b is "a c", "b, c" without b ", c"
            merged = before.rstrip() + after if before.strip() else after
            del words[i]
            gaps[i:i + 2] = [merged]
        segments = list(self.segments)
        segments[s] = (tuple(words), tuple(gaps))
        return AttackedText(self.kind, tuple(segments), self.attacked)

    def strings(self) -> tuple:
        """Each segment as the victim sees it (a string, or for tokens the token tuple)."""
        if self.kind == "tokens":
            return (self.segments[0][0],)
        # tokenize.join, with the interleaving done in C: the hot path of every candidate
        return tuple("".join(chain.from_iterable(zip(g, w))) + g[-1] for w, g in self.segments)

    @property
    def key(self):
        """Hashable and equal exactly for equal victim inputs: the query cache's key."""
        if self._key is None:
            strings = self.strings()
            self._key = strings[0] if len(strings) == 1 else strings
        return self._key

    def victim_input(self):
        """The task input again: a string, a (premise, hypothesis) tuple, or a token list."""
        key = self.key
        if self.kind == "tokens":
            return list(key)
        return key

    def attacked_string(self) -> str:
        """The attacked segments as one string, for edit distances (tokens joined by spaces)."""
        if self.kind == "tokens":
            return " ".join(self.segments[0][0])
        strings = self.strings()
        return "\n".join(strings[s] for s in self.attacked)

    def __eq__(self, other) -> bool:
        return isinstance(other, AttackedText) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"AttackedText({self.key!r}, modified={sorted(self.modified)})"
