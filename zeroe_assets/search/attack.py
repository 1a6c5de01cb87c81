"""A search attack: a transformation, constraints, a goal and a search method (Morris et al.
2020), run on one example at a time under one query budget.

The budget is ``max_queries`` or ``queries_per_word`` K (Q_max = K·L for L attackable words:
the defender benchmark's rule). The victim's prediction on the original counts as one query, as
TextAttack counts it, so a budget below 1 is refused. An example whose goal is already met, or
that has no attackable word, is skipped after that one query.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from ..constraints import Constraint
from ..constraints.overlap import normalised_distance
from ..validate import check_int
from ..rng import base_seed, block_rng
from .goals import Goal
from .methods import Problem, SearchMethod, WordDraws
from .results import (EXHAUSTED, FAILED, MISCLASSIFIED, NOTHING_TO_ATTACK, SKIPPED,
                      SUCCESSFUL, AttackResult)
from .text import AttackedText
from .transformations import Transformation


class SearchAttack:
    """``run(example, victim, index)`` → ``AttackResult``; ``example`` is (victim input, gold).

    ``candidates``: at most this many candidates per word (K); ``segments``: which segments of
    an NLI pair are attacked (default the hypothesis, ``(1,)``; ``(0, 1)`` both); ``seed``: the
    example with index i draws from ``rng.block_rng(rng.base_seed(seed), i)``, or with
    ``word_draws`` each word's candidates from a stream of the seed and the word, drawn once a
    run (`methods.WordDraws`); ``aware``: the attack calls the defense in front of the victim
    freely (`goals.Session`).
    """

    def __init__(self, transformation: Transformation, constraints: Sequence[Constraint],
                 goal: Goal, method: SearchMethod, *, candidates: int = 50,
                 max_queries: int | None = None, queries_per_word: int | None = None,
                 seed: int = 0, segments: Sequence[int] | None = None, aware: bool = False,
                 word_draws: bool = False):
        if max_queries is not None and queries_per_word is not None:
            raise ValueError("give max_queries or queries_per_word, not both")
        self.max_queries = None if max_queries is None else check_int("max_queries",
                                                                      max_queries)
        self.queries_per_word = None if queries_per_word is None else check_int(
            "queries_per_word", queries_per_word)
        if method.needs_budget() and max_queries is None and queries_per_word is None:
            raise ValueError(f"the {method.name} search needs a budget (max_queries or "
                             "queries_per_word)")
        task = goal.task
        if task.token_aligned and not transformation.token_aligned:
            raise ValueError(f"{transformation.name} changes the number of tokens, which a "
                             f"token-aligned task ({task.name}) cannot take")
        method.check(task)
        self.transformation, self.constraints = transformation, list(constraints)
        self.goal, self.method = goal, method
        self.candidates = check_int("candidates", candidates)
        self.base = base_seed(seed)
        self.segments = segments
        self.aware = aware
        self.draws = WordDraws(transformation, self.candidates, self.base) if word_draws \
            else None

    def budget(self, attackable: int) -> float:
        if self.max_queries is not None:
            return self.max_queries
        if self.queries_per_word is not None:
            return self.queries_per_word * attackable
        return math.inf

    def attackable(self, text: AttackedText) -> list[int]:
        """The positions some candidate may change: every constraint allows them and the
        transformation can change the word there."""
        constraints = self.constraints
        can_change = (self.draws or self.transformation).can_change
        return [p for p in range(len(text))
                if all(c.allows(text, p) for c in constraints) and can_change(text, p)]

    def run(self, example, victim, index: int = 0) -> AttackResult:
        try:
            item, gold = example
        except (TypeError, ValueError):
            raise ValueError(f"an example is (victim input, gold), got {example!r}") from None
        text = AttackedText.from_input(self.goal.task.inputs, item, self.segments)
        rng = block_rng(self.base, index)
        # the original's one query first: an example already misclassified is skipped
        # without its words prepared and checked (a fifth of the movie-review sentences)
        session = self.goal.session(victim, gold, 1, self.aware)
        (_, start), = session.query([text])

        def result(final: AttackedText, outcome, status: str, reason: str | None = None):
            return AttackResult(
                index=index, original=text.victim_input(), adversarial=final.victim_input(),
                gold=session.gold, before=start.label, after=outcome.label, status=status,
                queries=session.queries, words=len(text), perturbed=len(final.modified),
                edit_distance=(normalised_distance(text.attacked_string(),
                                                   final.attacked_string())
                               if final is not text else 0.0),
                reason=reason)

        if start.met:
            return result(text, start, SKIPPED, MISCLASSIFIED)
        self.transformation.prepare(text)
        positions = self.attackable(text)
        if not positions:
            return result(text, start, SKIPPED, NOTHING_TO_ATTACK)
        session.budget = max(self.budget(len(positions)), 1)
        problem = Problem(text, start, session, self.transformation, self.constraints,
                          positions, self.candidates, rng, self.draws)
        final, outcome = self.method.search(problem)
        status = SUCCESSFUL if outcome.met else EXHAUSTED if session.exhausted else FAILED
        return result(final, outcome, status)

    def __repr__(self) -> str:
        budget = (f"max_queries={self.max_queries}" if self.max_queries is not None else
                  f"queries_per_word={self.queries_per_word}")
        return (f"SearchAttack({self.transformation!r}, {self.constraints!r}, "
                f"{type(self.goal).__name__}, {self.method!r}, candidates={self.candidates}, "
                f"{budget})")
