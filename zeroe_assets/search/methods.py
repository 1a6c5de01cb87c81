"""Search methods (TextAttack's fourth part), all under one query budget.

- ``Greedy``: word importance ranking, then each word in turn keeps its best candidate where
  it brings the victim closer to the goal (TextFooler's Algorithm 1, Jin et al. 2020). The
  ranking deletes each word (TextFooler) or masks it with ``[UNK]`` (TextAttack's DeepWordBug),
  or is the text's order or a random one; ``width`` > 1 keeps a beam along the ranking.
- ``Beam``: TextAttack's beam search: each step tries every word of every text in the beam
  and keeps the ``width`` best (width 1 is TextAttack's GreedySearch, Pruthi et al.'s).
- ``RandomProtocol``: the no-search baseline: random Zéroe perturbations (the paper protocol at
  level p, `protocol.ZeroePerturbation`; a set of perturbers is a random mix) queried in
  batches until one reaches the goal or the budget is spent.

A method works on a ``Problem``: one example's original text, its query session, the
attackable positions, and the constrained candidates of a position (computed once per example,
or with ``WordDraws`` once per word and run).
"""
from __future__ import annotations

import random

from ..constraints import check_all
from ..protocol import ZeroePerturbation
from ..rng import keyed_rng
from .goals import Outcome, Session
from .text import MASK, AttackedText, Edit, respellings
from .transformations import PerturberSwap, Transformation, Union

Scored = tuple[AttackedText, Outcome]


class WordDraws:
    """Each word's k candidates drawn from a stream of its own, keyed on the run's seed and the
    word (`rng.keyed_rng`): the same candidates in every sentence, at every example index and in
    every process, so a run draws a word once (remembered here) and no result depends on the
    examples attacked before. A transformation whose edits depend on more than the word
    (segment's joins, any-char's alphabet of the text) draws from a stream keyed on the whole
    text and the position, each time."""

    REMEMBERED = 1 << 16  # words kept before the memory starts afresh

    def __init__(self, transformation: Transformation, k: int, base: int):
        self.transformation, self.k, self.base = transformation, k, base
        self._forms: dict[str, tuple[str, ...]] = {}  # word → its candidates' new spellings
        self._changes: dict[str, bool] = {}  # word → whether some candidate may exist

    def can_change(self, text: AttackedText, position: int) -> bool:
        """The transformation's ``can_change``, remembered per word where the word decides."""
        if not self.transformation.word_local:
            return self.transformation.can_change(text, position)
        word = text.word(position)
        found = self._changes.get(word)
        if found is None:
            if len(self._changes) >= self.REMEMBERED:
                self._changes.clear()
            found = self._changes[word] = self.transformation.can_change(text, position)
        return found

    def edits(self, text: AttackedText, position: int) -> list[Edit]:
        """The k edits of the word at ``position`` (a word-local transformation's one new
        spelling each, rebuilt at this position)."""
        transformation, k = self.transformation, self.k
        if not transformation.word_local:
            key = f"{position}\0{text.segments!r}"
            return transformation.edits(text, position, k, keyed_rng(self.base, key))
        s, i = text.locate(position)
        return respellings(s, i, position, self.spellings(text, position))

    def spellings(self, text: AttackedText, position: int) -> tuple[str, ...]:
        """The new spellings ``edits`` puts at ``position``, without the edits (a word-local
        transformation's only): drawn once a run."""
        word = text.word(position)
        forms = self._forms.get(word)
        if forms is None:
            if len(self._forms) >= self.REMEMBERED:
                self._forms.clear()
            forms = self._forms[word] = tuple(self.transformation.spellings(
                text, position, self.k, keyed_rng(self.base, word)))
        return forms

    def __getstate__(self):
        return {**self.__dict__, "_forms": {}, "_changes": {}}


