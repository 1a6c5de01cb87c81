"""The features the ranker scores a candidate by: one row per candidate of a token, the same at
training time (`train.shield`) and in the runtime, so a learned ranker sees what it was fit on.

Token-level facts (is the token a word, is it capitalised) only matter against the other
candidates, so they enter crossed with ``keep`` (the candidate that leaves the token as it is).
Each restorer's confidence and the share of the line it explains enter twice: per restorer
(``by_<name>``, ``line_<name>``) and for whichever proposed the reading (``by_any``,
``line_any``), so that what the ranker learns from one attack carries over to a restorer whose
attack it never saw.
"""
from __future__ import annotations

import functools
import re

import numpy as np
from rapidfuzz.distance import DamerauLevenshtein

from ..data import data_path, read_neighbour_list
from .accents import is_accented_word
from .channel import load_channel
from .lexicon import Lexicon

MECHANISMS = ("visual", "intrude", "segment", "keyboard-typo", "natural-typo", "inner-shuffle",
              "full-shuffle", "truncate", "disemvowel", "phonetic")

FEATURES = ("keep", "keep_known", "keep_logfreq", "keep_short", "keep_capital", "keep_nonascii",
            "keep_digit", "keep_accented", "keep_mixed_case", "known", "logfreq", "edit",
            "keyboard", "channel", "length_change", "parts", "proposers", "left", "right",
            "left_seen", "right_seen", "keep_line_oov", "by_any", "line_any") \
    + tuple(f"by_{m}" for m in MECHANISMS) + tuple(f"line_{m}" for m in MECHANISMS + ("keyboard",))
INDEX = {name: i for i, name in enumerate(FEATURES)}
_PARTS = re.compile(r"['’-]")
_FLOOR = -12.0  # log10 frequencies start about here; features are shifted to be ≥ 0 and scaled


@functools.lru_cache(maxsize=1)
def _keys() -> dict[str, frozenset[str]]:
    return {k: frozenset(v) for k, v in read_neighbour_list(data_path("qwerty.key")).items()}


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


def _channel(seen: str, reading: str) -> float:
    """The typo channel's log10 P(seen | reading) / 10 in [-1, 0]; 0 for the token itself."""
    plain = reading.replace(" ", "")
    if plain == seen or not seen.isascii():
        return 0.0
    return max(-1.0, load_channel().score(seen, plain) / 10.0)


def line_evidence(lexicon: Lexicon, units: list[tuple[str, dict[str, dict[str, float]]]]
                  ) -> dict[str, float]:
    """What the line as a whole says about how it was attacked: the share of its non-words
    (``units`` are ``(low, candidates)``) for which each mechanism (and a keyboard slip) has a
    reading, and under ``"oov"`` the share of non-words. A line whose non-words all unshuffle
    to words was most likely shuffled, so a shuffle's reading of its real-word tokens gains."""
    odd = [(low, found) for low, found in units if low not in lexicon]
    evidence = {"oov": len(odd) / len(units) if units else 0.0}
    for mechanism in MECHANISMS:
        evidence[mechanism] = sum(any(mechanism in by for by in found.values())
                                  for _, found in odd) / max(len(odd), 1)
    evidence["keyboard"] = sum(any(keyboard_slip(low, r) for r in found)
                               for low, found in odd) / max(len(odd), 1)
    return evidence


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
        row[INDEX["length_change"]] = (len(reading.replace(" ", "")) - len(low)) / max(len(low), 1)
        row[INDEX["parts"]] = len(words) - 1
        if words and left is not None:
            row[INDEX["left"]] = lexicon.association(left, words[0]) / 3.0
            row[INDEX["left_seen"]] = float((left, words[0]) in lexicon.bigrams)
        if words and right is not None:
            row[INDEX["right"]] = lexicon.association(words[-1], right) / 3.0
            row[INDEX["right_seen"]] = float((words[-1], right) in lexicon.bigrams)
        proposers = candidates.get(reading, {})
        row[INDEX["proposers"]] = len(proposers)
        if proposers:  # the same whichever restorer: what a mechanism never seen still earns
            row[INDEX["by_any"]] = max(proposers.values())
            row[INDEX["line_any"]] = max(evidence[m] for m in proposers)
        for mechanism, confidence in proposers.items():
            row[INDEX[f"by_{mechanism}"]] = confidence
            row[INDEX[f"line_{mechanism}"]] = evidence[mechanism]
    return readings, rows
