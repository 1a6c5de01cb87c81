"""Charmer (Abad Rocamora et al., ICML 2024, "Revisiting Character-level Adversarial Attacks for
Language Models", §3): a greedy search one character at a time. Each step scores every slot
of the attackable words and of the gaps after them (before each character, and each
character) by the goal score of the text with a space put there, the cheap proxy of their
position selection; then tries the whole alphabet only at the ``positions`` best slots
(insertions, replacements, deletions, as ``AnyCharacter`` makes them), and keeps the best
text, for at most ``max_edits`` steps: the Levenshtein distance to the original stays ≤ k.
Every step's probes are one victim call and its candidates another.

Two departures, as options: ``width`` keeps a beam of that many texts per step instead of the
one best (each text's probes and candidates still go in the step's two calls), and ``scan``
drops the space probe: the first step tries the whole alphabet at every slot, and later steps
at every slot of the words changed already and at the ``positions`` others whose best
first-step candidate scored highest. On OLID tweets against a TF-IDF victim the scan changed
fewer characters than the probe (a space can only break the victim's n-grams, not write
them), and a beam fewer again after a scan, none after the probe
(docs/experiments/2026-12-03-search-beam.md). A third, ``lexicon``: words the attacker's own
data weighs most toward a label (`guided.NgramSurrogate.lexicon`); step k also writes such a
word over a word ``d`` ≤ ``reach`` characters away, in a text kept d steps before, so a word
whose single edits gain little alone is still reached in its d characters (``She`` → ``Shit``,
``lack`` → ``fuck`` on OLID tweets; docs/experiments/2026-12-05-search-charmer-lexicon.md).
A fourth, ``merges``: the probe of a slot that replaces a gap's whitespace character deletes
it (the two words merged) instead of putting a space there, which changes nothing, so that
such a slot can rank among the ``positions`` (against a TF-IDF victim one letter in place of
the space takes out two words' n-grams; docs/experiments/2026-12-07-search-charmer-triples.md).

Charmer's own code edits any character of the sentence; here the constraints choose the words
(and so the gaps after them) that may change, and the text before the first word stays. With
another transformation as its alphabet, the best slots choose the words and the
transformation's candidates of those words are tried instead.
"""
from __future__ import annotations

from collections.abc import Sequence

from .. import tokenize
from ..constraints import check_all
from ..validate import check_int
from .methods import Problem, Scored, SearchMethod, best_of
from .text import AttackedText, Edit
from .transformations import AnyCharacter

PROBE = " "  # what a slot is probed with (Charmer: a space)


