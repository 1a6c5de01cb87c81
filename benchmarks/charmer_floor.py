"""The fewest characters that flip a TF-IDF victim, exactly: a white-box analysis, not an attack.

For each sentence the victim gets right, every one-character edit (any character of Charmer's
alphabet, the sentence's characters and a–z, inserted or substituted anywhere, or a character
deleted) and every pair of them are tried against the victim's own weights, and the sentence
needs 1, 2 or ≥ 3 characters. That is a floor for any attack with those edits, Charmer's
included (its edit space is a subset: it leaves the text before the first word alone).

The victim (``generic-tfidf``, `zeroe_assets.victims.sklearn._tfidf`) sees only
``text.lower().split()``: character 2–4-grams per whitespace token and word 1–2-grams, each
block ``idf · (1 + ln count)`` then L2-normalised, and a logistic regression on both. An edit
changes the tokens of one span; two edits whose spans do not overlap change the n-gram counts
by the sum of their changes, so the pair's logit follows from the two edits' count changes in
closed form (a correction where both change the same n-gram, computed for all pairs at once
with sparse products). Word bigrams link neighbouring spans: their word block is computed
directly when no word lies between them. Pairs inside one token, or across a space one of them
deletes or replaces, are enumerated as strings. ``--check`` compares both against the
victim's ``decision_function`` on random pairs (labels equal, logits within 1e-9), and, on
short sentences, the whole pair search against every two-edit string.

``--triples RECORDS`` asks, for the sentences an attack's records show it changing
``--at-least`` characters, whether three edits flip them: a search (`search3`), each text
scored exactly and the best checked against the victim, not a proof (a text it does not find
may exist): three of the best single edits in separate spans, a touching pair and a single
edit, or a touching pair and one more edit in its window.

    python benchmarks/search_vs_textattack.py --dataset mr --victim-half odd --skip-textattack \
        --recipes charmer --max-queries 100000 --spread-seeds ''   # writes --work's mr/
    python benchmarks/charmer_floor.py --split test --limit 200
    python benchmarks/charmer_floor.py --split test --limit 200 \
        --triples WORK/mr/records/ours-charmer.jsonl --at-least 4
"""
from __future__ import annotations

import argparse
import json
import math
import random
import re
import string
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sentiment_data import split_file  # noqa: E402

from zeroe_assets.search.guided import WORD, char_ngrams  # noqa: E402
from zeroe_assets.tasks import get_task  # noqa: E402

SPACE = re.compile(r"\S+")


class Weights:
    """The victim's two TF-IDF blocks and its logistic regression, read off the model."""

    def __init__(self, victim):
        word, char = (v for _, v in victim.features.transformer_list)
        coef = victim.model.coef_[0]
        self.wvocab, self.cvocab = word.vocabulary_, char.vocabulary_
        nw = len(self.wvocab)
        self.widf, self.cidf = word.idf_, char.idf_
        self.wcoef, self.ccoef = coef[:nw], coef[nw:]
        self.bias = float(victim.model.intercept_[0])
        self.positive = str(victim.model.classes_[1])  # the label of a logit > 0
        self._grams: dict[str, Counter] = {}
        self._words: dict[str, tuple] = {}

    def grams(self, token: str) -> Counter:
        """The character n-grams of a lower-cased token the victim knows, by index."""
        found = self._grams.get(token)
        if found is None:
            found = self._grams[token] = Counter(
                i for i in map(self.cvocab.get, char_ngrams(token)) if i is not None)
        return found

    def words(self, token: str) -> tuple:
        """The word tokens of a lower-cased whitespace token, None for one the victim does not
        know (a bigram with it is unknown too: min_df keeps no bigram of an unknown word)."""
        found = self._words.get(token)
        if found is None:
            found = self._words[token] = tuple(
                w if w in self.wvocab else None for w in WORD.findall(token))
        return found

    def word_counts(self, seq) -> Counter:
        out = Counter(self.wvocab[w] for w in seq if w is not None)
        for x, y in zip(seq, seq[1:]):
            if x is not None and y is not None:
                i = self.wvocab.get(f"{x} {y}")
                if i is not None:
                    out[i] += 1
        return out


def _value(idf, count):
    return idf * (1.0 + math.log(count)) if count > 0 else 0.0


def block(counts: Counter, coef, idf) -> tuple[float, float]:
    """(coefficient · x, |x|²) of one block's counts before normalising."""
    num = sq = 0.0
    for g, c in counts.items():
        v = _value(idf[g], c)
        num += coef[g] * v
        sq += v * v
    return num, sq


