"""Intruders: a symbol repeated between the letters of a word (``t+oda+y``, ``h e llo``) splits it
into pieces; the pieces that join into a dictionary word, where they are not words themselves,
are one word again. Apostrophes stay inside a word token, so they are dropped within it too."""
from __future__ import annotations

import math

from ..perturbers.intrude import SYMBOLS
from .base import Restorer
from .visual import invisible
from .lexicon import Lexicon

MAX_PIECES = 16
PLAIN = " -./'’"  # symbols that also join real words (well-known, U.S., and/or, rock'n'roll)
UNKNOWN = 1.0  # a join into no word scores this much below one into a word
_PAIRS = {")": "(", "]": "[", "}": "{"}


def _word_like(piece: str, lexicon: Lexicon) -> bool:
    low = piece.lower()
    return low in lexicon and (len(low) > 1 or low in ("a", "i"))


def _hyphened(k: int, pieces: list[str], gaps: list[str], lexicon: Lexicon) -> bool:
    """A single letter hyphened to a word (e-mail, x-ray, T-shirt, U-turn) is part of it."""
    def word(j: int) -> bool:
        return 0 <= j < len(pieces) and len(pieces[j]) > 1 and _word_like(pieces[j], lexicon)
    return len(pieces[k]) == 1 and (gaps[k] == "-" and word(k - 1)
                                    or k + 1 < len(gaps) and gaps[k + 1] == "-" and word(k + 1))


def _hit_twice(joined: str, gaps: list[str], absorbed: int) -> bool:
    """Pieces that join into no word but were surely split by an intruder (one symbol, not a
    space, hyphen, full stop, slash or apostrophe, repeated between non-word pieces): a word
    attacked twice (intruded and shuffled, cut or mistyped), which the other restorers read."""
    symbol = gaps[0]
    return (len(joined) >= 4 and joined.isalpha() and absorbed >= 2 and len(gaps) >= 2
            and all(g == symbol for g in gaps)
            and (symbol not in PLAIN or all(map(invisible, symbol))))


def bracketed(gaps: list[str], i: int) -> bool:
    """Whether word ``i`` stands alone in brackets closed right after it, its word going on
    (``[t]he``, ``(R)apists``: an editor's brackets, not a symbol repeated between letters)."""
    if i + 2 >= len(gaps):
        return False
    closer = gaps[i + 1]
    return closer in _PAIRS and gaps[i].endswith(_PAIRS[closer]) and gaps[i + 2] != closer


def _intruded(gap: str) -> bool:
    """One inserted symbol, or characters a reader does not see (a zero-width space, a soft
    hyphen: they split a word into tokens as a symbol does)."""
    return len(gap) == 1 and gap in SYMBOLS or bool(gap) and all(map(invisible, gap))


class IntrudeRestorer(Restorer):
    name = "intrude"

    def candidates(self, word):
        """Inside one token only the apostrophe can have intruded (``h'e'llo``)."""
        if "'" not in word and "’" not in word:
            return {}
        joined = word.replace("'", "").replace("’", "").lower()
        return {joined: 1.0} if joined in self.lexicon and joined != word.lower() else {}

    def keeps_whole(self, word, head, stem, tail):
        """An apostrophe that is no clitic's may be intruded (``h'ello``, also ``O'Brien``: the
        ranker keeps that)."""
        return bool(head) or word.count("'") + word.count("’") > 1

    def merges(self, words: list[str], gaps: list[str], read,
               joins: list | None = None) -> list[tuple[int, int, str]]:
        """``(i, j, word)``: words ``i..j`` with one symbol between each two read as ``word``
        (one repeated symbol, or several where a word was intruded twice); ``read(piece)`` is
        how a piece reads (look-alikes undone). ``word`` may be no word where the pieces were
        surely intruded (`_hit_twice`): the other restorers then read it. ``joins``, when given,
        gets ``(i, j, margin)`` for each word ``i`` some join may start at: ``j`` the last word
        of its longest, ``margin`` how far its choice scored ahead of the next (what
        `defend.certify` needs to read a window of the line as the whole line reads it).

        Which pieces join is one choice for the whole line (a dynamic programme): a piece that
        is no word left alone costs 2, a join earns 2 for each such piece it absorbs, less 0.5,
        and 0.2 for each piece (wal)ki)ng → walking, not wal king); frequent words win ties
        (``to g et`` → to get, not tog et). Across spaces a join must also be more frequent than
        each word it swallows; single letters join only as a whole run (``T h e`` → The, but
        not ``d e f`` out of ``a b c d e f``), never as initials (``U.S.``)."""
        n, lexicon = len(words), self.lexicon
        read_words = [read(w) for w in words]
        odd = [not _word_like(w, lexicon) and not _hyphened(k, read_words, gaps, lexicon)
               for k, w in enumerate(read_words)]
        best = [0.0] * (n + 1)  # best[k]: the best score of words[k:]
        choice: list[tuple[int, str | None]] = [(0, None)] * (n + 1)
        for i in range(n - 1, -1, -1):
            best[i], choice[i] = best[i + 1] - 2.0 * odd[i], (i, None)
            if bracketed(gaps, i):
                continue
            end, last, runner_up = i, i, -math.inf
            while end + 1 < n and _intruded(gaps[end + 1]) and end - i + 1 < MAX_PIECES:
                end += 1
                pieces = read_words[i:end + 1]
                joined = "".join(pieces).lower()
                absorbed = sum(odd[i:end + 1])
                known = joined in lexicon
                if not known and not _hit_twice(joined, gaps[i + 1:end + 1], absorbed):
                    continue
                if (len(joined) < 3 or not absorbed
                        or gaps[i + 1] == "." and all(len(p) == 1 for p in pieces)):
                    continue
                single = all(len(p) == 1 for p in pieces)
                if single and (  # a b c d e f is no word spelled out
                        i and gaps[i] == gaps[i + 1] and len(read_words[i - 1]) == 1
                        or end + 1 < n and gaps[end + 1] == gaps[i + 1]
                        and len(read_words[end + 1]) == 1):
                    continue
                if gaps[i + 1] == " " and not single and any(  # "and y" stays: andy < and
                        not odd[k] and lexicon.logfreq(read_words[k].lower()) >
                        lexicon.logfreq(joined) for k in range(i, end + 1)):
                    continue
                score = (best[end + 1] + 2.0 * absorbed - 0.5 + 0.2 * (end - i)
                         + 0.01 * (lexicon.logfreq(joined) + 12) - UNKNOWN * (not known))
                last = end
                if score > best[i]:
                    runner_up = best[i]
                    best[i], choice[i] = score, (end, joined)
                else:
                    runner_up = max(runner_up, score)
            if joins is not None and last > i:
                joins.append((i, last, best[i] - runner_up))
        found, i = [], 0
        while i < n:
            end, joined = choice[i]
            if joined is not None:
                found.append((i, end, joined))
            i = end + 1
        return found
