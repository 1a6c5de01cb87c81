"""Certificates for encoded victims (``zeroe certify``): a prediction is certified when no choice
of perturbed words, up to ρ_max of them, out of an enumerable attack surface can change it.

The surface is `surface.SURFACE` (one change per word, every instance enumerated). The victim
sees the encoding, word by word (`encoding.RobustEncoder.token`: each word as `encode` reads
it; an NLI pair's hypothesis words read against its premise, which is not attacked): a word is
*stable* when all its perturbations encode as it does. An example whose words are all stable
is certified without a query (the victim's input cannot change). For a victim whose logit is
its intercept plus word weights (``tc-monotone``) the worst choice of unstable words is bounded
without a query (`_bounded`). Otherwise every combination of at most ⌊ρ_max·L⌋ unstable words,
each taking each of its other encodings, is sent to the victim when there are at most
``max_queries`` of them, and the example is certified when none changes the label. Beyond
that a greedy search over the same choices (`_refute`, the victim's scores leading it) looks
for one that does. A choice that changes the label is checked through the whole defended
victim; then the example is refuted and the perturbed text kept, so certified accuracy lies
between the certified-and-right share and that plus the undecided right ones. What remains,
and an example whose words cannot be read one by one (the encoding joins them, a symbol links
them, or a form reads otherwise in its sentence) unless the monotone bound takes the whole
sentences its forms read as, is undecided.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, product

from ..shield.intrude import MAX_PIECES
from .encoding import PIECES, symbol_gap
from .surface import SURFACE, Surface
from .victim import DefendedVictim

MAX_QUERIES = 256
SEARCH = 4 * MAX_PIECES  # the farthest a window's edges are looked for before the text is read


@dataclass
class Certificate:
    """One example's certificate: ``certified`` (None: too many combinations to check, and the
    greedy search found no change), ``correct`` (the clean prediction), the unstable words, the
    families that moved them, the victim queries spent and, when refuted, a ``counterexample``
    (the text with the perturbed forms that change the label)."""

    certified: bool | None
    correct: bool
    words: int
    unstable: list[str] = field(default_factory=list)
    families: dict[str, int] = field(default_factory=dict)
    queries: int = 0
    counterexample: str | None = None


def _label(task, output) -> str:
    return str(int(output >= 0.5)) if task == "tc" else str(output)


def certify_text(victim: DefendedVictim, example, gold, surface: Surface,
                 rho: float = 0.3, max_queries: int = MAX_QUERIES,
                 memo: dict | None = None) -> Certificate:
    """The certificate of one example: a text (``tc``, ``generic``) or an NLI pair, whose
    hypothesis is the attacked text, read against its premise as the victim reads it
    (`encoding.RobustEncoder.encode`'s anchors); ``memo`` keeps each word's other encodings
    across the examples of one run. An example whose encoding is not its words' encodings one
    after the other (words the encoding joins: *st ill*, *s.t.i.l.l*), with words a symbol
    links, or with a form that reads otherwise in its sentence than alone (`_in_context`) is
    not enumerated: its words cannot be read one by one. Only ``tc-monotone``'s bound certifies
    it, from the whole sentences the forms read as (`_in_place`)."""
    from ..shield.core import split
    from ..tokenize import join

    encoder = victim.encoder
    if encoder is None:
        raise ValueError("certificates need a defense with a robust encoding (--parts encode)")
    if victim.shield is not None:  # it restores a word from its neighbours: no word is alone
        raise ValueError("certificates read the encoding word by word, and a shield in front "
                         "reads each word in its sentence: certify a defense built without "
                         "the shield part (--parts encode[,adversarial])")
    premise, text = example if victim.kind == "pairs" else (None, example)
    anchor = premise if victim.anchored else None
    words, gaps = split(text)
    encoded = [encoder.token(w, anchor) for w in words]

    seen_premise = None if premise is None else victim.one(premise)  # once: never attacked

    def asked(hypothesis: list[str]):
        joined = _joined(hypothesis)
        return joined if premise is None else (seen_premise, joined)

    # words the encoding joins (*st ill*), and words a symbol links (*outer-space*: a perturbed
    # piece joins them into one token), cannot be read one by one: no slots to enumerate
    sentence = _Sentence(encoder, text, words, gaps, encoded, anchor)  # read as `encode` does
    whole = sentence.whole
    exact = (not any(symbol_gap(g) for g in gaps[1:-1])
             and whole == _joined(encoded))
    clean = victim.victim.predict([asked(encoded) if exact else asked([whole])])[0]
    correct = _label(victim.task, clean) == str(gold)
    # a monotone victim's bound takes whole sentences: where the words cannot be read one by
    # one, every form is read in its sentence (costly, so only where the bound can use it)
    monotone = hasattr(victim.victim, "weight")
    others: list[tuple[int, list[str]]] = []
    families: dict[str, int] = {}
    memo = {} if memo is None else memo
    context: dict[int, list[str]] = {}  # word -> whole sentences its forms read as in place
    for i, w in enumerate(words):
        if exact:  # changes the encoding joins with a neighbour (*ov a* → *ova*)
            read = _in_context(encoder, sentence, encoded, i, surface)
        elif monotone:
            read = _in_place(encoder, sentence, i, surface)
        else:
            read = []
        if read:
            context[i] = read
        key = (w, anchor)
        if key not in memo:
            memo[key] = form_encodings(encoder, surface, w, anchor)
            memo[key].pop(encoded[i], None)
        seen = memo[key]
        if seen:
            others.append((i, sorted(seen)))
            for family in sorted({f for f, _ in seen.values()}):
                families[family] = families.get(family, 0) + 1
    unstable = sorted({i for i, _ in others} | set(context))
    cert = Certificate(True, correct, len(words), [words[i] for i in unstable], families, 1)
    if exact and not unstable:
        return cert
    budget = max(1, math.floor(rho * len(words)))
    if monotone and (_bounded(victim.victim, encoded, others, budget, context) if exact
                     else _bounded(victim.victim, [whole], [], budget, context)):
        return cert
    exact = exact and not context  # a sentence read in place is no slot to enumerate
    enumerable = exact and _combinations([len(o) for _, o in others], budget) <= max_queries
    search = _enumerate if enumerable else _refute
    found = search(victim, asked, clean, encoded, others, budget, cert) if others else None
    cert.certified = found is None if enumerable else None
    if found is not None:  # checked through the whole defended victim before it counts
        cert.certified = None
        forms = {i: memo[(words[i], anchor)][e][1] for i, e in found.items()}
        attacked = join([forms.get(i, w) for i, w in enumerate(words)], gaps)
        (out,) = victim.predict([attacked if premise is None else (premise, attacked)])
        cert.queries += 1
        if _label(victim.task, out) != _label(victim.task, clean):
            cert.certified, cert.counterexample = False, attacked
    return cert


def _in_context(encoder, sentence: _Sentence, encoded: list[str], i: int,
                surface: Surface) -> list[str]:
    """The encoded sentences in which a one-change form of word ``i`` reads otherwise than it
    reads alone. The encoding joins letter pieces with one and the same character between them
    into a lexicon word (`RobustEncoder._split_word`; an intruded form's pieces first joined
    into one, as `_intruded` does): only a form that could make such a run with its neighbours
    (*of* → *ov* in *ov a*: *ova*; *typical* → *typic al* in *a typic al*: *atypical*) is read
    in its sentence; the others cannot differ."""
    words, gaps, anchor = sentence.words, sentence.gaps, sentence.anchor
    lexicon, found = encoder.shield.lexicon, []
    for form in sorted(surface.forms(words[i])):
        if _joinable(lexicon, words, gaps, i, form):
            token = encoder.token(form, anchor)
            near = sentence.near(i, form) if sentence.singles else None
            if near is None:  # the whole text, read again
                alone = encoded[:i] + [token] + encoded[i + 1:]
                read = sentence.read(i, form)
                if read != _joined(alone):
                    found.append(read)
                continue
            low, high, middle = near  # the words around it read one by one, as the text does
            if _joined(middle) != _joined(encoded[low:i] + [token] + encoded[i + 1:high]):
                found.append(_joined(encoded[:low] + middle + encoded[high:]))
    return found


def _joined(encodings: list[str]) -> str:
    """A sentence of encodings as the victim is sent it: the dropped units ("") left out."""
    return " ".join(e for e in encodings if e)


class _Sentence:
    """A text as the encoding reads it, unit by unit (`RobustEncoder.segments`), and the reading
    of the text with one word's form in its place: the whole text read again (`read`), or a
    window of words around it where that is shown to read the same (`near`)."""

    def __init__(self, encoder, text: str, words: list[str], gaps: list[str],
                 encoded: list[str], anchor: str | None):
        self.encoder, self.words, self.gaps, self.anchor = encoder, words, gaps, anchor
        joins: list[tuple[int, int, float]] = []
        self.segments = encoder.segments(text, anchor, joins)
        self.whole = _joined([e for _, _, e in self.segments])
        n = len(words)
        # the restorers' readings (``restore``) weigh the whole line (`Shield.units`: a line
        # mostly in capitals), and their cache keeps the first line's: no window then
        self.windows = not encoder.restore
        # each word its own unit, read as it reads alone: the text is its words' encodings
        self.singles = len(self.segments) == n and all(
            s == e == k and found == encoded[k] for k, (s, e, found) in enumerate(self.segments))
        self.first = [s for s, _, _ in self.segments]
        # scores of two joins this close may be ordered by rounding, which depends on the whole
        # line: no window starts right of the first such choice (`near`)
        self.tolerance = 4e-14 * (n + SEARCH) ** 2
        self.unsure = min((k for k, _, margin in joins if margin <= self.tolerance), default=n)
        crossed, self.joins_at = [False] * (n + 1), [False] * (n + 1)
        for k, last, _ in joins:
            crossed[k + 1:last + 1] = [True] * (last - k)
            self.joins_at[k] = True
        starts = set(self.first)
        # a seam: a unit starts at the word, a space before it, and no join the intruder
        # weighed spans it
        self.seam = [0 < k < n and k in starts and " " in gaps[k] and not crossed[k]
                     for k in range(n + 1)]

    def read(self, i: int, form: str) -> str:
        """The encoding of the text with ``form`` in word ``i``'s place: the whole text read."""
        from ..tokenize import join

        return self.encoder.encode(join(self.words[:i] + [form] + self.words[i + 1:], self.gaps),
                                   anchor=self.anchor)

    def encodings(self, low: int, high: int) -> list[str]:
        """The encodings of the clean text's units that start in words ``low..high-1``."""
        from bisect import bisect_left

        return [e for _, _, e in self.segments[bisect_left(self.first, low):
                                               bisect_left(self.first, high)]]

    def near(self, i: int, form: str) -> tuple[int, int, list[str]] | None:
        """``(low, high, encodings)``: the text with ``form`` in word ``i``'s place reads as the
        clean text's units that start before word ``low``, then ``encodings``, then the clean
        units from word ``high`` on; None where a window cannot show that (read the whole text).

        The encoding's choices each read a few words (`RobustEncoder._segments`: a run of words
        with symbols between them, no space, is one word; a unit reads itself; `_split_word`
        looks `PIECES` units ahead; the intruder's joins span at most `MAX_PIECES` words and
        read one more either side) but one: which joins the intruder takes is a sum of scores
        over the line, from its end (`IntrudeRestorer.merges`). Where no join spans a word (a
        seam) that sum restarts: choices left of it compare scores that differ by what lies
        between them, the same whatever lies right of it, unless two scores are within
        rounding (``margin``). So the window runs from a seam ``low`` `MAX_PIECES` + 2 words
        before the form (the clean text's choices left of it stand: no join there reads the
        form or a word a symbol links to it) to `MAX_PIECES` words past a seam ``high`` three
        words after it (the clean text's choices right of it stand, for the same reason), with
        no join starting where `_split_word` looks past either seam, a space in every gap
        between words but the form's (no run of words crosses them, and the text splits the
        same on either side of a space), and the units of the clean text and of the window
        starting at both seams. The window's joins' scores must not be within rounding of a
        tie unless it reaches the end of the text, nor the clean text's left of ``low``."""
        from ..shield.core import split
        from ..tokenize import join

        if not self.windows:
            return None
        words, gaps, n = self.words, self.gaps, len(self.words)
        low = self._first(i - MAX_PIECES - 2, -1, self._clear)
        if low is None or 0 < low and self.unsure < low:
            return None
        a = low and self._first(low - 1, -1, lambda k: " " in gaps[k])
        high = self._first(i + 3, 1, self._clear)
        b = high if high in (None, n) else self._first(high + MAX_PIECES, 1,
                                                      lambda k: " " in gaps[k])
        if a is None or b is None:
            return None
        lead = gaps[a] if a == 0 else gaps[a][gaps[a].index(" ") + 1:]
        tail = gaps[b] if b == n else gaps[b][:gaps[b].rindex(" ") + 1]
        window = join(words[a:i] + [form] + words[i + 1:b], [lead] + gaps[a + 1:b] + [tail])
        joins: list[tuple[int, int, float]] = []
        segments = self.encoder.segments(window, self.anchor, joins)
        seen, between = split(window)
        after = b - i - 1  # the words after the form: the window splits them as the text does
        pieces = len(seen) - (i - a) - after
        if pieces < 0 or seen[:i - a] != words[a:i] or seen[len(seen) - after:] != words[i + 1:b]:
            return None
        form_gaps = range(i - a, i - a + pieces + 1)  # around and between the form's pieces
        if any(" " not in g for k, g in enumerate(between[1:len(seen)], 1) if k not in form_gaps):
            return None
        start = low - a
        stop = high + pieces - 1 - a if high < n else len(seen)
        starts = {s for s, _, _ in segments} | {0, len(seen)}
        if start not in starts or stop not in starts or any(
                s < cut <= e or cut <= s < cut + PIECES
                for s, e, _ in joins for cut in (start, stop) if 0 < cut < len(seen)):
            return None
        if b < n and any(start <= s < stop and margin <= self.tolerance
                         for s, _, margin in joins):
            return None
        return low, high, [e for s, _, e in segments if start <= s < stop]

    def _clear(self, k: int) -> bool:
        """A seam where `_split_word` looks past it into no join's start."""
        return self.seam[k] and not any(self.joins_at[k:k + PIECES])

    def _first(self, start: int, step: int, where) -> int | None:
        """The first word from ``start`` on (``step`` 1) or back (-1) ``where`` holds, within
        `SEARCH` words; the text's start or end when reached first."""
        k = start
        while abs(k - start) <= SEARCH:
            if k <= 0 or k >= len(self.words):
                return max(0, min(k, len(self.words)))
            if where(k):
                return k
            k += step
        return None


def _joinable(lexicon, words: list[str], gaps: list[str], i: int, form: str) -> bool:
    """Whether ``form``, in word ``i``'s place, could make a lexicon word with the letter pieces
    around it (`_may_join`), its own pieces apart or joined into one. `_may_join` reads no
    further than `PIECES` items either side, so only those words are passed."""
    from ..shield.core import split

    pieces, inner = split(form)
    if not pieces:
        return False
    a = max(0, i - PIECES + 1)
    before, after = words[a:i], words[i + 1:i + PIECES]
    head = gaps[a:i] + [gaps[i] + inner[0]]
    tail = [inner[-1] + gaps[i + 1]] + gaps[i + 2:i + PIECES + 1]
    k = i - a
    return any(_may_join(lexicon, seq, seps, lo, hi) for seq, seps, lo, hi in (
        (before + pieces + after, head + inner[1:-1] + tail, k, k + len(pieces) - 1),
        (before + ["".join(pieces)] + after, head + tail, k, k)))


def _in_place(encoder, sentence: _Sentence, i: int, surface: Surface) -> list[str]:
    """The encoded sentences, other than the clean one, that word ``i``'s one-change forms read
    as in their sentence: for a sentence whose words the encoding does not read one by one (a
    symbol links them, or it joins them). A form that no symbol links to a neighbour and that
    joins with none (`_joinable`) reads in its place as it reads alone (what `_in_context`
    rests on), so one form of each of those encodings is read."""
    from ..shield.core import split

    words, gaps, anchor = sentence.words, sentence.gaps, sentence.anchor
    linked = symbol_gap(gaps[i]) and i > 0 or symbol_gap(gaps[i + 1]) and i + 1 < len(words)
    lexicon, found, alone = encoder.shield.lexicon, {}, set()
    for form in sorted(surface.forms(words[i])):
        if not linked and split(form)[0] and not _joinable(lexicon, words, gaps, i, form):
            token = encoder.token(form, anchor)
            if token in alone:
                continue
            alone.add(token)
        near = sentence.near(i, form)
        if near is None:
            read = sentence.read(i, form)
        else:  # the same sentence exactly when the window reads as the clean words there do
            low, high, middle = near
            if _joined(middle) == _joined(sentence.encodings(low, high)):
                continue
            read = _joined(sentence.encodings(0, low) + middle
                           + sentence.encodings(high, len(words)))
        if read != sentence.whole:
            found.setdefault(read)
    return list(found)


def _may_join(lexicon, seq: list[str], seps: list[str], lo: int, hi: int) -> bool:
    """Whether a run of two to `PIECES` items of ``seq`` that takes in one of ``lo..hi``, all
    letters, with one and the same character (no letter or digit) before each but the first
    (``seps[k]``: what stands before ``seq[k]``), makes a lexicon word."""
    for a in range(max(0, lo - PIECES + 1), hi + 1):
        if not seq[a].isalpha():
            continue
        for b in range(a + 1, min(len(seq), a + PIECES)):
            sep = seps[b]
            if not seq[b].isalpha() or len(sep) != 1 or sep.isalnum() or (
                    b > a + 1 and sep != seps[b - 1]):
                break
            if b >= lo and "".join(seq[a:b + 1]).lower() in lexicon:
                return True
    return False


def _enumerate(victim, asked, clean, encoded: list[str], others: list[tuple[int, list[str]]],
               budget: int, cert: Certificate) -> dict[int, str] | None:
    """Every choice of at most ``budget`` unstable words, each taking each of its other
    encodings, sent to the victim: the first that changes the clean label, or None."""
    choices = [dict(zip((i for i, _ in chosen), choice))
               for r in range(1, min(budget, len(others)) + 1)
               for chosen in combinations(others, r)
               for choice in product(*(o for _, o in chosen))]
    want = _label(victim.task, clean)
    for k in range(0, len(choices), 64):
        part = choices[k:k + 64]
        batch = [asked([c.get(i, e) for i, e in enumerate(encoded)]) for c in part]
        cert.queries += len(batch)
        for c, p in zip(part, victim.victim.predict(batch)):
            if _label(victim.task, p) != want:
                return c
    return None


def form_encodings(encoder, surface: Surface, word: str,
                   anchor: str | None = None) -> dict[str, tuple[str, str]]:
    """Each encoding ``word``'s one-change forms read as (``anchor``: the premise they are read
    against), with the first family, in `SURFACE` order, giving it and its first form (in
    code-point order within the family: the same in every process)."""
    order = {f: k for k, f in enumerate(SURFACE)}
    found: dict[str, tuple[str, str]] = {}
    for form, family in sorted(surface.forms(word).items(), key=lambda fm: (order[fm[1]], fm[0])):
        found.setdefault(encoder.token(form, anchor), (family, form))
    return found


def _combinations(sizes, budget: int) -> int:
    """How many choices of 1..``budget`` of the words, each taking one of its ``sizes`` other
    encodings, there are: the elementary symmetric sums, without listing the choices."""
    counts = [1] + [0] * budget
    for size in sizes:
        for r in range(budget, 0, -1):
            counts[r] += counts[r - 1] * size
    return sum(counts[1:])


def _refute(victim, asked, clean, encoded: list[str], others: list[tuple[int, list[str]]],
            budget: int, cert: Certificate) -> dict[int, str] | None:
    """A choice of at most ``budget`` unstable words and their encodings that changes the
    clean label, found greedily: each step sends every remaining word's every other encoding
    and keeps the one that lowers the clean label's probability most (a labels-only victim's
    scores are 0/1). None when the budget runs out first. Queries are added to ``cert``."""
    from ..search.goals import Classification

    goal = Classification(victim.task)
    target = goal.check_gold(_label(victim.task, clean))
    out, left, chosen = list(encoded), dict(others), {}
    for _ in range(min(budget, len(left))):
        tried = [(i, e) for i in sorted(left) for e in left[i]]
        texts = [asked(out[:i] + [e] + out[i + 1:]) for i, e in tried]
        outcomes = goal.outcomes(victim.victim, texts, target)
        cert.queries += len(texts)
        best = max(range(len(tried)), key=lambda k: (outcomes[k].met, outcomes[k].score, -k))
        i, e = tried[best]
        out[i], chosen[i] = e, e
        del left[i]
        if outcomes[best].met:
            return chosen
    return None


def _bounded(model, encoded: list[str], others: list[tuple[int, list[str]]], budget: int,
             context: dict[int, list[str]] | None = None) -> bool:
    """For a model whose logit is its intercept plus the weights of the distinct words present
    (``tc-monotone``: ``logits``, ``weight``, ``words``), whether the prediction holds for every
    choice of at most ``budget`` unstable words. A word's readings are its other encodings in
    its place and, from ``context``, the whole sentences its forms read as where the encoding
    joins them with a neighbour (every word's, when ``encoded`` is one whole sentence). Upwards,
    a reading that brings one new word adds that word's weight once however many words bring it
    (``unkword`` counts once), so those gains are pooled by word; a word whose readings bring
    several words, or take away negative weight, is one item of its largest gain. Downwards, a
    word takes away at most its own positive weights (a sentence: the positive weights of the
    words it leaves fewer copies of) and brings at most the negative weights of its readings'
    new words. The ``budget`` largest items bound the logit's move."""
    text = _joined(encoded)
    (z,) = model.logits([text])
    counts = Counter(model.words(text))
    present = set(counts)
    slots, context = dict(others), context or {}

    def weight_of(words) -> list[float]:
        return [model.weight(w) for w in set(words)]

    def readings(i: int):
        """(the words a reading takes away, the new words it brings), each reading of word i."""
        if i in slots:
            own = set(model.words(encoded[i]))
            for e in slots[i]:
                yield own, set(model.words(e)) - present
        for sentence in context.get(i, ()):
            # every word whose count falls is taken away: two readings may each drop one copy
            seen = Counter(model.words(sentence))
            yield set(counts - seen), set(seen) - present

    unstable = sorted(set(slots) | set(context))
    if z >= 0:
        downs = [max(sum(w for w in weight_of(gone) if w > 0)
                     - sum(w for w in weight_of(new) if w < 0) for gone, new in readings(i))
                 for i in unstable]
        return z - sum(sorted(downs, reverse=True)[:budget]) >= 0
    pooled: dict[str, float] = {}  # one new word's gain, whichever word brings it
    items: list[float] = []
    for i in unstable:
        largest = 0.0
        for gone, new in readings(i):
            own_down = -sum(w for w in weight_of(gone) if w < 0)
            gains = {w: g for w in new if (g := model.weight(w)) > 0}
            if len(gains) == 1 and not own_down:
                (w, g), = gains.items()
                pooled[w] = g
            else:
                largest = max(largest, sum(gains.values()) + own_down)
        if largest:
            items.append(largest)
    return z + sum(sorted(items + list(pooled.values()), reverse=True)[:budget]) < 0


def certify(victim: DefendedVictim, inputs: Sequence, gold: Sequence, surface: Surface,
            rho: float = 0.3, max_queries: int = MAX_QUERIES, progress: bool = True) -> dict:
    """Certificates of every example and the summary: clean and certified accuracy (certified
    and right, over all examples, and the most it can be: the undecided right ones added), the
    refuted and undecided shares and the families behind instability."""
    from ..progress import progress_bar

    certs, memo = [], {}
    with progress_bar(len(inputs), "certify", "ex", enabled=progress) as bar:
        for text, g in zip(inputs, gold):
            certs.append(certify_text(victim, text, g, surface, rho, max_queries, memo))
            bar.update()
    n = len(certs) or 1
    families: dict[str, int] = {}
    for c in certs:
        for f, k in c.families.items():
            families[f] = families.get(f, 0) + k
    return {"examples": len(certs), "surface": list(surface.families), "max_perturbed": rho,
            "max_queries": max_queries,
            "clean_accuracy": 100.0 * sum(c.correct for c in certs) / n,
            "certified_accuracy": 100.0 * sum(bool(c.certified) and c.correct for c in certs) / n,
            "certified": 100.0 * sum(bool(c.certified) for c in certs) / n,
            "stable_examples": 100.0 * sum(not c.unstable for c in certs) / n,
            "refuted": 100.0 * sum(c.certified is False for c in certs) / n,
            "undecided": 100.0 * sum(c.certified is None for c in certs) / n,
            "certified_accuracy_at_most": 100.0 * sum(c.certified is not False and c.correct
                                                      for c in certs) / n,
            "unstable_words_by_family": dict(sorted(families.items(), key=lambda kv: -kv[1])),
            "queries": sum(c.queries for c in certs),
            "certificates": [vars(c) for c in certs]}
