"""The Zéroe attack protocol (paper §3.1), shared by every perturber, and composition.

``protocol="paper"``: per sample, draw word indices uniformly without replacement; for each, flip
a coin with probability p and attack on heads; a word counts as perturbed only if it changed;
stop once ⌈p·n⌉ words are perturbed or no indices are left.
``protocol="reference"``: the original code's behaviour (`zeroe_assets.reference`).

Under both, a word's apostrophes and clitics stay in place and the perturber sees only its stem
(`tokenize.stem`: don't → do + n't), except for a perturber that takes whole words
(``Perturber.whole_words``: visual, which replaces characters in place).

These are random, non-targeted perturbations; targeted search attacks (goal, constraints,
transformation, search) are another layer built on the perturbers' candidates. How a seed
becomes a generator per sample is `zeroe_assets.rng`.
"""
from __future__ import annotations

import random
from math import ceil, trunc
from collections.abc import Iterable, Iterator, Sequence

from . import reference, tokenize
from .tokenize import parts as _parts
from .perturbers.base import Perturber
from .perturbers._cache import PerWord
from .perturbers._sampling import at_least_one
from .rng import Seed, base_seed, block_rng, check_text, sample_rngs, shuffle
from .validate import resolve_level

PROTOCOLS = ("paper", "reference")



class Perturbation:
    """Something that perturbs one text with a given generator; callable on a str or a list."""

    name = "perturbation"
    token_aligned = True  # False where a sample's token count may change (segment joins words)

    def perturb(self, text: str, rng: random.Random) -> str:
        raise NotImplementedError

    @property
    def prepares(self) -> bool:
        """Whether ``prepare`` does batch work (worth reading a whole corpus for)."""
        return False

    def prepare(self, texts: Iterable[str]) -> int:
        """Batch work before perturbing ``texts`` one by one (phonetic: decode their unknown
        words at once); results do not change. Returns how many words were prepared."""
        return 0

    def __call__(self, texts: str | Sequence[str], seed: Seed = None):
        if isinstance(texts, str):
            return self.perturb(texts, block_rng(base_seed(seed), 0))
        if not isinstance(texts, Iterable):
            raise ValueError(f"expected a str or a sequence of str, got {type(texts).__name__}")
        return [self.perturb(check_text(t), rng)
                for t, rng in zip(texts, sample_rngs(base_seed(seed)))]

    def stream(self, texts: Iterable[str], seed: Seed = None, processes: int = 1,
               chunksize: int = 256) -> Iterator[str]:
        """Perturb a (possibly huge) iterable lazily, in order, optionally over processes.

        Output is identical for any ``processes``/``chunksize`` (chunks are whole blocks).
        """
        from .parallel import stream  # multiprocessing only when asked for

        return stream(self, texts, base_seed(seed), processes, chunksize)


