"""The features the ranker scores a candidate by: one row per candidate of a token, the same at
training time (`train.shield`) and in the runtime, so a learned ranker sees what it was fit on.

Token-level facts (is the token a word, is it capitalised) only matter against the other
candidates, so they enter crossed with ``keep`` (the candidate that leaves the token as it is).

No feature names a restorer: a ranker that learned "trust the disemvowel restorer" from
disemvowelled text has nothing to go on for an attack it never saw, and one trained without it
learns to distrust that restorer (issue #33: leaving one family out of training cost up to 12
points). Every candidate is described by what holds whichever restorer proposed it: how surely
its proposers explain the token and how much of the line they explain (``by_any``,
``line_any``), how many agree (``proposers``), its frequency and its share of the proposals'
frequency (``posterior``, ``share``, ``top_freq``), the typo channel (``channel``,
``best_channel``), its context (``left``, ``right``, ``best_context``), and how its letters
relate to the token's (``rel_*``: the same letters reordered, letters dropped or added, the same
consonants, the same sound key, the same ends), each relation also weighted by the share of the
line's non-words that have a reading so related (``line_rel_*``: a line of anagrams was
shuffled, whichever tool shuffled it).
"""
from __future__ import annotations

import functools
import re

import numpy as np
from rapidfuzz.distance import DamerauLevenshtein

from .accents import is_accented_word
from .channel import load_channel
from .keyboard import qwerty
from .lexicon import Lexicon

MECHANISMS = ("visual", "intrude", "segment", "keyboard-typo", "natural-typo", "inner-shuffle",
              "full-shuffle", "truncate", "disemvowel", "phonetic")

# candidate-level facts that mean the same whichever restorer proposed the reading: how much of
# its proposers' (and all proposers') frequency mass it holds, whether it is the most frequent,
# the closest in the typo channel, the best in context, an exact explanation of the token
GENERIC = ("posterior", "share", "top_freq", "best_channel", "best_context", "exact",
           "keep_candidates")
# how the token relates to the reading, letter by letter, whichever restorer proposed it: the
# same letters in another order, letters dropped, letters added, the same consonants, the same
# sound key, the same first and last letters, one edit apart (a letter put for another, added,
# dropped, or two adjacent ones swapped: most typos of people and tools); each also weighted by the share of the line's
# non-words that have a reading so related (a line of anagrams was shuffled)
RELATIONS = ("anagram", "dropped", "added", "consonants", "sound", "ends", "one_edit")
FEATURES_REL = tuple(f"rel_{r}" for r in RELATIONS) + tuple(f"line_rel_{r}" for r in RELATIONS)
FEATURES = ("keep", "keep_known", "keep_logfreq", "keep_short", "keep_capital", "keep_nonascii",
            "keep_digit", "keep_accented", "keep_mixed_case", "known", "logfreq", "edit",
            "keyboard", "channel", "proposers", "left", "right", "left_seen", "right_seen",
            "keep_line_oov", "by_any", "line_any", "line_keyboard") + GENERIC + FEATURES_REL
INDEX = {name: i for i, name in enumerate(FEATURES)}
_PARTS = re.compile(r"['’-]")
_FLOOR = -12.0  # log10 frequencies start about here; features are shifted to be ≥ 0 and scaled


@functools.lru_cache(maxsize=1)
def _keys() -> dict[str, frozenset[str]]:
    return {k: frozenset(v) for k, v in qwerty().items()}


def keyboard_slip(low: str, reading: str) -> bool:
    """Whether ``low`` is ``reading`` with one letter replaced by a QWERTY neighbour (the
    keyboard-typo perturber's change)."""
    if len(low) != len(reading) or low == reading:
        return False
    diff = [(a, b) for a, b in zip(low, reading) if a != b]
    return len(diff) == 1 and diff[0][0] in _keys().get(diff[0][1], ())


def _freq(lexicon: Lexicon, candidate: str) -> float:
    return (min(lexicon.logfreq(w) for w in candidate.split()) - _FLOOR) / 10.0


def mixed_case(token: str) -> bool:
    """Capitals inside a word that is neither all capitals nor capitalised (rFaud, AntQifa,
    conServative: the random letters of DeepWordBug-like attacks; also iPhone, McDonald)."""
    for part in _PARTS.split(token):  # O'Neil, Jean-Luc: each part on its own
        letters = [c for c in part if c.isalpha()]
        if len(letters) > 1 and not (all(c.isupper() for c in letters)
                                     or all(c.islower() for c in letters[1:])):
            return True
    return False