def delta(base: Counter, change: Counter, coef, idf) -> tuple[float, float]:
    """How (numerator, squared norm) of a block move when its counts move by ``change``."""
    num = sq = 0.0
    for g, d in change.items():
        if d:
            c = base.get(g, 0)
            old, new = _value(idf[g], c), _value(idf[g], c + d)
            num += coef[g] * (new - old)
            sq += new * new - old * old
    return num, sq


def term(num, sq):
    """A block's share of the logit (a block with no known n-gram is all zeros)."""
    return np.where(sq > 1e-300, num / np.sqrt(np.maximum(sq, 1e-300)), 0.0)


class Sentence:
    """One sentence's tokens, its counts, and the effect of replacing a span of tokens."""

    def __init__(self, text: str, w: Weights):
        self.text, self.w = text, w
        self.spans = [(m.start(), m.end()) for m in SPACE.finditer(text)]
        self.toks = [text[a:b].lower() for a, b in self.spans]
        assert self.toks == text.lower().split()
        self.seq = [w.words(t) for t in self.toks]
        self.bearing = [bool(s) for s in self.seq]  # holds a word token, known or not
        self.cbase = sum((w.grams(t) for t in self.toks), Counter())
        self.wbase = w.word_counts([x for s in self.seq for x in s])
        self.nw, self.sw = block(self.wbase, w.wcoef, w.widf)
        self.nc, self.sc = block(self.cbase, w.ccoef, w.cidf)
        self.logit = w.bias + float(term(self.nw, self.sw)) + float(term(self.nc, self.sc))
        alphabet = set(string.ascii_lowercase) | set(text)
        # the victim lower-cases: a capital acts as its small letter
        self.alphabet = sorted({c.lower() if len(c.lower()) == 1 else c for c in alphabet})

    def context(self, a: int, b: int) -> tuple[int, int]:
        """The tokens a span's word bigrams reach: back to the nearest token with a word before
        it, on to the nearest one after it."""
        lo = a - 1
        while lo > 0 and not self.bearing[lo]:
            lo -= 1
        hi = b
        while hi < len(self.toks) - 1 and not self.bearing[hi]:
            hi += 1
        return max(lo, 0), min(hi + 1, len(self.toks))

    def word_change(self, a: int, b: int, new) -> Counter:
        lo, hi = self.context(a, b)
        left = [x for s in self.seq[lo:a] for x in s]
        right = [x for s in self.seq[b:hi] for x in s]
        mid = [x for t in new for x in self.w.words(t)]
        old = [x for s in self.seq[a:b] for x in s]
        out = self.w.word_counts(left + mid + right)
        out.subtract(self.w.word_counts(left + old + right))
        return Counter({k: v for k, v in out.items() if v})

    def char_change(self, a: int, b: int, new) -> Counter:
        out = Counter()
        for t in new:
            out.update(self.w.grams(t))
        for t in self.toks[a:b]:
            out.subtract(self.w.grams(t))
        return Counter({k: v for k, v in out.items() if v})

    def effect(self, a: int, b: int, new) -> tuple[float, float, float, float]:
        """(word numerator, word norm², char numerator, char norm²) changes of a span."""
        w = self.w
        return (*delta(self.wbase, self.word_change(a, b, new), w.wcoef, w.widf),
                *delta(self.cbase, self.char_change(a, b, new), w.ccoef, w.cidf))

    def logit_of(self, eff) -> float:
        aw, sw, ac, sc = eff
        return self.w.bias + float(term(self.nw + aw, self.sw + sw)) + \
            float(term(self.nc + ac, self.sc + sc))

    # --- single edits -------------------------------------------------------------------
    def ops(self):
        """Every one-character edit of the text: (position, kind, character)."""
        s, alpha = self.text, self.alphabet
        for p in range(len(s) + 1):
            for c in alpha:
                yield p, "i", c
            if p < len(s):
                yield p, "d", ""
                for c in alpha:
                    if c != s[p].lower():
                        yield p, "s", c

    def span_of(self, p: int, kind: str, c: str):
        """The tokens an edit touches, as (a, b, new tokens) replacing ``toks[a:b]``."""
        s = self.text
        touched = [t for t, (x, y) in enumerate(self.spans)
                   if (x <= p <= y if kind == "i" else
                       x <= p < y or (s[p].isspace() and (y == p or x == p + 1)))]
        if touched:
            a, b = touched[0], touched[-1] + 1
            lo, hi = self.spans[a][0], self.spans[b - 1][1]
        else:
            a = b = sum(1 for x, _ in self.spans if x < p)
            lo, hi = p, p + (kind != "i")
        region = s[lo:hi]
        q = p - lo
        new = region[:q] + c + region[q + (kind != "i"):]
        return a, b, tuple(new.lower().split())

    def singles(self) -> dict:
        """The distinct single edits: {(a, b, new tokens): the first edit (position, kind,
        character) that makes that change}, edits that leave the tokens as they are left out."""
        reps = {}
        for op in self.ops():
            key = self.span_of(*op)
            if key[2] != tuple(self.toks[key[0]:key[1]]):
                reps.setdefault(key, op)
        return reps


