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

from .encoding import PIECES, symbol_gap
from .surface import SURFACE, Surface
from .victim import DefendedVictim

MAX_QUERIES = 256


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
        joined = " ".join(e for e in hypothesis if e)
        return joined if premise is None else (seen_premise, joined)

    # words the encoding joins (*st ill*), and words a symbol links (*outer-space*: a perturbed
    # piece joins them into one token), cannot be read one by one: no slots to enumerate
    whole = encoder.encode(text, anchor=anchor)
    exact = (not any(symbol_gap(g) for g in gaps[1:-1])
             and whole == " ".join(e for e in encoded if e))
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
            read = _in_context(encoder, words, gaps, encoded, i, surface, anchor)
        elif monotone:
            read = _in_place(encoder, words, gaps, i, surface, anchor, whole)
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


def _in_context(encoder, words: list[str], gaps: list[str], encoded: list[str], i: int,
                surface: Surface, anchor: str | None) -> list[str]:
    """The encoded sentences in which a one-change form of word ``i`` reads otherwise than it
    reads alone. The encoding joins letter pieces with one and the same character between them
    into a lexicon word (`RobustEncoder._split_word`; an intruded form's pieces first joined
    into one, as `_intruded` does): only a form that could make such a run with its neighbours
    (*of* → *ov* in *ov a*: *ova*; *typical* → *typic al* in *a typic al*: *atypical*) is read
    in its sentence; the others cannot differ."""
    lexicon, found = encoder.shield.lexicon, []
    for form in sorted(surface.forms(words[i])):
        if _joinable(lexicon, words, gaps, i, form):
            alone = encoded[:i] + [encoder.token(form, anchor)] + encoded[i + 1:]
            read = _read_with(encoder, words, gaps, i, form, anchor)
            if read != " ".join(e for e in alone if e):
                found.append(read)
    return found


def _read_with(encoder, words: list[str], gaps: list[str], i: int, form: str,
               anchor: str | None) -> str:
    """The encoding of the text with ``form`` in word ``i``'s place."""
    from ..tokenize import join

    return encoder.encode(join(words[:i] + [form] + words[i + 1:], gaps), anchor=anchor)


def _joinable(lexicon, words: list[str], gaps: list[str], i: int, form: str) -> bool:
    """Whether ``form``, in word ``i``'s place, could make a lexicon word with the letter pieces
    around it (`_may_join`), its own pieces apart or joined into one."""
    from ..shield.core import split

    pieces, inner = split(form)
    if not pieces:
        return False
    head, tail = gaps[:i] + [gaps[i] + inner[0]], [inner[-1] + gaps[i + 1]] + gaps[i + 2:]
    return any(_may_join(lexicon, seq, seps, lo, hi) for seq, seps, lo, hi in (
        (words[:i] + pieces + words[i + 1:], head + inner[1:-1] + tail, i, i + len(pieces) - 1),
        (words[:i] + ["".join(pieces)] + words[i + 1:], head + tail, i, i)))


def _in_place(encoder, words: list[str], gaps: list[str], i: int, surface: Surface,
              anchor: str | None, whole: str) -> list[str]:
    """The encoded sentences, other than ``whole`` (the clean one), that word ``i``'s one-change
    forms read as in their sentence: for a sentence whose words the encoding does not read one
    by one (a symbol links them, or it joins them). A form that no symbol links to a neighbour
    and that joins with none (`_joinable`) reads in its place as it reads alone (what
    `_in_context` rests on), so one form of each of those encodings is read."""
    from ..shield.core import split

    linked = symbol_gap(gaps[i]) and i > 0 or symbol_gap(gaps[i + 1]) and i + 1 < len(words)
    lexicon, found, alone = encoder.shield.lexicon, {}, set()
    for form in sorted(surface.forms(words[i])):
        if not linked and split(form)[0] and not _joinable(lexicon, words, gaps, i, form):
            token = encoder.token(form, anchor)
            if token in alone:
                continue
            alone.add(token)
        read = _read_with(encoder, words, gaps, i, form, anchor)
        if read != whole:
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
    text = " ".join(e for e in encoded if e)
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
