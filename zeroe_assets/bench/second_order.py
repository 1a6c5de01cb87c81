"""Second-order adversarial examples (Morris et al. 2020, §4.2): an attack on the constraint
itself. A transformation changes what a reader perceives, with the ground truth from an oracle
that is none of the constraints compared; a beam search changes words until at least δ of them
are changed and the constraint at ε still accepts every change: the constraint was fooled.

- Sound (``SoundChanges``): a word becomes another lexicon word at most two letters away whose
  pronunciations (CMUdict's, ``phonetic.sound``) are all farther than the "similar" bound from
  the word's: a different word to a listener (night → tight, knows → knobs).
- Sight (``SightChanges``): one letter becomes a character that reads as another letter by
  Unicode's account (its UTS #39 confusable class or its NFKD base letter,
  ``visual.confusables``): an o-like character put for e. Raw pixels are one of the constraints
  compared, so they are not the oracle; they only veto a character drawn exactly as the letter
  it replaces (no reader can see that change, whatever Unicode's classes say).

The paper names beam search but not its width; ``WIDTH`` is TextAttack's default. For the
word-pair constraints here each changed word is scored on its own, so the search succeeds exactly
when δ attackable words each have an accepted change; the beam keeps the best-scoring ones.
"""
from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import tokenize
from ..constraints import Protected, Stopwords
from ..constraints.scored import SIGHT, SOUND, RawPixelScore, Score, Threshold
from ..search.text import AttackedText, Edit

DELTA = 3  # words changed (the paper's δ)
WIDTH = 8  # beam width (TextAttack's BeamSearch default)
FORMS = 20  # sound changes per word: the most frequent lexicon neighbours


def _case_like(word: str, new: str) -> str:
    """``new`` (lower case) in the case pattern of ``word``: Title, UPPER or as it is."""
    if word.isupper() and len(word) > 1:
        return new.upper()
    return new[:1].upper() + new[1:] if word[:1].isupper() else new


class Changes:
    """A transformation that changes perception: ``forms(word)`` → [(new word, evidence)],
    the evidence being what the oracle saw (a phone distance, the letter a character reads as)."""

    kind = ""

    def forms(self, word: str) -> list[tuple[str, dict]]:
        raise NotImplementedError


class SoundChanges(Changes):
    """Lexicon words within two letter edits (they share the word or the word less one letter:
    a deletion neighbourhood) that sound different: every pair of their pronunciations is
    farther apart than ``phonetic.sound.BOUNDS[1]`` (phone distance over the shorter length);
    the ``limit`` most frequent of them (the lexicon's word counts), so that the changes are
    words a reader knows and a G2P-based constraint has a few hundred words per text to read."""

    kind = SOUND

    def __init__(self, space=None, limit: int = FORMS):
        self._space, self._keys, self.limit = space, None, limit
        self._forms: dict[str, list[tuple[str, float]]] = {}

    @property
    def space(self):
        if self._space is None:
            from ..phonetic.sound import load_sound

            self._space = load_sound()
        return self._space

    @staticmethod
    def _deletions(word: str) -> set[str]:
        return {word} | {word[:i] + word[i + 1:] for i in range(len(word))}

    def _index(self) -> dict[str, list[str]]:
        if self._keys is None:
            keys: dict[str, list[str]] = {}
            for w in self.space.words:
                if w.isalpha():
                    for k in self._deletions(w):
                        keys.setdefault(k, []).append(w)
            self._keys = keys
        return self._keys

    def forms(self, word):
        from ..phonetic.sound import BOUNDS

        low = word.lower()
        found = self._forms.get(low)
        if found is None:
            found = []
            if low.isalpha() and self.space.pronunciations(low):
                index = self._index()
                near = sorted({w for k in self._deletions(low) for w in index.get(k, ())} - {low})
                space = self.space
                for w in near:
                    d = space.distance(low, w)
                    if d is not None and d > BOUNDS[1]:
                        found.append((w, round(d, 4)))
                found.sort(key=lambda f: (-int(space.counts[space.rows[f[0]]]), f[0]))
                found = sorted(found[:self.limit])
            self._forms[low] = found
        return [(_case_like(word, w), {"phone_distance": d}) for w, d in found]


class SightChanges(Changes):
    """One ASCII letter replaced by a BMP character that reads as other letters only
    (``visual.confusables.reads_as``), each such character at each letter, unless the font
    draws the two identically (``identical``: Unicode classes the palochka ӏ with i, but
    DejaVu Sans draws it as an l, and a reader cannot see a change that is not drawn)."""

    kind = SIGHT

    def __init__(self):
        self._pool: list[tuple[str, frozenset[str]]] | None = None
        self._pixels = RawPixelScore()
        self._same: dict[str, frozenset[str]] = {}

    def identical(self, letter: str) -> frozenset[str]:
        """The pool's characters drawn pixel for pixel as ``letter``."""
        same = self._same.get(letter)
        if same is None:
            chars = [c for c, _ in self.pool()]
            mine, *theirs = self._pixels.pixels([letter, *chars])
            same = frozenset() if mine is None else frozenset(
                c for c, px in zip(chars, theirs) if px is not None and np.array_equal(px, mine))
            self._same[letter] = same
        return same

    def pool(self) -> list[tuple[str, frozenset[str]]]:
        """The characters that read as some ASCII letter, with the letters."""
        if self._pool is None:
            from ..visual import is_candidate
            from ..visual.confusables import reads_as

            self._pool = [(c, reads_as(c)) for c in map(chr, range(0x10000))
                          if is_candidate(c) and reads_as(c)]
        return self._pool

    def forms(self, word):
        out = []
        for i, ch in enumerate(word):
            if ch not in string.ascii_letters:
                continue
            same = self.identical(ch)
            for x, letters in self.pool():
                if ch.lower() not in letters and x not in same:
                    out.append((word[:i] + x + word[i + 1:],
                                {"at": i, "character": x, "reads_as": "".join(sorted(letters))}))
        return out