class Problem:
    """What a search method needs of one example; ``draws``: each word's candidates from its
    own stream (`WordDraws`), else from the example's ``rng`` in the order they are asked for."""

    def __init__(self, original: AttackedText, start: Outcome, session: Session,
                 transformation: Transformation, constraints: list, positions: list[int],
                 k: int, rng: random.Random, draws: WordDraws | None = None):
        self.original, self.start, self.session = original, start, session
        self.transformation, self.constraints = transformation, constraints
        self.positions, self.k, self.rng, self.draws = positions, k, rng, draws
        self.attackable = frozenset(positions)
        self._edits: dict[int, tuple] = {}
        self._key = None

    def edits(self, position: int, upto: int | None = None) -> list:
        """The first ``upto`` (default k) of the transformation's edits of the original word at
        ``position``. They are drawn once per example: first ``upto`` of them, and where more
        are wanted one draw of k whose new edits follow, so a search that stops early at a word
        never pays for the rest of its candidates (after ``prefer``, or with ``draws``, all k at
        once)."""
        want = self.k if upto is None else min(upto, self.k)
        have, complete = self._edits.get(position, ((), False))
        if len(have) < want and not complete:
            if self.draws is not None:
                have, complete = tuple(self.draws.edits(self.original, position)), True
            else:
                ask = self.k if have or self._key is not None else want
                drawn = self.transformation.edits(self.original, position, ask, self.rng)
                seen = {e.words + e.gaps for e in have}
                new = [e for e in drawn if e.words + e.gaps not in seen]
                have, complete = (*have, *new)[:self.k], ask == self.k or len(drawn) < ask
            if self._key is not None:
                have = tuple(sorted(have, key=self._key))
            self._edits[position] = have, complete
        return list(have[:want])

    def spellings(self, position: int) -> tuple[str, ...]:
        """The new spellings of the word at ``position`` that ``edits`` puts there, for a
        search that scores them before it needs edits (``draws`` of a word-local
        transformation only: `WordDraws.spellings`)."""
        return self.draws.spellings(self.original, position)

    def prefer(self, key) -> None:
        """From now on a position's edits come in the order of ``key`` (smallest first,
        stable), so that searches taking a word's first edits take the best by ``key``: those
        drawn already are sorted now, the others when a search first asks for them."""
        for position in list(self._edits):
            self.edits(position)  # the rest of the k of a word begun
        self._key = key
        for position, (have, complete) in self._edits.items():
            self._edits[position] = tuple(sorted(have, key=key)), complete

    def allowed(self, text: AttackedText, position: int) -> bool:
        """Whether every constraint lets the word at ``position`` of ``text`` change."""
        return all(c.allows(text, position) for c in self.constraints)

    def expand(self, text: AttackedText, position: int, start: int = 0,
               stop: int | None = None) -> list[AttackedText]:
        """``text`` with each of the edits ``start:stop`` at ``position`` that the constraints
        accept (``allowed`` is the caller's to ask first)."""
        return check_all(self.constraints, self.original,
                         [text.apply(e) for e in self.edits(position, stop)[start:]])

    def query(self, texts: list[AttackedText]) -> list[Scored]:
        return self.session.query(texts)

    @property
    def exhausted(self) -> bool:
        """Whether a query was refused for lack of budget (the search should stop)."""
        return self.session.exhausted


def best_of(scored: list[Scored]) -> Scored:
    return max(scored, key=lambda s: s[1].score)


class SearchMethod:
    """Base class: ``search(problem)`` returns the best (text, outcome) it found."""

    name = ""

    def check(self, task) -> None:
        """Refuse a task the method cannot search (a ValueError)."""

    def needs_budget(self) -> bool:
        return False

    def search(self, problem: Problem) -> Scored:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


RANKINGS = ("delete", "mask", "none", "random")


class Greedy(SearchMethod):
    """Greedy substitution along a word importance ranking. ``chunk``: query a word's
    candidates in victim calls of at most this many, and move on to the next word after the
    first call whose best candidate reaches the goal or improves on the beam (None: all of a
    word's candidates in one call, the best kept, as TextAttack)."""

    name = "greedy"

    def __init__(self, ranking: str = "delete", width: int = 1, chunk: int | None = None):
        if ranking not in RANKINGS:
            raise ValueError(f"ranking must be one of {', '.join(RANKINGS)}, got {ranking!r}")
        if width < 1 or (chunk is not None and chunk < 1):
            raise ValueError("width and chunk must be at least 1")
        self.ranking, self.width, self.chunk = ranking, width, chunk

    def check(self, task):
        if self.ranking == "delete" and task.inputs == "tokens":
            raise ValueError("ranking words by deleting them changes a token list's length: "
                             "use ranking='mask' for pos")

    def rank(self, problem: Problem) -> list[int]:
        """The attackable positions, most important first (one batch of queries for delete and
        mask; positions the budget left unscored go last, in order)."""
        positions = list(problem.positions)
        if self.ranking == "none":
            return positions
        if self.ranking == "random":
            problem.rng.shuffle(positions)
            return positions
        mask = MASK if self.ranking == "mask" else None
        texts = [problem.original.without(p, mask) for p in positions]
        scores = {t.key: o.score for t, o in problem.query(texts)}
        importance = [scores.get(t.key, float("-inf")) for t in texts]
        order = sorted(range(len(positions)), key=lambda i: -importance[i])
        return [positions[i] for i in order]

    def search(self, problem):
        return self.climb(problem, self.rank(problem))

    def climb(self, problem: Problem, order: list[int], beam: list[Scored] | None = None
              ) -> Scored:
        """Each position of ``order`` in turn, from ``beam`` (default: the original)."""
        beam = beam or [(problem.original, problem.start)]
        for position in order:
            texts = [t for t, _ in beam if problem.allowed(t, position)]
            if problem.exhausted:
                break
            tried, scored = 0, []
            while texts:
                stop = tried + self.chunk if self.chunk else None
                found: dict = {}
                for text in texts:
                    for c in problem.expand(text, position, tried, stop):
                        found.setdefault(c.key, c)
                now = problem.query(list(found.values())) if found else []
                scored += now
                won = [s for s in now if s[1].met]
                if won:
                    return best_of(won)
                if problem.exhausted or (now and best_of(now)[1].score > beam[-1][1].score):
                    break  # out of budget, or this word already helps: on to the next
                drawn = len(problem.edits(position, stop))
                if stop is None or drawn < stop:
                    break  # every candidate of this word tried
                tried = drawn
            # the beam's texts first: on a tie the text stays as it is (no pointless change)
            pool = sorted(beam + scored, key=lambda s: -s[1].score)
            beam = list({t.key: (t, o) for t, o in pool}.values())[:self.width]
        return beam[0]

    def __repr__(self):
        return f"Greedy(ranking={self.ranking!r}, width={self.width}, chunk={self.chunk})"