class Charmer(SearchMethod):
    """``positions``: the slots tried with the whole alphabet per step (Charmer's n, 20 in
    their scripts); ``max_edits``: the steps, so the Levenshtein budget k (10 there);
    ``pruned``: after success, undo the words whose edits the goal does not need (not in
    Charmer; fewer characters changed for a few more queries); ``width``: the texts kept per
    step (Charmer: 1); ``scan``: slots chosen by a first step over all of them instead of the
    space probe (not in Charmer); ``lexicon``: lower-case words a step may write over a word at
    most ``reach`` characters away (not in Charmer); ``merges``: a gap's whitespace slot probed
    by deleting it (not in Charmer)."""

    name = "charmer"

    def __init__(self, positions: int = 20, max_edits: int = 10, pruned: bool = False,
                 width: int = 1, scan: bool = False, lexicon: Sequence[str] = (),
                 reach: int = 2, merges: bool = False):
        self.positions = check_int("positions", positions)
        self.max_edits = check_int("max_edits", max_edits)
        self.width = check_int("width", width)
        self.reach = check_int("reach", reach)
        self.pruned, self.scan, self.merges = pruned, scan, merges
        self.lexicon = tuple(dict.fromkeys(w.lower() for w in lexicon))

    def slots(self, problem: Problem, text: AttackedText) -> list[tuple[int, int]]:
        """(position, slot) of every word the constraints still let change in ``text``, and of
        the gap after it."""
        return [(p, slot) for p in problem.positions if problem.allowed(text, p)
                for slot in range(AnyCharacter.slots(text, p))]

    def top(self, problem: Problem, texts: list[AttackedText], slots: list[list]) -> list[list]:
        """For each of ``texts``, the ``positions`` of its ``slots`` whose space probe brings
        the goal closest (all of them, unprobed, when there are no more than that); ties keep
        the text's order. Every text's probes go in one victim call."""
        probes = [[AnyCharacter.at_slot(t, p, slot, [self.probe(t, p, slot)]) or [t]
                   for p, slot in s]
                  if len(s) > self.positions else None for t, s in zip(texts, slots)]
        sent = [probe for each in probes if each for (probe,) in each]
        scores = {t.key: o.score for t, o in problem.query(sent)} if sent else {}
        chosen = []
        for s, each in zip(slots, probes):
            if each is None:
                chosen.append(s)
                continue
            order = sorted(range(len(s)),
                           key=lambda i: -scores.get(each[i][0].key, float("-inf")))
            chosen.append([s[i] for i in order[:self.positions]])
        return chosen

    def probe(self, text: AttackedText, position: int, slot: int) -> str:
        """What a slot is probed with: a space, or with ``merges`` nothing (a deletion) where
        the slot replaces a whitespace character of the gap after the word."""
        if self.merges:
            where = slot - 2 * len(text.word(position))
            if where > 0 and where % 2 and text.gap_after(position)[where // 2].isspace():
                return AnyCharacter.DELETE
        return PROBE

    def ranked(self, text: AttackedText, slots: list, gains: dict) -> list[tuple[int, int]]:
        """``scan``'s slots after the first step: every slot of the words ``text`` changed
        already (a word's second character can make what its first one began), then the
        ``positions`` others whose best first-step candidate scored highest."""
        mine = [s for s in slots if s[0] in text.modified]
        rest = sorted((s for s in slots if s[0] not in text.modified),
                      key=lambda s: -gains.get(s, float("-inf")))
        return mine + rest[:self.positions]

    def candidates(self, problem: Problem, text: AttackedText, top: list) -> list[list]:
        """For each of the ``top`` slots, the alphabet there, or another transformation's
        candidates of the word holding it (drawn once per word); those the constraints
        accept."""
        transformation, accept = problem.transformation, problem.constraints
        if isinstance(transformation, AnyCharacter):
            chars = transformation.characters(problem.original)
            return [check_all(accept, problem.original,
                              transformation.at_slot(text, p, slot, chars)) for p, slot in top]
        words: dict = {}
        for p, _ in top:
            if p not in words:
                words[p] = check_all(accept, problem.original, [
                    text.apply(e) for e in transformation.edits(text, p, problem.k, problem.rng)])
        return [words[p] for p, _ in top]

    def near(self, problem: Problem) -> dict[int, dict[int, list[str]]]:
        """For each attackable word of the original, the lexicon's words ``d`` ≤ ``reach``
        characters from it (in its capitalisation, so ``d`` counts what is written), by ``d``;
        once per example."""
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        near: dict[int, dict[int, list[str]]] = {}
        for p in problem.positions:
            word = problem.original.word(p)
            for found, _, _ in process.extract(word.lower(), self.lexicon, limit=None,
                                               scorer=Levenshtein.distance,
                                               score_cutoff=self.reach):
                form = tokenize.match_case(word, found)
                d = Levenshtein.distance(word, form)
                if 0 < d <= self.reach:
                    near.setdefault(p, {}).setdefault(d, []).append(form)
        return near

    def jumps(self, problem: Problem, kept: list[list[AttackedText]], near: dict,
              step: int) -> list[AttackedText]:
        """Step ``step``'s lexicon candidates: in each text kept ``d`` steps before, a word
        still as in the original made into a lexicon word ``d`` characters away, so at most
        ``step`` characters in all; those the constraints accept."""
        out = []
        for d in range(1, min(self.reach, step) + 1):
            for text in kept[step - d]:
                for p, forms in near.items():
                    if d in forms and p not in text.modified and problem.allowed(text, p):
                        s, i = text.locate(p)
                        out.extend(text.apply(Edit(s, ((i, f),), (), (p,))) for f in forms[d])
        return check_all(problem.constraints, problem.original, out)

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
        beam: list[Scored] = [(problem.original, problem.start)]
        best, gains = beam[0], None
        near = self.near(problem) if self.lexicon else {}
        kept = [[problem.original]]  # the texts kept after each step, for the lexicon's jumps
        for step in range(1, self.max_edits + 1):
            texts = [t for t, _ in beam]
            slots = [self.slots(problem, t) for t in texts]
            if not self.scan:
                top = self.top(problem, texts, slots)
            elif gains is not None:
                top = [self.ranked(t, s, gains) for t, s in zip(texts, slots)]
            else:
                top = slots  # the first step of a scan: every slot, unprobed
            per = [self.candidates(problem, t, s) if s else [] for t, s in zip(texts, top)]
            found = {c.key: c for each in per for cs in each for c in cs}
            for c in self.jumps(problem, kept, near, step) if near else ():
                found.setdefault(c.key, c)
            scored = problem.query(list(found.values())) \
                if found and not problem.exhausted else []
            if not scored:
                break
            won = [s for s in scored if s[1].met]
            if won:
                return self.prune(problem, best_of(won)) if self.pruned else best_of(won)
            if self.scan and gains is None:
                score = {t.key: o.score for t, o in scored}
                gains = {slot: max((score.get(c.key, float("-inf")) for c in cs),
                                   default=float("-inf")) for slot, cs in zip(top[0], per[0])}
            # Charmer keeps the step's best, better or not; a beam its ``width`` best of
            # distinct scores (texts the victim scores alike, such as a letter and its
            # capital before a victim that lower-cases, would fill it with one text)
            ranked = sorted(scored, key=lambda s: -s[1].score)
            beam = list({o.score: (t, o) for t, o in reversed(ranked)}.values())[::-1]
            beam = beam[:self.width]
            kept.append([t for t, _ in beam])
            if beam[0][1].score > best[1].score:
                best = beam[0]
            if problem.exhausted:
                break
        return best

    def __repr__(self):
        return (f"Charmer(positions={self.positions}, max_edits={self.max_edits}, "
                f"pruned={self.pruned}, width={self.width}, scan={self.scan}" +
                (f", lexicon={len(self.lexicon)} words, reach={self.reach}" if self.lexicon
                 else "") + (", merges=True)" if self.merges else ")"))
