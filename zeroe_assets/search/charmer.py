"""Charmer (Abad Rocamora et al., ICML 2024, "Revisiting Character-level Adversarial Attacks for
Language Models", §3): a greedy search one character at a time. Each step scores every slot
of the attackable words and of the gaps after them (before each character, and each
character) by the goal score of the text with a space put there, the cheap proxy of their
position selection; then tries the whole alphabet only at the ``positions`` best slots
(insertions, replacements, deletions, as ``AnyCharacter`` makes them), and keeps the best
text, for at most ``max_edits`` steps: the Levenshtein distance to the original stays ≤ k.
Every step's probes are one victim call and its candidates another.

Charmer's own code edits any character of the sentence; here the constraints choose the words
(and so the gaps after them) that may change, and the text before the first word stays. With
another transformation as its alphabet, the best slots choose the words and the
transformation's candidates of those words are tried instead.
"""
from __future__ import annotations

from ..constraints import check_all
from ..validate import check_int
from .methods import Problem, Scored, SearchMethod, best_of
from .text import AttackedText
from .transformations import AnyCharacter

PROBE = " "  # what a slot is probed with (Charmer: a space)


class Charmer(SearchMethod):
    """``positions``: the slots tried with the whole alphabet per step (Charmer's n, 20 in
    their scripts); ``max_edits``: the steps, so the Levenshtein budget k (10 there);
    ``pruned``: after success, undo the words whose edits the goal does not need (not in
    Charmer; fewer characters changed for a few more queries)."""

    name = "charmer"

    def __init__(self, positions: int = 20, max_edits: int = 10, pruned: bool = False):
        self.positions = check_int("positions", positions)
        self.max_edits = check_int("max_edits", max_edits)
        self.pruned = pruned

    def slots(self, problem: Problem, text: AttackedText) -> list[tuple[int, int]]:
        """(position, slot) of every word the constraints still let change in ``text``, and of
        the gap after it."""
        return [(p, slot) for p in problem.positions if problem.allowed(text, p)
                for slot in range(AnyCharacter.slots(text, p))]

    def top(self, problem: Problem, text: AttackedText, slots: list) -> list[tuple[int, int]]:
        """The ``positions`` slots whose space probe brings the goal closest (all of them,
        unprobed, when there are no more than that); ties keep the text's order."""
        if len(slots) <= self.positions:
            return slots
        probes = [AnyCharacter.at_slot(text, p, slot, [PROBE]) or [text] for p, slot in slots]
        scores = {t.key: o.score for t, o in problem.query([t for (t,) in probes])}
        order = sorted(range(len(slots)),
                       key=lambda i: -scores.get(probes[i][0].key, float("-inf")))
        return [slots[i] for i in order[:self.positions]]

    def candidates(self, problem: Problem, text: AttackedText, top: list) -> list[AttackedText]:
        """The alphabet at each of the ``top`` slots, or another transformation's candidates of
        the words holding them; those the constraints accept."""
        transformation = problem.transformation
        if isinstance(transformation, AnyCharacter):
            chars = transformation.characters(problem.original)
            texts = [c for p, slot in top for c in transformation.at_slot(text, p, slot, chars)]
        else:
            words = dict.fromkeys(p for p, _ in top)
            texts = [text.apply(e) for p in words
                     for e in transformation.edits(text, p, problem.k, problem.rng)]
        return check_all(problem.constraints, problem.original,
                         list({t.key: t for t in texts}.values()))

    def prune(self, problem: Problem, found: Scored) -> Scored:
        """Undo the edits of whole words that the goal does not need: each round tries every
        changed word put back as it was (one victim call) and keeps the best that still meets
        the goal, until none does."""
        while len(found[0].modified) > 1 and not problem.exhausted:
            texts = [found[0].restored(problem.original, p) for p in sorted(found[0].modified)]
            won = [s for s in problem.query(texts) if s[1].met]
            if not won:
                break
            found = best_of(won)
        return found

    def search(self, problem):
        current: Scored = (problem.original, problem.start)
        best = current
        for _ in range(self.max_edits):
            slots = self.slots(problem, current[0])
            top = self.top(problem, current[0], slots) if slots else []
            texts = self.candidates(problem, current[0], top) if top else []
            scored = problem.query(texts) if texts and not problem.exhausted else []
            if not scored:
                break
            won = [s for s in scored if s[1].met]
            if won:
                return self.prune(problem, best_of(won)) if self.pruned else best_of(won)
            current = best_of(scored)  # Charmer keeps the step's best, better or not
            if current[1].score > best[1].score:
                best = current
            if problem.exhausted:
                break
        return best

    def __repr__(self):
        return (f"Charmer(positions={self.positions}, max_edits={self.max_edits}, "
                f"pruned={self.pruned})")
