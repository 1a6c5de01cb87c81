"""Hashtags of several words (``#GeratAwakening``, ``#dumberthandoghsit``): an attack changes a
letter inside one of the words as it changes any word, but the tag is one token, so no restorer
reads the word (a whole hashtag is read only as one word, `core._tags`). The tag is cut into the
words it is written as, at its capitals (``Gerat Awakening``) or, in one case, where the
likeliest words allow one of them to be mistyped (`split`: ``dumber than dog hsit``), and the
shield reads those words as a line; the tag changes when the shield changes exactly the one
word that no text has used (``Gerat`` → *Great*). So a word of a tag is read as surely as the
same word in a sentence, and a tag of words the shield keeps stays as written. A tag that is
one word mistyped (``#paenting``) or marked by a capital inside (``#feminiGm``) is left to the
one-word reading.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from rapidfuzz.distance import DamerauLevenshtein

MIN_TAG = 6  # shorter tags (#MAGA, #nws) are acronyms or one word
MAX_PIECE = 20  # the longest word a run-on tag is cut into
EDITED = 4  # the shortest word of a tag that may be mistyped (shorter: too many words an edit away)
MARGIN = 0.5  # log10: a cut with one word mistyped must be this much likelier than any without
UNKNOWN = -10.0  # log10 cost of a piece no text has used (a name: soetoro), less a letter each
CUTS = 3  # the cuts with one word mistyped that the shield reads, the likeliest first
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")

Score = Callable[[str], "float | None"]


def split(low: str, score: Score, edited: Score) -> list[tuple[list[tuple[int, int]], int]]:
    """The likeliest cuts of the lower-case run-on ``low`` into words with exactly one of them
    mistyped, as spans and the mistyped one's index, best first (at most ``CUTS``, one for each
    mistyped span); none when a cut with no word mistyped is within ``MARGIN`` (log10) of the
    best. ``score``: a word's log10 frequency (None: not a word here; such a piece costs
    ``UNKNOWN`` and a letter); ``edited``: how likely a non-word is a typo of a common word
    (its best one-edit reading's log10 frequency plus the typo channel; None: of none)."""
    n = len(low)

    def cost(piece: str) -> float:
        word = score(piece)
        return UNKNOWN - len(piece) if word is None else word

    def best(order: range, spans) -> list[float]:
        out = [0.0] + [float("-inf")] * n
        for i in order[1:]:
            out[i] = max(out[i - len(p)] + cost(p) for p in spans(i))
        return out

    ahead = best(range(n + 1), lambda i: [low[j:i] for j in range(max(0, i - MAX_PIECE), i)])
    behind = best(range(n + 1), lambda i: [low[n - i:n - i + m]
                                           for m in range(1, min(MAX_PIECE, i) + 1)])
    found = []
    for j in range(n):
        for i in range(j + EDITED, min(n, j + MAX_PIECE) + 1):
            typo = edited(low[j:i])
            if typo is not None:
                found.append((ahead[j] + typo + behind[n - i], j, i))
    found.sort(reverse=True)
    if not found or found[0][0] - ahead[n] < MARGIN:
        return []
    cuts = []
    for _, j, i in found[:CUTS]:
        before = _cut(low[:j], score, cost)
        after = [(a + i, b + i) for a, b in _cut(low[i:], score, cost)]
        cuts.append((before + [(j, i)] + after, len(before)))
    return cuts


def _cut(low: str, score: Score, cost: Callable[[str], float]) -> list[tuple[int, int]]:
    """The likeliest cut of ``low`` into words (spans), no word mistyped."""
    best: list[tuple[float, list]] = [(0.0, [])]
    for i in range(1, len(low) + 1):
        best.append(max(((best[j][0] + cost(low[j:i]), best[j][1] + [(j, i)])
                         for j in range(max(0, i - MAX_PIECE), i)), key=lambda c: c[0]))
    return best[-1][1]


def read_tag(tag: str, score: Score, edited: Score, restore: Callable[[str], str],
             fluency: Callable[[list[str]], float]) -> str | None:
    """``tag`` (a hashtag's body, letters only) with its one mistyped word restored, or None.
    Camel case is cut at its capitals, a tag in one case by `split`; ``restore`` reads the words
    of a cut as a line, and must change exactly one word, one edit, that ``score`` does not
    know; of several cuts so read, the one whose words ``fluency`` (log10) rates highest wins
    (``dumber than dog shit``, not ``dumber than dogs it``)."""
    low = tag.lower()
    if len(tag) < MIN_TAG or score(low) is not None or edited(low) is not None:
        return None  # one word, or one word mistyped (#paenting): read as one (`core._tags`)
    if tag not in (low, tag.upper()):
        if tag[0].islower():  # feminiGm: a word with a capital inside, read as one (`marked`)
            return None
        pieces = _CAMEL.findall(tag)
        if "".join(pieces) != tag or any(len(p) == 1 and p.isupper() for p in pieces):
            return None  # TOcouncil: TO council or T Ocouncil?
        cuts = [(pieces, {k for k, piece in enumerate(pieces)  # FLOTUS: a name
                          if score(piece.lower()) is None and not piece.isupper()})]
    else:
        cuts = [([tag[a:b] for a, b in spans], {k}) for spans, k in split(low, score, edited)]
    best, best_fluency = None, float("-inf")
    for pieces, unknown in cuts:
        if len(pieces) < 2:  # one word: the shield reads it as one (`core._tags`)
            continue
        read = restore(" ".join(pieces)).split(" ")
        if len(read) != len(pieces):
            continue
        changed = [k for k, (a, b) in enumerate(zip(pieces, read)) if a != b]
        if len(changed) != 1 or changed[0] not in unknown or not read[changed[0]].isalpha() \
                or DamerauLevenshtein.distance(read[changed[0]].lower(),
                                               pieces[changed[0]].lower()) != 1:
            continue
        rated = fluency([w.lower() for w in read])
        if rated > best_fluency:
            best, best_fluency = "".join(read), rated
    return best