def apply(text: str, p: int, kind: str, c: str) -> str:
    return text[:p] + c + text[p + (kind != "i"):]


def flips(sent: Sentence, logits) -> np.ndarray:
    return (np.asarray(logits) > 0) != (sent.logit > 0)


# --- pairs of separate spans, in closed form -------------------------------------------------
def pair_corrections(changes: list[Counter], base: Counter, coef, idf):
    """For every pair of count changes, what adding both misses where they share an n-gram:
    sparse (numerator, squared norm) matrices, one product per pair of change values."""
    n = len(changes)
    types = sorted({g for ch in changes for g in ch})
    col = {g: j for j, g in enumerate(types)}
    by_value: dict[int, list] = {}
    for k, ch in enumerate(changes):
        for g, d in ch.items():
            by_value.setdefault(d, []).append((k, col[g]))
    mats = {d: sp.csr_matrix((np.ones(len(e)), ([k for k, _ in e], [j for _, j in e])),
                             shape=(n, len(types))) for d, e in by_value.items()}
    c = np.array([base.get(g, 0) for g in types], dtype=float)
    gi = np.array(types, dtype=int)
    cf, idv = coef[gi], idf[gi]

    def val(x):
        return np.where(x > 0, idv * (1.0 + np.log(np.maximum(x, 1))), 0.0)

    cn = sp.csr_matrix((n, n))
    cs = sp.csr_matrix((n, n))
    for d, md in mats.items():
        for e, me in mats.items():
            both = c + d + e
            ok = both >= 0  # negative only for spans that overlap, which never come here
            v11, v10, v01, v00 = val(both) * ok, val(c + d), val(c + e), val(c)
            kn = cf * (v11 - v10 - v01 + v00)
            ks = v11 ** 2 - v10 ** 2 - v01 ** 2 + v00 ** 2
            cn = cn + md @ sp.diags(kn) @ me.T
            cs = cs + md @ sp.diags(ks) @ me.T
    return cn.tocsr(), cs.tocsr()