CHANGES = {SOUND: SoundChanges, SIGHT: SightChanges}


@dataclass(frozen=True)
class SecondOrder:
    """What the attack on one example found at one threshold: ``found`` when ``delta`` words are
    changed with every change accepted; ``changed`` how many it reached; ``changes`` the words
    (position, original, new, score, evidence) and ``adversarial`` the victim input, when
    found."""

    found: bool
    changed: int
    adversarial: object = None
    changes: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"found": self.found, "changed": self.changed, "adversarial": self.adversarial,
                "changes": self.changes}


class SecondOrderAttack:
    """Beam search (``width``) over the words of a text, each step changing one more word with
    ``changes``, keeping the texts whose changes score highest under ``score``; success at
    threshold ε when ``delta`` words are changed and ``Threshold(score, ε)`` accepts the text.
    Stopwords and protected tokens stay, as in the first-order attack."""

    def __init__(self, score: Score, changes: Changes | None = None, delta: int = DELTA,
                 width: int = WIDTH, segments: Sequence[int] | None = None):
        if isinstance(delta, bool) or not isinstance(delta, int) or delta < 1:
            raise ValueError(f"delta (words changed) must be at least 1, got {delta!r}")
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"beam width must be at least 1, got {width!r}")
        self.score = score
        self.changes = changes if changes is not None else CHANGES[score.kind]()
        if self.changes.kind != score.kind:
            raise ValueError(f"{score.name} judges {score.kind}, not {self.changes.kind}")
        self.delta, self.width, self.segments = delta, width, segments
        self.filters = [Stopwords(), Protected()]
        self._best: dict = {}

    def best(self, text: AttackedText) -> dict[int, list[tuple[float, str, dict]]]:
        """Per attackable position, its ``width`` best-scoring changes (score, new word,
        evidence), best first: all a beam of that width can use at any threshold."""
        found = self._best.get(text.key)
        if found is not None:
            return found
        key, found, asked = self.score.key, {}, []
        for p in range(len(text)):
            if all(f.allows(text, p) for f in self.filters):
                head, stem, tail = tokenize.stem(text.word(p))
                if stem:
                    asked.append((p, head, tail, stem, self.changes.forms(stem)))
        # one batch for the whole text: a model call costs about the same for 5 words as 500
        scores = iter(self.score.scores([(key(stem), key(new)) for *_, stem, forms in asked
                                         for new, _ in forms], remember=False))
        for p, head, tail, stem, forms in asked:
            ranked = sorted(((next(scores), new, ev) for new, ev in forms),
                            key=lambda t: (-t[0], t[1]))[:self.width]
            if ranked:
                found[p] = [(s, head + new + tail, ev) for s, new, ev in ranked]
        self._best[text.key] = found  # a few options per word: every threshold reuses them
        return found

    def run(self, item, threshold: float, task_inputs: str = "text") -> SecondOrder:
        """Attack ``item`` (a victim input of a task whose inputs are ``task_inputs``)."""
        constraint = Threshold(self.score, threshold)  # checks the threshold's range
        text = AttackedText.from_input(task_inputs, item, self.segments)
        least = constraint.threshold - 1e-12
        options = {p: [o for o in ranked if o[0] >= least]
                   for p, ranked in self.best(text).items()}
        beam: list[tuple[float, tuple]] = [(0.0, ())]  # (total score, ((position, option)...))
        for _ in range(self.delta):
            grown = {}
            for total, chosen in beam:
                used = {p for p, _ in chosen}
                for p, opts in options.items():
                    if p not in used:
                        for o in opts:
                            state = tuple(sorted(chosen + ((p, o),), key=lambda c: c[0]))
                            grown[tuple((q, c[1]) for q, c in state)] = (total + o[0], state)
            if not grown:
                break
            beam = sorted(grown.values(), key=lambda b: (-b[0], [(q, c[1]) for q, c in b[1]])
                          )[:self.width]
        total, chosen = beam[0]
        if len(chosen) < self.delta:
            return SecondOrder(False, len(chosen))
        final = text
        for p, (s, new, ev) in chosen:
            seg, i = text.locate(p)
            final = final.apply(Edit(seg, ((i, new),), (), (p,)))
        if not constraint.check(text, final):  # the beam's scores are the constraint's own
            raise AssertionError(f"{self.score.name} rejects a change it scored ≥ {threshold}")
        changes = [{"position": p, "original": text.word(p), "new": new, "score": round(s, 6),
                    **ev} for p, (s, new, ev) in chosen]
        return SecondOrder(True, len(chosen), final.victim_input(), changes)
