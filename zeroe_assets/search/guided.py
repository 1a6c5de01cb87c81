"""A query-efficient search for binary victims (``tc``, or ``generic`` with two labels): a cheap
surrogate ranks every word's candidates without asking the victim, the victim is asked only
about whole plans.

- ``NgramSurrogate``: a linear model over lower-cased character 2-4-grams inside words and
  word unigrams (scikit-learn's ``char_wb`` and word analyzers), read off a TF-IDF + logistic
  regression model the attacker trained itself (``tc-tfidf``, or ``generic-tfidf`` on two
  labels; a transfer prior: the victim is never opened). Scoring a changed word costs a few
  dictionary look-ups, so thousands of candidates cost less than one victim call.
- ``Guided``: the surrogate's best candidate per word, the words by predicted gain; one query
  puts the fewest words the surrogate thinks flip the label all at once, the victim's answer
  rescales the surrogate, the next query adds words or swaps in a word's next-best candidate,
  and where the surrogate stays wrong TextFooler's greedy search asks the victim, candidates
  in the surrogate's order.

Nothing is learned across examples, so an example's result depends on its index, the seed and
the surrogate, fixed before the first example (identical for any ``-j``).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from itertools import chain

from ..constraints import check_all
from .methods import Greedy, Problem, Scored, SearchMethod
from .text import AttackedText, Edit, respellings

WORD = re.compile(r"(?u)\b\w\w+\b")  # scikit-learn's default token pattern


def char_ngrams(token: str) -> list[str]:
    """scikit-learn's ``char_wb`` 2-4-grams of one whitespace token (lower-cased, padded)."""
    padded = f" {token.lower()} "
    return [padded[cut] for cut in _CUTS.get(len(padded)) or _cuts(len(padded))]


_CUTS: dict[int, tuple[slice, ...]] = {}  # padded token length → its n-grams' slices


def _cuts(length: int) -> tuple[slice, ...]:
    """The slices that cut a padded token of ``length`` characters into its ``char_wb``
    2-4-grams, in scikit-learn's order (a token too short for n ends the list with itself):
    computed once per length, so the surrogate's hot loop (`NgramSurrogate._sum`) does no
    index arithmetic (a fifth faster; the same n-grams in the same order, so the same floats)."""
    out = []
    for n in (2, 3, 4):
        if length <= n:
            out.append(slice(None))
            break
        out.extend(slice(i, i + n) for i in range(length - n + 1))
    _CUTS[length] = cuts = tuple(out)
    return cuts


class _Terms(dict):
    """(feature, count) → (idf · (1 + ln count))², the term of a TF-IDF vector's squared norm
    (sublinear tf, as the models are trained), computed on first use: the same float as
    computed afresh."""

    def __init__(self, idf: dict[str, float]):
        super().__init__()
        self.idf = idf

    def __missing__(self, key: tuple[str, int]) -> float:
        g, c = key
        found = self[key] = (self.idf[g] * (1 + math.log(c))) ** 2
        return found