class Beam(SearchMethod):
    """TextAttack's beam search: every position of every text in the beam per step, the
    ``width`` best kept, until the goal is met or no candidate is left."""

    name = "beam"

    def __init__(self, width: int = 4):
        if width < 1:
            raise ValueError(f"beam width must be at least 1, got {width!r}")
        self.width = width

    def search(self, problem):
        beam: list[Scored] = [(problem.original, problem.start)]
        best = beam[0]
        while not problem.exhausted:
            found: dict = {}
            for text, _ in beam:
                for position in problem.positions:
                    if problem.allowed(text, position):
                        for c in problem.expand(text, position):
                            found.setdefault(c.key, c)
            sent = problem.session.queries
            scored = problem.query(list(found.values()))
            if not scored:
                break
            scored.sort(key=lambda s: -s[1].score)
            won = [s for s in scored if s[1].met]
            if won:
                return won[0]
            if scored[0][1].score > best[1].score:
                best = scored[0]
            if problem.session.queries == sent:
                break  # nothing new to try (possible without NoRepeat): the beam would cycle
            beam = scored[:self.width]
        return best

    def __repr__(self):
        return f"Beam(width={self.width})"


class RandomProtocol(SearchMethod):
    """Random Zéroe perturbations at level ``p`` (the paper protocol; each draw picks one of
    the transformation's perturbers), ``batch`` per victim call, until the goal is met or the
    budget is spent; draws the constraints reject are not sent. It stops early after
    ``patience`` batches in a row with nothing new to send."""

    name = "random"

    def __init__(self, p: float = 0.3, batch: int = 16, patience: int = 10):
        if not 0 < p <= 1:
            raise ValueError(f"p must be in (0, 1], got {p!r}")
        self.p, self.batch, self.patience = p, batch, patience

    def needs_budget(self):
        return True

    def _perturbations(self, transformation) -> list[ZeroePerturbation]:
        members = transformation.members if isinstance(transformation, Union) \
            else [transformation]
        wrong = [m.name for m in members if not isinstance(m, PerturberSwap)]
        if wrong:
            raise ValueError(f"the random Zéroe protocol needs Zéroe perturbers, not "
                             f"{', '.join(wrong)}")
        return [ZeroePerturbation(m.perturber, self.p, m.phi) for m in members]

    def draw(self, problem: Problem, perturbations) -> AttackedText | None:
        """One random perturbation of the original's attacked segments (None: no change). The
        protocol runs on all words (its target is ⌈p·n⌉ of them, as ρ_max counts) with the
        words no constraint lets change blanked out, so they stay as they are."""
        rng, text = problem.rng, problem.original
        attack = perturbations[int(rng.random() * len(perturbations))]
        attackable = problem.attackable
        for s in text.attacked:
            words, gaps = text.segments[s]
            blanked = [w if text.position(s, i) in attackable else ""
                       for i, w in enumerate(words)]
            new_words, new_gaps = list(blanked), list(gaps)
            if not attack.perturb_words(new_words, new_gaps, rng):
                continue
            changed = {i for i, (a, b) in enumerate(zip(blanked, new_words)) if a != b}
            for j, (a, b) in enumerate(zip(gaps, new_gaps)):
                if a != b:  # a join: the words on both sides changed
                    changed.update(i for i in (j - 1, j) if 0 <= i < len(words))
            text = text.apply(Edit(s, tuple((i, new_words[i] if new_words[i] != blanked[i]
                                             else words[i]) for i in sorted(changed)),
                                   tuple((j, g) for j, g in enumerate(new_gaps) if g != gaps[j]),
                                   tuple(text.position(s, i) for i in sorted(changed))))
        return None if text is problem.original else text

    def search(self, problem):
        perturbations = self._perturbations(problem.transformation)
        best: Scored = (problem.original, problem.start)
        idle = 0
        while not problem.exhausted and idle < self.patience:
            found: dict = {}
            for _ in range(self.batch):
                text = self.draw(problem, perturbations)
                if text is not None and text.key not in problem.session.cache:
                    found.setdefault(text.key, text)
            candidates = check_all(problem.constraints, problem.original, list(found.values()))
            if not candidates:
                idle += 1
                continue
            idle = 0
            scored = problem.query(candidates)
            won = [s for s in scored if s[1].met]
            if won:
                return won[0]
            if scored and best_of(scored)[1].score > best[1].score:
                best = best_of(scored)
        return best

    def __repr__(self):
        return f"RandomProtocol(p={self.p}, batch={self.batch})"