class ZeroePerturbation(Perturbation):
    """One perturber under the Zéroe protocol at word level p and character level φ."""

    def __init__(self, perturber: Perturber, level: float | str = "mid",
                 phi: float | str | None = None, protocol: str = "paper"):
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
        self.perturber = perturber
        self.name = perturber.name
        self.token_aligned = perturber.token_aligned
        self.p = resolve_level(level)
        self.phi = self.p if phi is None else resolve_level(phi, "phi")
        self.protocol = protocol
        self._whole_words = perturber.whole_words
        # the paper's protocol on a perturber that changes only the drawn words themselves:
        # `perturb` takes the short way
        self._in_parts = protocol == "paper" and perturber.scope in ("word", "drawn")
        self._word_local = perturber.scope == "word"
        self._perturb_word = (perturber.perturb_word if protocol == "paper"
                              else perturber.reference_word)
        # a perturber that never draws changes a spelling the same way every time: once each
        self._outcomes = None if getattr(perturber, "draws", True) else PerWord(self._outcome)
        # a perturber that draws one entry of a row per word: each spelling's row, whole words
        uses_rows = perturber.row is not None and (
            protocol == "paper" or type(perturber).reference_word is Perturber.reference_word)
        self._rows = PerWord(self._whole_row) if self._outcomes is None and uses_rows else None
        # a perturber that flips a coin per slot and draws each picked slot's entry: each
        # spelling's slots, whole words (the original code's keyboard-typo changed one letter)
        uses_slots = perturber.slots is not None and protocol == "paper"
        self._plans = (PerWord(self._whole_slots)
                       if self._outcomes is None and self._rows is None and uses_slots else None)

    def __repr__(self) -> str:
        return (f"ZeroePerturbation({self.name!r}, p={self.p}, phi={self.phi}, "
                f"protocol={self.protocol!r})")

    @property
    def prepares(self) -> bool:
        return self.perturber.prepares

    def prepare(self, texts: Iterable[str]) -> int:
        if not self.prepares:
            return 0
        return self.perturber.prepare({self._split(w)[1] for text in texts
                                       for w in tokenize.words(text)})

    def perturb(self, text: str, rng: random.Random) -> str:
        """``perturb_counted(text, rng)[0]``; under the paper's protocol for a perturber of
        scope "word" or "drawn", with the same draws, the short way: the split is kept as one
        list (word i at ``2i + 1``, the gap after it at ``2i + 2``: `tokenize.parts`), which
        serves as both the words and the gaps of ``attack_drawn``, so that there is nothing to
        take apart and joining it back is one call (splitting and joining were most of a
        rule-based run). It is all in this one method, and a word-local perturber's visits are
        called without ``attack_drawn``'s dispatch: a Python call per line is a few per cent of
        a run of 14-word lines."""
        if not self._in_parts:
            return self.perturb_counted(text, rng)[0]
        parts = _parts(text if isinstance(text, str) else check_text(text))  # (a call less)
        n, p = len(parts) >> 1, self.p
        target = ceil(p * n - 1e-9)
        if target == 0:
            return text
        rand = rng.random
        drawn = [k for k in range(1, 2 * n, 2) if rand() < p]  # the coins of perturb_words
        shuffle(drawn, rng)
        if self._word_local:
            changed = self._attack_words(parts, drawn, target, rng)
        else:
            changed = self.perturber.attack_drawn(parts, parts, drawn, target, self.phi, rng)
        return "".join(parts) if changed else text

    def perturb_counted(self, text: str, rng: random.Random) -> tuple[str, int, int]:
        """``(perturbed text, words perturbed, words in the sample)``."""
        check_text(text)
        words, gaps = tokenize.split(text)
        n = len(words)
        if self.protocol == "paper":
            changed = self.perturb_words(words, gaps, rng)
        else:
            changed = reference.perturb_words(self, text, words, gaps, rng)
        return (tokenize.join(words, gaps), changed, n) if changed else (text, 0, n)

    def perturb_words(self, words: list[str], gaps: list[str], rng: random.Random) -> int:
        """The paper's protocol on a split text (`tokenize.split`), in place; returns how many
        words changed. The search's random baseline calls it on its own words, so their
        positions stay those of the original."""
        if self.protocol != "paper":
            raise ValueError("perturb_words runs the paper protocol; the reference protocol "
                             "counts over the text (perturb_counted)")
        n = len(words)
        target = ceil(self.p * n - 1e-9)
        if target == 0:
            return 0
        # Flipping every coin first and visiting the heads in random order is the same
        # distribution as drawing indices and flipping on the way, with half the shuffling.
        rand = rng.random
        p = self.p
        drawn = [i for i in range(n) if rand() < p]
        shuffle(drawn, rng)
        return self.attack_drawn(words, gaps, drawn, target, rng)

    def attack_drawn(self, words, gaps, drawn, target, rng) -> int:
        """Attack the drawn words in order until ``target`` changed; return how many did (the
        visits both protocols share, by the perturber's declared ``scope``).

        Words that cannot change come back unchanged and are not counted, so no separate check.
        """
        phi, perturber, changed = self.phi, self.perturber, 0
        if perturber.scope == "drawn":  # a perturber with visits of its own (phonetic)
            return perturber.attack_drawn(words, gaps, drawn, target, phi, rng)
        if perturber.scope == "word":  # word-local: the fast path
            return self._attack_words(words, drawn, target, rng)
        done = bytearray(len(words))  # context perturbers (segment) change several words
        for k in drawn:
            if done[k]:
                continue
            for i in perturber.attack_at(words, gaps, k, phi, rng, done):
                if not done[i]:
                    done[i] = 1
                    changed += 1
            if changed >= target:
                break
        return changed

    def _attack_words(self, words: list[str], drawn, target: int, rng: random.Random) -> int:
        """The visits of a word-local perturber: ``words[k]`` for k in ``drawn`` (a list of
        words, or `tokenize.parts` with odd ``drawn``), changed in place until ``target`` did.

        A perturber that never draws has each spelling's outcome looked up (``_outcomes``), one
        that draws a row entry has each spelling's row looked up (``_rows``), one that draws
        per slot each spelling's slots (``_plans``, its draws made here); the others'
        ``perturb_word`` is called straight, words with apostrophes through ``_visit`` (unless
        the perturber takes whole words). Visits are most of a run, and a Python call per visit
        is a good part of one."""
        changed = 0
        if self._outcomes is not None:
            outcome = self._outcomes.__getitem__
            for k in drawn:
                word = words[k]
                new = outcome(word)
                if new != word:
                    words[k] = new
                    changed += 1
                    if changed >= target:
                        break
            return changed
        if self._rows is not None:
            row_of, rand = self._rows.__getitem__, rng.random
            for k in drawn:
                word = words[k]
                row = row_of(word)
                if row:  # an empty row: the word stays, and nothing is drawn
                    new = row[trunc(rand() * len(row))]  # = int(), without its type call
                    if new != word:
                        words[k] = new
                        changed += 1
                        if changed >= target:
                            break
            return changed
        if self._plans is not None:  # `Perturber.slots`' rule, inline
            plan_of, rand, phi = self._plans.__getitem__, rng.random, self.phi
            for k in drawn:
                word = words[k]
                units, slots = plan_of(word)
                if not slots:  # the word stays, and nothing is drawn
                    continue
                picks = []
                for slot in slots:  # a loop: a comprehension is a call on Python 3.11
                    if rand() < phi:
                        picks.append(slot)
                if not picks:
                    picks = [slots[j] for j in at_least_one(len(slots), phi, rng)]
                units = [*units]
                for i, (options, count) in picks:
                    units[i] = options[trunc(rand() * count)]
                new = "".join(units)
                if new != word:
                    words[k] = new
                    changed += 1
                    if changed >= target:
                        break
            return changed
        perturb_word, phi, stems = self._perturb_word, self.phi, not self._whole_words
        for k in drawn:
            word = words[k]
            if stems and ("'" in word or "’" in word):
                new = self._visit(word, rng)
            else:
                new = perturb_word(word, phi, rng)
            if new != word:
                words[k] = new
                changed += 1
                if changed >= target:
                    break
        return changed

    def _split(self, word: str) -> tuple[str, str, str]:
        """``(head, stem, tail)``: what a visit changes of ``word`` and the apostrophes and
        clitics that stay around it (`tokenize.stem`), or all of it for a perturber that takes
        whole words."""
        if self._whole_words or ("'" not in word and "’" not in word):
            return "", word, ""
        return tokenize.stem(word)

    def _visit(self, word: str, rng: random.Random | None) -> str:
        """One visit to ``word``: its stem changes, apostrophes and clitics stay (`_split`)."""
        head, stem, tail = self._split(word)
        if head or tail:
            return head + self._perturb_word(stem, self.phi, rng) + tail if stem else word
        return self._perturb_word(word, self.phi, rng)

    def _whole_row(self, word: str) -> tuple[str, ...]:
        """``perturber.row`` of ``word``'s stem with its apostrophes and clitics around each
        entry: what a visit to ``word`` picks from (`_visit`, for a perturber with ``row``)."""
        head, stem, tail = self._split(word)
        if not stem:
            return ()
        found = self.perturber.row(stem)
        return tuple(head + entry + tail for entry in found) if head or tail else tuple(found)

    def _whole_slots(self, word: str):
        """``perturber.slots`` of ``word``'s stem, with its apostrophes and clitics as units
        that stay around it: what a visit to ``word`` draws from (`_visit`, for a perturber
        with ``slots``)."""
        head, stem, tail = self._split(word)
        if not head and not tail:
            return self.perturber.slots(word)
        if not stem:
            return (word,), ()
        units, slots = self.perturber.slots(stem)
        return (head, *units, tail), tuple([(i + 1, entry) for i, entry in slots])

    def _outcome(self, word: str) -> str:
        """What a visit makes of ``word`` when the perturber never draws (``draws = False``)."""
        return self._visit(word, None)