class PairTable:
    """Logits of every pair of single-edit classes whose spans do not overlap, in row chunks:
    the char block in closed form, the word block per word class (span, its new word tokens),
    directly where no word lies between the two spans (their bigrams meet)."""

    def __init__(self, sent: Sentence, classes: list):
        w = self.w = sent.w
        self.sent, self.n = sent, len(classes)
        self.a = np.array([k[0] for k in classes])
        self.b = np.array([k[1] for k in classes])
        cchg = [sent.char_change(*k) for k in classes]
        self.cn, self.cs = pair_corrections(cchg, sent.cbase, w.ccoef, w.cidf)
        self.ceff = np.array([delta(sent.cbase, ch, w.ccoef, w.cidf) for ch in cchg])
        wkeys, self.wclass = {}, np.empty(self.n, dtype=int)
        for k, (x, y, new) in enumerate(classes):
            key = (x, y, tuple(v for t in new for v in w.words(t)))
            self.wclass[k] = wkeys.setdefault(key, len(wkeys))
        wlist = list(wkeys)
        wchg = [self._word_change(*k) for k in wlist]
        weff = np.array([delta(sent.wbase, ch, w.wcoef, w.widf) for ch in wchg]).reshape(-1, 2)
        wn, ws = pair_corrections(wchg, sent.wbase, w.wcoef, w.widf)
        self.wterm = term(sent.nw + weff[:, 0][:, None] + weff[:, 0][None, :] + wn.toarray(),
                          sent.sw + weff[:, 1][:, None] + weff[:, 1][None, :] + ws.toarray())
        wa = np.array([k[0] for k in wlist])
        cum = np.concatenate([[0], np.cumsum(sent.bearing)])
        self.direct = 0
        for i, (xi, yi, ti) in enumerate(wlist):
            for j in np.nonzero((wa >= yi) & (cum[wa] == cum[yi]))[0]:
                xj, yj, tj = wlist[j]
                if xi == yi == xj == yj:
                    continue
                seq = [v for s in sent.seq[:xi] for v in s] + list(ti) + \
                    [v for s in sent.seq[yi:xj] for v in s] + list(tj) + \
                    [v for s in sent.seq[yj:] for v in s]
                num, sq = block(w.word_counts(seq), w.wcoef, w.widf)
                self.wterm[i, j] = self.wterm[j, i] = float(term(num, sq))
                self.direct += 1

    def _word_change(self, a, b, words):
        """``Sentence.word_change`` from a span's new word tokens rather than its text."""
        sent = self.sent
        lo, hi = sent.context(a, b)
        left = [x for s in sent.seq[lo:a] for x in s]
        right = [x for s in sent.seq[b:hi] for x in s]
        old = [x for s in sent.seq[a:b] for x in s]
        out = self.w.word_counts(left + list(words) + right)
        out.subtract(self.w.word_counts(left + old + right))
        return Counter({k: v for k, v in out.items() if v})

    def rows(self, lo: int, hi: int):
        """(logits, separate) of rows ``lo:hi`` against every class."""
        sent, a, b = self.sent, self.a, self.b
        num = sent.nc + self.ceff[lo:hi, 0][:, None] + self.ceff[:, 0][None, :] + \
            self.cn[lo:hi].toarray()
        sq = sent.sc + self.ceff[lo:hi, 1][:, None] + self.ceff[:, 1][None, :] + \
            self.cs[lo:hi].toarray()
        logit = self.w.bias + term(num, sq) + self.wterm[self.wclass[lo:hi]][:, self.wclass]
        empty = a == b
        sep = ((b[lo:hi, None] <= a[None, :]) | (b[None, :] <= a[lo:hi, None])) & \
            ~(empty[lo:hi, None] & empty[None, :] & (a[lo:hi, None] == a[None, :]))
        return logit, sep

    def best(self, chunk: int = 400):
        """The logit of the pair closest to flipping (the furthest past), and the pair."""
        sign = 1.0 if self.sent.logit < 0 else -1.0  # toward the other label
        best, arg = -np.inf, None
        for lo in range(0, self.n, chunk):
            logit, sep = self.rows(lo, min(lo + chunk, self.n))
            score = np.where(sep, sign * logit, -np.inf)
            i, j = np.unravel_index(np.argmax(score), score.shape)
            if score[i, j] > best:
                best, arg = float(score[i, j]), (lo + int(i), int(j))
        return sign * best, arg


# --- pairs inside one token, or across a space one of them takes out -------------------------
def _edits(u: str, alphabet, lo: int = 0, hi: int | None = None):
    hi = len(u) if hi is None else hi
    for p in range(lo, hi + 1):
        for c in alphabet:
            yield u[:p] + c + u[p:]
        if p < hi:
            yield u[:p] + u[p + 1:]
            for c in alphabet:
                if c != u[p]:
                    yield u[:p] + c + u[p + 1:]


def touching_pairs(sent: Sentence):
    """Per span (a, b), the new tokens of every text two edits make inside one token, or around
    a space that one of them deletes or replaces (the tokens either side merged)."""
    alpha = sent.alphabet
    letters = [c for c in alpha if not c.isspace()]
    toks = sent.toks
    if sent.text.lower() != " ".join(toks):
        raise ValueError("touching_pairs expects single spaces between tokens")
    for t, u in enumerate(toks):
        seen = set()
        for u1 in _edits(u, alpha):
            seen.update(_edits(u1, alpha))
        yield t, t + 1, {tuple(x.split()) for x in seen}
    for t in range(len(toks) - 1):
        v = toks[t] + " " + toks[t + 1]
        g = len(toks[t])
        seen = set()
        for v1 in [v[:g] + v[g + 1:]] + [v[:g] + c + v[g + 1:] for c in letters]:
            seen.update(_edits(v1, alpha))
        yield t, t + 2, {tuple(x.split()) for x in seen}
        if t + 2 < len(toks):  # both spaces around a token taken out
            v = toks[t] + " " + toks[t + 1] + " " + toks[t + 2]
            h = g + 1 + len(toks[t + 1])
            yield t, t + 3, {(v[:g] + x + v[g + 1:h] + y + v[h + 1:],)
                             for x in [""] + letters for y in [""] + letters}


