"""The shield: text in, restored text out. Each word gets the readings its restorers propose
(one per mechanism, mirroring `perturbers/`), the ranker picks one in context, and the word
changes only when the ranker is sure; gaps, case and clitics stay as they were.
"""
from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import tokenize
from ..perturbers.natural import match_case
from .features import MECHANISMS, line_evidence, token_features
from .lexicon import Lexicon, load_lexicon
from .ranker import Ranker, hand_set_ranker, load_ranker

ENGLISH_SHARE = 0.5  # lines where fewer words than this contain a Latin letter are left alone


@dataclass
class Unit:
    """One word of the text as the shield sees it: words ``start..end`` (more than one where an
    intruded symbol split a word), its stem and the readings proposed for the stem."""

    start: int
    end: int
    head: str
    stem: str
    tail: str
    template: str  # the stem as a reader sees it (look-alikes undone): the casing of a reading
    candidates: dict[str, dict[str, float]]

    @property
    def low(self) -> str:
        return self.stem.lower()

    def provisional(self, lexicon: Lexicon) -> str | None:
        """How the word reads before ranking, for its neighbours' context: itself if it is a
        word, else its most often proposed, most frequent candidate."""
        if self.low in lexicon:
            return self.low
        if not self.candidates:
            return None
        best = max(self.candidates.items(),
                   key=lambda kv: (len(kv[1]), lexicon.logfreq(kv[0].split()[0]), kv[0]))
        return best[0]