def _subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(c in letters for c in short)


@functools.lru_cache(maxsize=1 << 16)
def relations(seen: str, reading: str) -> tuple[bool, ...]:
    """How ``seen`` (the token as read, lower case) relates to ``reading`` (spaces dropped), one
    flag per `RELATIONS`; all False when they are equal or ``seen`` is not plain ASCII letters."""
    plain = reading.replace(" ", "")
    if plain == seen or not (seen.isascii() and seen.isalpha()):
        return (False,) * len(RELATIONS)
    from .lexicon import skeleton
    from .phonetic import word_keys

    return (sorted(seen) == sorted(plain),
            len(seen) < len(plain) and _subsequence(seen, plain),
            len(plain) < len(seen) and _subsequence(plain, seen),
            skeleton(seen) == skeleton(plain) and bool(skeleton(seen)),
            bool(set(word_keys(seen)) & set(word_keys(plain))),
            seen[0] == plain[0] and seen[-1] == plain[-1],
            DamerauLevenshtein.distance(seen, plain) == 1)


def _channel(seen: str, reading: str) -> float:
    """The typo channel's log10 P(seen | reading) / 10 in [-1, 0]; 0 for the token itself."""
    plain = reading.replace(" ", "")
    if plain == seen or not seen.isascii():
        return 0.0
    return max(-1.0, load_channel().score(seen, plain) / 10.0)


def line_evidence(lexicon: Lexicon, units: list[tuple[str, dict[str, dict[str, float]]]]
                  ) -> dict[str, float]:
    """What the line as a whole says about how it was attacked: the share of its non-words
    (``units`` are ``(low, candidates)`` or ``(low, candidates, seen)``) for which each mechanism (and a keyboard slip) has a
    reading, and under ``"oov"`` the share of non-words. A line whose non-words all unshuffle
    to words was most likely shuffled, so a shuffle's reading of its real-word tokens gains."""
    return evidence_shares(evidence_counts(lexicon, units))


def evidence_counts(lexicon: Lexicon, units: list[tuple[str, dict[str, dict[str, float]]]]
                    ) -> dict[str, int]:
    """The counts behind `line_evidence` (``"units"``, ``"oov"`` the non-words, then how many of
    these each mechanism, a keyboard slip and each relation has a reading for): a long line's
    pieces add them up (`evidence_shares` of the sum is the whole line's evidence)."""
    odd = [(low, found) for low, found, *_ in units if low not in lexicon]
    seen = [(unit[2] if len(unit) > 2 else unit[0]) for unit in units if unit[0] not in lexicon]
    counts = {"units": len(units), "oov": len(odd)}
    for mechanism in MECHANISMS:
        counts[mechanism] = sum(any(mechanism in by for by in found.values())
                                for _, found in odd)
    counts["keyboard"] = sum(any(keyboard_slip(low, r) for r in found) for low, found in odd)
    related = [0] * len(RELATIONS)
    for read, (_, found) in zip(seen, odd):
        flags = [relations(read, r) for r in found]
        for k in range(len(RELATIONS)):
            related[k] += any(f[k] for f in flags)
    for name, count in zip(RELATIONS, related):
        counts[f"rel_{name}"] = count
    return counts


def evidence_shares(counts: dict[str, int]) -> dict[str, float]:
    """`line_evidence` from its `evidence_counts`."""
    odd = counts["oov"]
    return {"oov": odd / counts["units"] if counts["units"] else 0.0,
            **{k: v / max(odd, 1) for k, v in counts.items() if k not in ("units", "oov")}}