def span_logits(sent: Sentence, a: int, b: int, variants: list) -> np.ndarray:
    """The logits of the texts with ``toks[a:b]`` replaced by each of ``variants``, all at
    once: the char block from each variant's n-grams against the counts without the span, the
    word block once per distinct word tuple."""
    eff = span_effects(sent, a, b, variants)
    return sent.w.bias + term(sent.nw + eff[:, 0], sent.sw + eff[:, 1]) + \
        term(sent.nc + eff[:, 2], sent.sc + eff[:, 3])


def span_effects(sent: Sentence, a: int, b: int, variants: list) -> np.ndarray:
    """(word numerator, word norm², char numerator, char norm²) changes of the texts with
    ``toks[a:b]`` replaced by each of ``variants``, one row each."""
    w = sent.w
    old = Counter()
    for t in sent.toks[a:b]:
        old.update(w.grams(t))
    og = np.array(list(old), dtype=np.int64)
    oc = np.array([old[g] for g in og], dtype=float)
    bc = np.array([sent.cbase[g] for g in og], dtype=float)
    ov = w.cidf[og] * (1 + np.log(bc))
    rv = np.where(bc - oc > 0, w.cidf[og] * (1 + np.log(np.maximum(bc - oc, 1))), 0.0)
    removed_n = float(np.sum(w.ccoef[og] * (rv - ov)))
    removed_s = float(np.sum(rv ** 2 - ov ** 2))
    rest = dict(zip(og.tolist(), (bc - oc).tolist()))  # counts of the span's n-grams without it
    vids, gids, weff = [], [], np.empty((len(variants), 2))
    words: dict[tuple, tuple] = {}
    cv, fw = w.cvocab, WORD.findall
    for k, new in enumerate(variants):
        for t in new:
            for g in char_ngrams(t):
                i = cv.get(g)
                if i is not None:
                    vids.append(k)
                    gids.append(i)
        key = tuple(x if x in w.wvocab else None for t in new for x in fw(t))
        if key not in words:
            words[key] = delta(sent.wbase, sent.word_change(a, b, new), w.wcoef, w.widf)
        weff[k] = words[key]
    n = len(variants)
    dn, ds = np.full(n, removed_n), np.full(n, removed_s)
    if vids:
        key = np.array(vids, dtype=np.int64) * (1 << 20) + np.array(gids, dtype=np.int64)
        uniq, count = np.unique(key, return_counts=True)
        vid, gid = uniq >> 20, uniq & ((1 << 20) - 1)
        base = np.array([rest.get(g, sent.cbase.get(g, 0)) for g in gid.tolist()], dtype=float)
        idf = w.cidf[gid]
        before = np.where(base > 0, idf * (1 + np.log(np.maximum(base, 1))), 0.0)
        after = idf * (1 + np.log(base + count))
        dn += np.bincount(vid, w.ccoef[gid] * (after - before), minlength=n)
        ds += np.bincount(vid, after ** 2 - before ** 2, minlength=n)
    return np.column_stack([weff, dn, ds])


def analyse(sent: Sentence, complete: bool = False) -> dict:
    """How many characters the sentence needs (1, 2, or 3 for ≥ 3), and a witness; stops at
    the first part that flips it unless ``complete`` (then ``best``: the logit closest to
    flipping, or furthest past it, over every text one or two edits make)."""
    started = time.perf_counter()
    sign = 1.0 if sent.logit < 0 else -1.0  # toward the other label
    reps = sent.singles()
    keys = list(reps)
    logits = np.array([sent.logit_of(sent.effect(*k)) for k in keys])
    i = int(np.argmax(sign * logits))
    out = {"text": sent.text, "logit": sent.logit, "singles": len(keys),
           "best_single": float(logits[i]), "flipping_singles": int(flips(sent, logits).sum())}
    found = {"characters": 1, "witness": [reps[keys[i]]]} if out["flipping_singles"] else None
    if found is None or complete:
        table = PairTable(sent, keys)
        best, (i, j) = table.best()
        out.update(best_separate=best, word_direct=table.direct)
        if found is None and flips(sent, [best])[0]:
            found = {"characters": 2, "witness": [reps[keys[i]], reps[keys[j]]]}
    if found is None or complete:
        best, count = -np.inf, 0
        for a, b, variants in touching_pairs(sent):
            variants = list(variants)
            logits = span_logits(sent, a, b, variants)
            count += len(variants)
            k = int(np.argmax(sign * logits))
            if sign * logits[k] > best:
                best, witness = float(sign * logits[k]), [a, b, list(variants[k])]
        out.update(touching=count, best_touching=sign * best)
        if found is None and flips(sent, [sign * best])[0]:
            found = {"characters": 2, "witness_tokens": witness}
    if complete:
        out["best"] = sign * max(sign * out[k] for k in
                                 ("best_single", "best_separate", "best_touching"))
    return {**out, **(found or {"characters": 3}), "seconds": time.perf_counter() - started}