class NgramSurrogate:
    """logit ≈ Σ (coefficient · idf) of a text's character n-grams / their TF-IDF norm + the
    same for its words. ``chars`` and ``words`` map a feature to its coefficient · idf,
    ``idf`` a feature (``w:`` before words) to its idf; ``labels``: the model's two labels,
    the logit toward the second (``tc``: 0 and 1; a ``generic`` model's class names)."""

    def __init__(self, chars: dict[str, float], words: dict[str, float],
                 idf: dict[str, float], labels: tuple = (0, 1)):
        self.chars, self.words, self.idf = chars, words, idf
        self.labels = tuple(labels)
        self._sums: dict[str, tuple[float, float]] = {}  # span → sums (``sums``)
        self._known: dict[str, tuple[str, ...]] = {}  # token → its n-grams with an idf (norms)
        self._terms = _Terms(idf)  # (feature, count) → its squared TF-IDF term (norms)

    @classmethod
    def from_model(cls, model) -> "NgramSurrogate":
        """From a trained ``tc-tfidf`` or two-label ``generic-tfidf`` victim
        (`victims.sklearn.TextScorer`, `TextClassifier`): the attacker's own model, trained on
        data it holds."""
        if not (hasattr(model, "features") and hasattr(model, "model")):
            raise ValueError(f"a surrogate is a tc-tfidf or generic-tfidf model, not "
                             f"{type(model).__name__}")
        if model.model.coef_.shape[0] != 1:
            raise ValueError("a surrogate is a model of two labels; this one has "
                             f"{len(model.model.classes_)} (or is multi-label)")
        features = dict(model.features.transformer_list)
        coef = model.model.coef_[0]
        weights, idf, offset = {}, {}, 0
        for part, prefix in (("word", "w:"), ("char", "")):
            vectorizer = features[part]
            weights[part] = {g: float(coef[offset + j] * vectorizer.idf_[j])
                             for g, j in vectorizer.vocabulary_.items()}
            idf.update((prefix + g, float(vectorizer.idf_[j]))
                       for g, j in vectorizer.vocabulary_.items())
            offset += len(vectorizer.idf_)
        labels = (0, 1) if model.task == "tc" else tuple(str(c) for c in model.model.classes_)
        return cls(weights["char"], weights["word"], idf, labels)

    @classmethod
    def load(cls, path) -> "NgramSurrogate":
        """From a ``tc-tfidf`` or ``generic-tfidf`` model file (``zeroe bench train-victim``)."""
        from ..victims import load_sklearn

        return cls.from_model(load_sklearn(str(path)))

    def direction(self, gold, target=None) -> int:
        """+1 where the goal (``target``, else any label but ``gold``) is the surrogate's second
        label, -1 where it is its first; a ValueError where the label is not one of its two."""
        label = gold if target is None else target
        if label not in self.labels:
            raise ValueError(f"{'target' if target is not None else 'gold'} label {label!r} "
                             f"is not one of the surrogate's labels {list(self.labels)}")
        return 1 if (label == self.labels[1]) == (target is not None) else -1

    def lexicon(self, n: int = 500) -> tuple[str, ...]:
        """The ``n`` single words weighing most toward each label, the second label's first,
        strongest first: what Charmer may write (``Charmer(lexicon=...)``)."""
        words = sorted(((w, v) for w, v in self.words.items() if " " not in w),
                       key=lambda wv: -wv[1])
        return tuple(w for w, _ in words[:n] + words[::-1][:n])

    def norms(self, text: str) -> tuple[float, float]:
        """The L2 norms of ``text``'s TF-IDF vectors (characters, words): the scale of a
        change's effect on the logit (1 for a text without known features)."""
        idf, known, terms = self.idf, self._known, self._terms
        # Counter counts in C, keeping the first-seen order: the same terms summed in the same
        # order as a dictionary filled by hand; a token's known n-grams are remembered, and
        # each (feature, count)'s squared term (`_Terms`), so the sums run in C
        grams = []
        for token in text.split():
            found = known.get(token)
            if found is None:
                if len(known) >= self.REMEMBERED:
                    known.clear()
                cut = char_ngrams(token)  # cut once: the token's own sums too (`sums`)
                self.sums(token, cut)
                found = known[token] = tuple(filter(idf.__contains__, cut))
            grams.append(found)
        chars = Counter(chain.from_iterable(grams))
        words = Counter(g for g in ("w:" + w for w in WORD.findall(text.lower())) if g in idf)
        if len(terms) >= self.REMEMBERED:
            terms.clear()
        return (math.sqrt(sum(map(terms.__getitem__, chars.items()))) or 1.0,
                math.sqrt(sum(map(terms.__getitem__, words.items()))) or 1.0)

    def score(self, span: str, norms: tuple[float, float]) -> float:
        """The surrogate's logit contribution of a stretch of text."""
        c, w = self.sums(span)
        return c / norms[0] + w / norms[1]

    def scores(self, spans: list[str], norms: tuple[float, float]) -> list[float]:
        """``score`` of each span (a word's candidates at once: no call per span)."""
        n0, n1 = norms
        return [c / n0 + w / n1 for c, w in map(self.sums, spans)]

    def sums(self, span: str, grams: list[str] | None = None) -> tuple[float, float]:
        """The weights of ``span``'s character n-grams and of its words, each summed in order
        (``score`` divides them by a text's norms). A pure function of the span, remembered
        across examples (a candidate spelling recurs, the words of tweets more so): the
        numbers are those computed afresh, so no example's result depends on another.
        ``grams``: a single token's ``char_ngrams``, cut already (`norms`)."""
        memo = self._sums
        found = memo.get(span)
        if found is None:
            if len(memo) >= self.REMEMBERED:
                memo.clear()
            found = memo[span] = self._sum(span, grams)
        return found

    REMEMBERED = 1 << 18  # spans kept before the memory starts afresh

    def _sum(self, span: str, grams: list[str] | None = None) -> tuple[float, float]:
        get, c = self.chars.get, 0.0
        low = span.lower()
        if grams is not None:  # one token's, cut already: the same n-grams in the same order
            for g in grams:
                c += get(g, 0.0)
        else:
            for token in low.split():  # char_ngrams, summed in place: the hot loop
                padded = f" {token} "
                cuts = _CUTS.get(len(padded)) or _cuts(len(padded))
                for cut in cuts:
                    c += get(padded[cut], 0.0)
        words, w = self.words.get, 0.0
        if low.isalpha():  # letters only (all \w): the pattern's one match, if two or more
            return c, (w + words(low, 0.0) if len(low) > 1 else w)
        for t in WORD.findall(low):
            w += words(t, 0.0)
        return c, w

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("_sums", "_known", "_terms")}

    def __setstate__(self, state):
        self.__dict__.update(state, _sums={}, _known={}, _terms=_Terms(state["idf"]))

    def __repr__(self):
        return f"NgramSurrogate({len(self.chars)} character n-grams, {len(self.words)} words)"