def token_features(lexicon: Lexicon, token: str, low: str, capital: bool,
                   candidates: dict[str, dict[str, float]], left: str | None,
                   right: str | None, evidence: dict[str, float],
                   seen: str | None = None) -> tuple[list[str], np.ndarray]:
    """``(readings, rows)``: the token's readings (``low`` itself first, as "keep") and one
    feature row each. ``candidates`` maps a reading to the mechanisms that proposed it and their
    confidence; ``left``/``right`` are the neighbours as they read (None at an edge or unknown);
    ``evidence`` is the line's (`line_evidence`); ``seen`` is the token as a reader sees it
    (look-alikes undone, lower case), which the typo channel compares a reading with."""
    readings = [low] + [c for c in candidates if c != low]
    rows = np.zeros((len(readings), len(FEATURES)), dtype=np.float32)
    known = low in lexicon
    keep = rows[0]
    keep[INDEX["keep"]] = 1.0
    keep[INDEX["keep_known"]] = float(known)
    keep[INDEX["keep_logfreq"]] = _freq(lexicon, low) if known else 0.0
    keep[INDEX["keep_short"]] = float(len(low) <= 3)
    keep[INDEX["keep_capital"]] = float(capital)
    keep[INDEX["keep_nonascii"]] = float(not token.isascii())
    keep[INDEX["keep_digit"]] = float(any(c.isdigit() for c in token))
    keep[INDEX["keep_accented"]] = float(is_accented_word(token))
    keep[INDEX["keep_mixed_case"]] = float(mixed_case(token))
    keep[INDEX["keep_line_oov"]] = evidence["oov"]
    keep[INDEX["keep_candidates"]] = np.log10(1 + len(readings) - 1) / 2
    counts = [_count(lexicon, r) for r in readings]
    mass: dict[str, float] = {}
    for reading, count in zip(readings[1:], counts[1:]):
        for mechanism, confidence in candidates.get(reading, {}).items():
            mass[mechanism] = mass.get(mechanism, 0.0) + confidence * count
    total = sum(counts[1:])
    for row, reading in zip(rows, readings):
        words = reading.split()
        in_lexicon = bool(words) and all(w in lexicon for w in words)  # "n't" alone: no word
        row[INDEX["known"]] = float(in_lexicon)
        row[INDEX["logfreq"]] = _freq(lexicon, reading) if in_lexicon else 0.0
        row[INDEX["edit"]] = DamerauLevenshtein.normalized_distance(low, reading.replace(" ", ""))
        slip = keyboard_slip(low, reading)
        row[INDEX["keyboard"]] = float(slip)
        row[INDEX["line_keyboard"]] = evidence["keyboard"] * slip
        row[INDEX["channel"]] = _channel(seen or low, reading)
        if words and left is not None:
            row[INDEX["left"]] = lexicon.association(left, words[0]) / 3.0
            row[INDEX["left_seen"]] = float((left, words[0]) in lexicon.bigrams)
        if words and right is not None:
            row[INDEX["right"]] = lexicon.association(words[-1], right) / 3.0
            row[INDEX["right_seen"]] = float((words[-1], right) in lexicon.bigrams)
        for name, flag in zip(RELATIONS, relations(seen or low, reading)):
            if flag:
                row[INDEX[f"rel_{name}"]] = 1.0
                row[INDEX[f"line_rel_{name}"]] = evidence.get(f"rel_{name}", 0.0)
        proposers = candidates.get(reading, {})
        row[INDEX["proposers"]] = len(proposers)
        if proposers:  # the same whichever restorer: what a mechanism never seen still earns
            row[INDEX["by_any"]] = max(proposers.values())
            row[INDEX["line_any"]] = max(evidence[m] for m in proposers)
    if len(readings) > 1:
        others = rows[1:]
        for k, reading in enumerate(readings[1:], 1):
            proposers = candidates.get(reading, {})
            rows[k, INDEX["posterior"]] = max(
                (c * counts[k] / mass[m] for m, c in proposers.items() if mass.get(m)),
                default=0.0)
            rows[k, INDEX["share"]] = counts[k] / total if total else 0.0
            rows[k, INDEX["exact"]] = float(bool(proposers) and max(proposers.values()) >= 1.0)
        rows[1 + int(np.argmax(counts[1:])), INDEX["top_freq"]] = float(max(counts[1:]) > 0)
        channel = others[:, INDEX["channel"]]
        rows[1 + int(np.argmax(channel)), INDEX["best_channel"]] = 1.0
        context = others[:, INDEX["left"]] + others[:, INDEX["right"]]
        if context.max() > 0:
            rows[1 + int(np.argmax(context)), INDEX["best_context"]] = 1.0
    return readings, rows


def _count(lexicon: Lexicon, reading: str) -> float:
    """The reading's count (its rarest word's, for words joined by spaces); 0 for no word."""
    words = reading.split()
    return float(min((lexicon.counts.get(w, 0) for w in words), default=0))