# --- three edits: a search, not a proof -------------------------------------------------------
class Units:
    """One sentence's single edits (one per distinct change of its token list) and touching
    pairs, each as (a, b, new tokens) with its exact (word numerator, word norm², char
    numerator, char norm²) change."""

    def __init__(self, sent: Sentence):
        self.keys = list(sent.singles())
        self.a = np.array([k[0] for k in self.keys])
        self.b = np.array([k[1] for k in self.keys])
        self.eff = np.array([sent.effect(*k) for k in self.keys])
        self.pair_keys, pair_eff = [], []
        for a, b, variants in touching_pairs(sent):
            variants = sorted(variants)
            pair_eff.append(span_effects(sent, a, b, variants))
            self.pair_keys.extend((a, b, v) for v in variants)
        self.pair_eff = np.concatenate(pair_eff)
        self.pa = np.array([k[0] for k in self.pair_keys])
        self.pb = np.array([k[1] for k in self.pair_keys])

    @staticmethod
    def separate(a, b, a2, b2):
        """Whether spans [a, b) and [a2, b2) (arrays broadcast) do not overlap, as
        `PairTable` has it."""
        return ((b <= a2) | (b2 <= a)) & ~((a == b) & (a2 == b2) & (a == a2))


def score_replaced(sent: Sentence, repl) -> float:
    """The exact logit of the text with each (a, b, new tokens) of ``repl`` (spans that do
    not overlap) replacing its tokens."""
    w, chg = sent.w, Counter()
    for a, b, new in repl:
        chg.update(sent.char_change(a, b, new))
    toks = replaced(sent, repl)
    nc, sc = delta(sent.cbase, chg, w.ccoef, w.cidf)
    nw, sw = block(w.word_counts([x for t in toks for x in w.words(t)]), w.wcoef, w.widf)
    return w.bias + float(term(nw, sw)) + float(term(sent.nc + nc, sent.sc + sc))


def search3(sent: Sentence, units: Units, k1: int = 300, k2: int = 2000, k3: int = 300,
            keep: int = 400) -> dict:
    """A search for three-edit flips, not a proof: the texts that three of the ``k1`` best
    single edits (in separate spans) or one of the ``k2`` best touching pairs and one of
    those singles make, ranked by their logit with the changes taken as additive (no
    correction for shared n-grams), the ``keep`` best of each scored exactly; and every
    text one more edit inside the window of one of the ``k3`` best touching pairs makes,
    scored exactly. ``best``: the exact σ·logit closest to a flip (> 0: flipped)."""
    started = time.perf_counter()
    w = sent.w
    sigma = 1.0 if sent.logit < 0 else -1.0
    e0 = np.array([sent.nw, sent.sw, sent.nc, sent.sc])

    def approx(e):
        e = e0 + e
        return sigma * (w.bias + term(e[..., 0], e[..., 1]) + term(e[..., 2], e[..., 3]))

    g1 = approx(units.eff)
    top = np.argsort(-g1)[:k1]
    E, a, b = units.eff[top], units.a[top], units.b[top]
    sep = units.separate(a[:, None], b[:, None], a[None, :], b[None, :])
    idx = np.arange(len(top))
    cands = []
    upper = idx[:, None] < idx[None, :]
    for x in range(len(top)):
        val = approx(E[x] + E[:, None, :] + E[None, :, :])
        ok = sep[x][:, None] & sep[x][None, :] & sep & upper & (idx > x)[:, None]
        val = np.where(ok, val, -np.inf)
        flat = np.argsort(-val, axis=None)[:keep]
        for f in flat:
            j, k = divmod(int(f), len(top))
            if np.isfinite(val[j, k]):
                cands.append((float(val[j, k]), [units.keys[top[x]], units.keys[top[j]],
                                                  units.keys[top[k]]]))
    cands.sort(key=lambda c: -c[0])
    cands = cands[:keep]
    g2 = approx(units.pair_eff)
    ptop = np.argsort(-g2)[:k2]
    val = approx(units.pair_eff[ptop][:, None, :] + E[None, :, :])
    ok = units.separate(units.pa[ptop][:, None], units.pb[ptop][:, None], a[None, :], b[None, :])
    val = np.where(ok, val, -np.inf)
    two = []
    for f in np.argsort(-val, axis=None)[:keep]:
        v, k = divmod(int(f), len(top))
        if np.isfinite(val[v, k]):
            two.append((float(val[v, k]), [units.pair_keys[ptop[v]], units.keys[top[k]]]))
    best, witness, scored = -np.inf, None, 0
    for _, repl in cands + two:
        v = sigma * score_replaced(sent, repl)
        scored += 1
        if v > best:
            best, witness = v, repl
    # three in one window: one more edit inside the window of a good touching pair
    for v in np.argsort(-g2)[:k3]:
        pa, pb, new = units.pair_keys[v]
        text = " ".join(new)
        variants = sorted({tuple(x.split()) for x in _edits(text, sent.alphabet)})
        logits = sigma * span_logits(sent, pa, pb, variants)
        scored += len(variants)
        i = int(np.argmax(logits))
        if logits[i] > best:
            best, witness = float(logits[i]), [(pa, pb, variants[i])]
    return {"best": best, "flips": bool(best > 0), "scored": scored,
            "witness": [[x, y, list(t)] for x, y, t in witness],
            "seconds": time.perf_counter() - started}