class _Composite(Perturbation):
    """Perturbations that hand each sample to their members (chains and mixes)."""

    attacks: list[Perturbation]

    @property
    def token_aligned(self) -> bool:
        return all(a.token_aligned for a in self.attacks)

    @property
    def prepares(self) -> bool:
        return any(a.prepares for a in self.attacks)

    def prepare(self, texts: Iterable[str]) -> int:
        texts = list(texts)
        return sum(a.prepare(texts) for a in self.attacks if a.prepares)


class Chain(_Composite):
    """Attackers applied one after the other, each with its own level (``intrude+visual``)."""

    def __init__(self, attacks: Sequence[Perturbation]):
        if not attacks:
            raise ValueError("a chain needs at least one perturbation")
        self.attacks = list(attacks)
        self.name = "+".join(a.name for a in self.attacks)

    def perturb(self, text, rng):
        for attack in self.attacks:
            text = attack.perturb(text, rng)
        return text


class Mix(_Composite):
    """Each sample attacked by one attacker drawn uniformly (the BERT-Defense "rand" sets)."""

    def __init__(self, attacks: Sequence[Perturbation]):
        if not attacks:
            raise ValueError("a random mix needs at least one perturbation")
        self.attacks = list(attacks)
        self.name = "|".join(a.name for a in self.attacks)

    def perturb(self, text, rng):
        return self.attacks[rng.randrange(len(self.attacks))].perturb(text, rng)