def _span(text: AttackedText, edit: Edit) -> str:
    """The stretch of ``text``'s segment that ``edit`` changes: its words and the gaps
    between them (a changed gap takes the words on both sides)."""
    words, gaps = text.segments[edit.segment]
    touched = [i for i, _ in edit.words] + [j - 1 for j, _ in edit.gaps] + \
        [j for j, _ in edit.gaps]
    touched = [i for i in touched if 0 <= i < len(words)]
    lo, hi = min(touched), max(touched)
    return "".join(words[i] + (gaps[i + 1] if i < hi else "") for i in range(lo, hi + 1))


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


class Guided(SearchMethod):
    """Surrogate-ranked plans that change many words at once, rescaled by the victim's
    answers, then a greedy search on the victim where the surrogate was wrong.

    ``margin``: how far past the flip (in victim logits) a plan aims; ``pool``: candidates are
    drawn for words, those the surrogate most wants gone first, until their best predicted
    gains add up to ``pool`` times what the plan lacks, and the plan takes the best of them;
    ``patience``: plans in a row without progress before the greedy search takes over;
    ``chunk``: that search's victim calls per word (`Greedy`), None for none; ``prune``: at
    most this many queries after success to undo changes the goal does not need."""

    name = "guided"

    def __init__(self, surrogate: NgramSurrogate, margin: float = 0.5, pool: float = 1.0,
                 patience: int = 5, chunk: int | None = 5, prune: int = 0):
        if patience < 1 or prune < 0 or (chunk is not None and chunk < 1):
            raise ValueError("patience and chunk must be at least 1, prune at least 0")
        self.surrogate, self.margin, self.pool = surrogate, margin, pool
        self.patience, self.chunk, self.prune = patience, chunk, prune

    def check(self, task):
        if task.name not in ("tc", "generic"):
            raise ValueError("the guided search ranks candidates with a surrogate of a binary "
                             f"classifier: it takes task tc or generic, not {task.name}")

    def search(self, problem):
        session, original, surrogate = problem.session, problem.original, self.surrogate
        sign = surrogate.direction(session.gold, session.goal.target)
        norms = surrogate.norms(original.attacked_string())
        cache: dict[str, float] = {}

        def score(span: str) -> float:
            found = cache.get(span)
            if found is None:
                found = cache[span] = surrogate.score(span, norms)
            return found

        def gain(edit: Edit) -> float:
            """The surrogate's gain toward the goal of one edit of the original."""
            if len(edit.words) == 1 and not edit.gaps:  # one word respelt: the usual case
                i, new = edit.words[0]
                old = original.segments[edit.segment][0][i]
            else:
                new, old = _span(original.apply(edit), edit), _span(original, edit)
            return sign * (score(new) - score(old))

        # each word's candidates drawn once a run by a word-local transformation: every edit
        # respells its word alone (`WordDraws`), so its new spellings are what is scored
        respelt = problem.draws is not None and problem.draws.transformation.word_local

        def ranked(position: int) -> list[tuple[float, Edit]]:
            """(gain, edit) of each edit of the word at ``position`` with a positive gain, best
            first, ties in the drawn order. Respellings (the usual case) are scored at once,
            against one look-up of the word's own score, else each through ``gain``; with word
            draws only the edits kept are made (a greedy search later makes them all:
            `Problem.edits`)."""
            s, i = original.locate(position)
            if respelt:
                drawn = new = problem.spellings(position)
            else:
                drawn, new = problem.edits(position), None
                if all(len(e.words) == 1 and not e.gaps and e.words[0][0] == i and e.segment == s
                       for e in drawn):
                    new = [e.words[0][1] for e in drawn]
            if new is None:
                gains = [gain(e) for e in drawn]
            else:
                old = score(original.word(position))
                gains = [sign * (x - old) for x in surrogate.scores(new, norms)]
            # a reversed sort is stable too
            kept = [j for j in sorted(range(len(gains)), key=gains.__getitem__, reverse=True)
                    if gains[j] > 0]
            chosen = [drawn[j] for j in kept]
            return list(zip([gains[j] for j in kept],
                            respellings(s, i, position, chosen) if respelt else chosen))

        # the words the surrogate most wants gone first, scored at once and remembered for
        # `ranked` (ties in text order: the positions ascend)
        words = [original.word(p) for p in problem.positions]
        own = surrogate.scores(words, norms)
        cache.update(zip(words, own))
        order = [p for _, p in sorted(zip([sign * x for x in own], problem.positions))]
        queue = list(order)
        options: dict[int, list[tuple[float, Edit]]] = {}  # position → (gain, edit), best first

        def draw(upto: float) -> None:
            have = sum(o[0][0] for o in options.values() if o)
            while queue and have < upto:
                p = queue.pop(0)
                options[p] = ranked(p)
                have += options[p][0][0] if options[p] else 0.0

        best: Scored = (original, problem.start)
        start = _logit(problem.start.score)
        scale = 1.0  # victim logits per surrogate logit, from the victim's answers
        chosen: dict[int, int] = {}  # the best plan so far: position → rank in options
        tried: set = set()
        idle = 0
        while not problem.exhausted and idle < self.patience:
            want = (-_logit(best[1].score) + self.margin) / scale
            draw(self.pool * want + sum(options[p][r][0] for p, r in chosen.items()))
            plan, added = dict(chosen), 0.0
            text = self.build(problem, plan, options)
            for p in sorted((p for p in options if p not in chosen and options[p]),
                            key=lambda p: -options[p][0][0]):
                if added >= want:
                    break
                if check_all(problem.constraints, original, [trial := text.apply(
                        options[p][0][1])]):
                    text, plan[p] = trial, 0
                    added += options[p][0][0]
            if plan == chosen:  # no word left to add: a changed word tries its next candidate
                plan = self.swap(chosen, options, tried)
                if plan is None:
                    break
                text = self.build(problem, plan, options)
            tried.add(frozenset(plan.items()))
            if text is None:
                continue
            scored = problem.query([text])
            if not scored:
                break
            (text, outcome), = scored
            if outcome.met:
                return self.pruned(problem, plan, options, (text, outcome))
            predicted = sum(options[p][r][0] for p, r in plan.items())
            observed = _logit(outcome.score) - start
            if observed > 0 and predicted > 0:
                scale = min(max(observed / predicted, 0.05), 20.0)
            idle += 1
            if outcome.score > best[1].score or not chosen:  # the first plan stands anyway
                chosen, idle = plan, 0
                best = max(best, (text, outcome), key=lambda s: s[1].score)
        if problem.exhausted or self.chunk is None:
            return best
        # where the surrogate was wrong, the victim decides: greedy from the best plan (a
        # changed word may take another candidate), then from the original; the words those
        # the surrogate most wants gone first, each word's candidates best-predicted first
        problem.prefer(lambda e: -gain(e))
        greedy = Greedy(chunk=self.chunk)
        found = greedy.climb(problem, order, [best])
        if not found[1].met and not problem.exhausted:
            again = greedy.climb(problem, order)
            found = max(found, again, key=lambda s: s[1].score)
        return found

    @staticmethod
    def build(problem: Problem, plan: dict[int, int], options) -> AttackedText | None:
        """The original with the planned candidates, if the constraints accept it."""
        text = problem.original
        for p, r in plan.items():
            text = text.apply(options[p][r][1])
        found = check_all(problem.constraints, problem.original, [text])
        return found[0] if found else None

    @staticmethod
    def swap(chosen: dict[int, int], options, tried: set) -> dict[int, int] | None:
        """``chosen`` with one word's next candidate not tried yet, the word with the weakest
        predicted gain first (None: none left)."""
        for p in sorted(chosen, key=lambda p: options[p][chosen[p]][0]):
            for r in range(chosen[p] + 1, len(options[p])):
                plan = {**chosen, p: r}
                if frozenset(plan.items()) not in tried:
                    return plan
        return None

    def pruned(self, problem: Problem, plan: dict[int, int], options, won: Scored) -> Scored:
        """``won`` with the changes the goal does not need undone, weakest predicted gain
        first, one query each, at most ``prune`` queries."""
        plan = dict(plan)
        for p in sorted(plan, key=lambda p: options[p][plan[p]][0])[:self.prune]:
            if len(plan) == 1 or problem.exhausted:
                break
            text = self.build(problem, {q: r for q, r in plan.items() if q != p}, options)
            scored = problem.query([text]) if text is not None else []
            if scored and scored[0][1].met:
                won = scored[0]
                del plan[p]
        return won

    def __repr__(self):
        return (f"Guided({self.surrogate!r}, margin={self.margin}, pool={self.pool}, "
                f"patience={self.patience}, chunk={self.chunk}, prune={self.prune})")