def replaced(sent: Sentence, repl) -> list[str]:
    """The sentence's tokens with each (a, b, new tokens) of ``repl`` (spans that do not
    overlap) in place of ``toks[a:b]``, the last span first so the others' indexes hold."""
    toks = list(sent.toks)
    for a, b, new in sorted(repl, key=lambda r: (r[0], r[1]), reverse=True):
        toks[a:b] = list(new)
    return toks


def witness_text(sent: Sentence, witness) -> str:
    """The text a witness's (a, b, new tokens) make (lower-cased, single spaces)."""
    return " ".join(replaced(sent, witness))


def check(sent: Sentence, victim, rng: random.Random, n: int) -> dict:
    """The largest gap between this analysis's logits and the victim's ``decision_function``
    on ``n`` random single edits, ``n`` random pairs of separate spans and ``n`` random
    two-edit texts of touching spans, and how many labels differ (must be 0)."""
    def real(texts):
        return victim.model.decision_function(victim._x(texts))

    ops = list(sent.ops())
    picked = rng.sample(ops, min(n, len(ops)))
    mine = [sent.logit_of(sent.effect(*sent.span_of(*o))) for o in picked]
    theirs = real([apply(sent.text, *o) for o in picked])
    gaps, labels = [np.abs(np.array(mine) - theirs).max()], [int(np.sum(flips(sent, mine) !=
                                                                          flips(sent, theirs)))]
    reps = sent.singles()
    keys = list(reps)
    table = PairTable(sent, keys)
    mine, texts = [], []
    while len(texts) < n:
        i = rng.randrange(len(keys))
        logit, sep = table.rows(i, i + 1)
        js = np.nonzero(sep[0])[0]
        if not len(js):
            continue
        j = int(rng.choice(js.tolist()))
        (p, k, c), (q, l, d) = sorted([reps[keys[i]], reps[keys[j]]])
        if p == q:
            continue
        texts.append(apply(apply(sent.text, q, l, d), p, k, c))
        mine.append(float(logit[0, j]))
    theirs = real(texts)
    gaps.append(np.abs(np.array(mine) - theirs).max())
    labels.append(int(np.sum(flips(sent, mine) != flips(sent, theirs))))
    windows = list(touching_pairs(sent))
    mine, texts = [], []
    for _ in range(n):
        a, b, variants = rng.choice(windows)
        new = rng.choice(sorted(variants))
        mine.append(float(span_logits(sent, a, b, [new])[0]))
        texts.append(" ".join(sent.toks[:a] + list(new) + sent.toks[b:]))
    theirs = real(texts)
    gaps.append(np.abs(np.array(mine) - theirs).max())
    labels.append(int(np.sum(flips(sent, mine) != flips(sent, theirs))))
    return {"max_gap": [float(g) for g in gaps], "labels_differ": labels}


def brute_force(sent: Sentence) -> float:
    """The logit closest to flipping over every text one or two edits make, each scored from
    scratch (no spans, no closed form): what `analyse` must find, on a short sentence."""
    seen = set()
    for p, kind, c in sent.ops():
        s1 = apply(sent.text, p, kind, c)
        seen.add(s1.lower())
        for q, l, d in Sentence(s1, sent.w).ops():
            seen.add(apply(s1, q, l, d).lower())
    sign = 1.0 if sent.logit < 0 else -1.0
    return sign * max(sign * Sentence(t, sent.w).logit for t in seen if t.split())