class Shield:
    """Undo low-level attacks. ``mechanisms``: which restorers run (default all of
    `MECHANISMS`); ``threshold``: the ranker probability a change needs (default the ranker's);
    ``learned``: use the exported ranker if there is one (else the hand-set weights)."""

    def __init__(self, mechanisms: Sequence[str] | None = None, threshold: float | None = None,
                 learned: bool = True, root: Path | str | None = None,
                 ranker: Ranker | None = None):
        chosen = tuple(MECHANISMS if mechanisms is None else mechanisms)
        unknown = [m for m in chosen if m not in MECHANISMS]
        if unknown or not chosen:
            raise ValueError(f"unknown shield mechanism(s) {', '.join(unknown) or '(none given)'};"
                             f" choose from {', '.join(MECHANISMS)}")
        self.mechanisms = tuple(m for m in MECHANISMS if m in chosen)
        self.root = Path(root) if root else None
        self.lexicon = load_lexicon()
        if ranker is None:
            ranker = (load_ranker(self.root) if learned else None) or hand_set_ranker()
        if threshold is not None:
            if not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
                raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}")
            ranker = Ranker(ranker.weights, float(threshold), ranker.learned, ranker.meta)
        self.ranker = ranker
        self.restorers = _restorers(self.mechanisms, self.lexicon, self.root)

    @property
    def learned(self) -> bool:
        return self.ranker.learned

    def describe(self) -> str:
        how = "learned ranker" if self.learned else \
            "hand-set ranker (no learned one exported: run `python -m train.shield`)"
        return f"shield [{', '.join(self.mechanisms)}], {how}, threshold {self.ranker.threshold}"

    # -- the pipeline ------------------------------------------------------------------------
    def units(self, words: list[str], gaps: list[str]) -> list[Unit]:
        """The words of a line as units, with the readings their restorers propose."""
        visual = self.restorers.get("visual")
        read = visual.deconfuse if visual else (lambda w: w)
        merges = self.restorers["intrude"].merges(words, gaps, read) \
            if "intrude" in self.restorers else []
        spans, k = [], 0
        for i, j, joined in merges:
            spans += [(w, w, None) for w in range(k, i)] + [(i, j, joined)]
            k = j + 1
        spans += [(w, w, None) for w in range(k, len(words))]
        units = []
        for i, j, joined in spans:
            if joined is not None:
                raw = tokenize.join(words[i:j + 1], [""] + gaps[i + 1:j + 1] + [""])
                units.append(Unit(i, j, "", raw, "", read(raw.replace(gaps[i + 1], "")),
                                  {joined: {"intrude": 1.0}}))
                continue
            head, stem, tail = tokenize.stem(words[i])
            if "intrude" in self.restorers and ("'" in stem or "’" in words[i]):
                head, stem, tail = "", words[i], ""  # an intruded apostrophe is not a clitic
            found: dict[str, dict[str, float]] = {}
            for name, restorer in self.restorers.items():
                for reading, confidence in restorer.candidates(stem).items():
                    found.setdefault(reading, {})[name] = confidence
            found.pop(stem.lower(), None)
            units.append(Unit(i, i, head, stem, tail, read(stem), found))
        return units

    def _rows(self, units: list[Unit], k: int, evidence: dict[str, float]
              ) -> tuple[list[str], np.ndarray]:
        unit = units[k]
        left = units[k - 1].provisional(self.lexicon) if k else None
        right = units[k + 1].provisional(self.lexicon) if k + 1 < len(units) else None
        capital = unit.stem[:1].isupper() and k > 0
        return token_features(self.lexicon, unit.stem, unit.low, capital, unit.candidates,
                              left and left.split()[-1], right and right.split()[0], evidence)

    def evidence(self, units: list[Unit]) -> dict[str, float]:
        return line_evidence(self.lexicon, [(u.low, u.candidates) for u in units])

    def restore(self, text: str) -> str:
        """``text`` with the attacked words it is sure of restored; everything else as it was."""
        if not isinstance(text, str):
            raise ValueError(f"the shield restores text (str), got {type(text).__name__}")
        words, gaps = tokenize.split(text)
        if not words or not _english(words):
            return text
        units = self.units(words, gaps)
        evidence = self.evidence(units)
        out_words, out_gaps = list(words), list(gaps)
        for k, unit in enumerate(units):
            if not unit.candidates:
                continue
            readings, rows = self._rows(units, k, evidence)
            best, prob = self.ranker.choose(rows)
            if best == 0 or prob < self.ranker.threshold:
                continue
            out_words[unit.start] = unit.head + match_case(unit.template, readings[best]) + unit.tail
            for w in range(unit.start + 1, unit.end + 1):  # the pieces of an intruded word
                out_words[w], out_gaps[w] = "", ""
        return tokenize.join(out_words, out_gaps)

    def restore_many(self, texts: Iterable[str]) -> Iterator[str]:
        """Restore lines one by one (streaming)."""
        for text in texts:
            yield self.restore(text)

    def __call__(self, texts: str | Sequence[str]):
        if isinstance(texts, str):
            return self.restore(texts)
        return list(self.restore_many(texts))

    # -- training ----------------------------------------------------------------------------
    def training_rows(self, perturbed: str, clean: str) -> list[tuple[np.ndarray, int, str]]:
        """``(rows, gold, mechanisms)`` for every word of ``perturbed`` aligned with a word (or
        words) of ``clean`` whose reading is among its candidates: what `train.shield` fits the
        ranker on. ``mechanisms`` names the restorers that proposed the gold reading ("" when it
        is the word itself)."""
        words, gaps = tokenize.split(perturbed)
        if not words:
            return []
        units = self.units(words, gaps)
        evidence = self.evidence(units)
        gold = [tokenize.stem(w)[1].lower() for w in tokenize.split(clean)[0]]
        mine = [u.low for u in units]
        out = []
        matcher = difflib.SequenceMatcher(None, mine, gold, autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op == "equal" or (op == "replace" and a1 - a0 == b1 - b0):
                pairs = list(zip(range(a0, a1), gold[b0:b1]))
            elif op == "replace" and a1 - a0 == 1:
                pairs = [(a0, " ".join(gold[b0:b1]))]  # joined words
            else:
                continue
            for k, target in pairs:
                if target != units[k].low and target not in units[k].candidates:
                    continue
                readings, rows = self._rows(units, k, evidence)
                index = readings.index(target)
                out.append((rows, index, ",".join(units[k].candidates.get(target, {}))))
        return out


def _english(words: list[str]) -> bool:
    latin = sum(any("a" <= c <= "z" or "A" <= c <= "Z" for c in w) for w in words)
    return latin >= ENGLISH_SHARE * len(words)


def _restorers(mechanisms, lexicon, root) -> dict:
    from .disemvowel import DisemvowelRestorer
    from .intrude import IntrudeRestorer
    from .segment import SegmentRestorer
    from .shuffle import FullShuffleRestorer, InnerShuffleRestorer
    from .truncate import TruncateRestorer
    from .typo import NaturalRestorer, TypoRestorer
    from .visual import VisualRestorer

    typo = TypoRestorer(lexicon)
    build = {"visual": lambda: VisualRestorer(lexicon, typo, root),
             "intrude": lambda: IntrudeRestorer(lexicon),
             "segment": lambda: SegmentRestorer(lexicon),
             "typo": lambda: typo,
             "natural": lambda: NaturalRestorer(),
             "inner-shuffle": lambda: InnerShuffleRestorer(lexicon),
             "full-shuffle": lambda: FullShuffleRestorer(lexicon),
             "truncate": lambda: TruncateRestorer(lexicon),
             "disemvowel": lambda: DisemvowelRestorer(lexicon),
             "phonetic": lambda: _phonetic(lexicon, root)}
    return {m: r for m in mechanisms if (r := build[m]()) is not None}


def _phonetic(lexicon, root):
    try:
        from .phonetic import PhoneticRestorer
    except ImportError:
        warnings.warn("the phonetic restorer is not available in this version", stacklevel=3)
        return None
    return PhoneticRestorer(lexicon, root)