def examples(work: Path, split: str, limit: int):
    path = split_file(work / "mr", split)
    task = get_task("generic")
    ex = task.examples(path, task.format_for(path))
    return list(zip(ex.inputs, ex.gold))[:limit]


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Path:
    """The victim's file, or a usage error (one line, exit 2) before anything is read or
    written: a count out of range, two of --check, --brute-force and --triples, a --triples
    file that is not there, a --work without the victim, an --out that is a folder."""
    for name, low in (("limit", 1), ("check", 0), ("brute_force", 0), ("at_least", 0),
                      ("at_most", args.at_least)):
        if getattr(args, name) < low:
            parser.error(f"--{name.replace('_', '-')} must be at least {low}, "
                         f"got {getattr(args, name)}")
    runs = [name for name, given in (("--check", args.check), ("--brute-force", args.brute_force),
                                     ("--triples", args.triples)) if given]
    if len(runs) > 1:
        parser.error(f"{' and '.join(runs)} are other runs each: give one")
    if args.triples is not None and not args.triples.is_file():
        parser.error(f"--triples {args.triples}: no such file (an attack's records.jsonl)")
    model = args.work / "mr" / "generic-tfidf-odd.joblib"
    if not model.is_file():
        parser.error(f"no victim {model}: run search_vs_textattack.py --work {args.work} "
                     "first (see --help)")
    if args.out is not None and args.out.is_dir():
        parser.error(f"--out {args.out} is a folder, not a file")
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/zeroe-search-vs-textattack"),
                        help="search_vs_textattack.py's --work (mr/: the splits and victim)")
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--limit", type=int, default=200, help="the first N sentences")
    parser.add_argument("--out", type=Path, default=None, help="per-sentence JSON lines")
    parser.add_argument("--check", type=int, default=0, metavar="N",
                        help="instead: compare N random single edits, separate pairs and "
                             "touching pairs per sentence with the victim's own logits")
    parser.add_argument("--brute-force", type=int, default=0, metavar="CHARS",
                        help="instead: on sentences up to CHARS long, the best logit over every "
                             "two-edit text against the analysis (minutes each)")
    parser.add_argument("--triples", type=Path, default=None, metavar="RECORDS",
                        help="instead: search for three-edit flips (`search3`: a search, "
                             "checked against the victim, not a proof) on the sentences whose "
                             "text in this attack's records changes --at-least to --at-most "
                             "characters")
    parser.add_argument("--at-least", type=int, default=4)
    parser.add_argument("--at-most", type=int, default=1000)
    args = parser.parse_args()
    model = check_args(parser, args)
    from zeroe_assets.victims import load_victim

    victim = load_victim("generic-tfidf", model)
    w = Weights(victim)
    rows, spent = [], {}
    if args.triples:
        from rapidfuzz.distance import Levenshtein

        for line in args.triples.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("status") == "successful":
                spent[r["original"]] = Levenshtein.distance(r["original"], r["adversarial"])
    for text, gold in examples(args.work, args.split, args.limit):
        sent = Sentence(text, w)
        if (w.positive if sent.logit > 0 else str(victim.model.classes_[0])) != gold:
            continue  # misclassified: not attacked
        if args.check:
            print(json.dumps(check(sent, victim, random.Random(len(sent.text)), args.check)))
            continue
        if args.triples:
            if not args.at_least <= spent.get(text, -1) <= args.at_most:
                continue
            row = search3(sent, Units(sent))
            found = witness_text(sent, row["witness"])
            row.update(text=text, attack_characters=spent[text], witness_text=found,
                       characters=Levenshtein.distance(text.lower(), found),
                       victim=float(victim.model.decision_function(victim._x([found]))[0]),
                       logit=sent.logit)
            shown = row
        elif args.brute_force:
            if len(text) <= args.brute_force:
                row = analyse(sent, complete=True)
                print(json.dumps({"found": row["best"], "brute_force": brute_force(sent),
                                  "characters": row["characters"]}), flush=True)
            continue
        else:
            row = analyse(sent)
            shown = {k: v for k, v in row.items() if k != "text"}
        rows.append(row)
        print(json.dumps(shown), file=sys.stderr, flush=True)
        if args.out:
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
    if rows and args.triples:
        print(json.dumps({"searched": len(rows), "flipped_with_3": sum(r["flips"] for r in rows)}))
    elif rows:
        need = Counter(r["characters"] for r in rows)
        print(json.dumps({"attacked": len(rows), "need": dict(sorted(need.items()))}))


if __name__ == "__main__":
    main()
