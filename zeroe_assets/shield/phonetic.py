"""Phonetic respellings (nite → night, wooman → woman): the dictionary words a respelling sounds
like.

Two sources, both torch-free:

- the inverse of the phonetic table the attack draws from (``zeroe_assets.phonetic``: word →
  respellings that the Siamese embedder judged to sound the same, with its score): exact for
  every respelling the attack takes from its table, built with the shield from the table files;
- for a token outside the lexicon and the table (a word the attack respelled on the fly with
  its seq2seq models, or another tool's respelling), the lexicon words with the same sound key
  (`sound_keys`: a Metaphone-like skeleton), the closest in spelling first.

No G2P at run time: the exact table covers what this toolkit's attack produces, and a model per
token would cost milliseconds and torch (docs/shield.md has the numbers).
"""
from __future__ import annotations

import functools
import re
from collections import defaultdict

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from ..assets import load_component
from ..assets.tables import PhoneticTable
from ..data import stopwords
from ..perturbers.phonetic import ACRONYM_LETTERS, MIN_LETTERS
from ..phonetic.names import COMPONENT
from .base import LIMIT, Restorer
from .lexicon import Lexicon

KEY_CONFIDENCE = 0.5  # a sound-key match at spelling distance 0; it falls with the distance
MAX_LETTERS = 30  # a longer token is no respelling of a word
BUCKET = 50  # the most frequent words of a sound key compared with the token (99.9% of hits)
MAX_DISTANCE = 0.5  # normalised spelling distance: 99% of the true matches are this close

# The sound key, applied as plain replacements in this order to "\n"-separated lower-case words
# (so that one pass keys the whole lexicon): word starts, then letter groups to one code each
# (upper case, so that later rules leave them alone); vowels, h, w and y inside a word then go
# and repeated codes collapse. "ch" has two readings (church, chorus): words with it get both
# keys. Chosen on the table's own (word, respelling) pairs (docs/shield.md).
_START = [("\nh", "\n"), ("\ngh", "\ng"), ("\nkn", "\nn"), ("\ngn", "\nn"), ("\npn", "\nn"),
          ("\nps", "\ns"), ("\nwr", "\nr"), ("\nx", "\ns"), ("\nwh", "\nW"), ("\nw", "\nW"),
          ("\ny", "\nY")] + [("\n" + v, "\nA") for v in "aeiou"] + [("tch", "X")]
_REST = [("sh", "X"), ("th", "0"), ("tio", "X"), ("tia", "X"), ("sia", "X"), ("sio", "X"),
         ("cia", "X"), ("cio", "X"), ("ph", "F"), ("gh", ""), ("ck", "K"), ("dge", "J"),
         ("dgi", "J"), ("ce", "S"), ("ci", "S"), ("cy", "S"), ("c", "K"), ("q", "K"), ("x", "KS"),
         ("z", "S"), ("d", "T"), ("gn", "N"), ("g", "J"), ("mb", "m"), ("kn", "N"), ("wr", "R")]
_STEPS = {False: _START + [("sch", "X"), ("ch", "X")] + _REST,  # schirt, church
          True: _START + [("sch", "SK"), ("ch", "K")] + _REST}  # school, chorus
_SILENT = str.maketrans("", "", "aeiouywh")
_REPEAT = re.compile(r"(.)\1+")


def sound_keys(words: list[str], hard: bool = False) -> list[str]:
    """One sound key per lower-case ASCII word: words that sound alike tend to share it
    (night, nite → NT; phone, fone → FN). ``hard``: read "ch" as k."""
    text = "\n" + "\n".join(words) + "\n"
    for old, new in _STEPS[hard]:
        text = text.replace(old, new)
    return _REPEAT.sub(r"\1", text.translate(_SILENT).upper()).split("\n")[1:-1]


def word_keys(word: str) -> tuple[str, ...]:
    """The sound keys of one lower-case ASCII word: one, and a second where "ch" read as k
    gives another."""
    soft = sound_keys([word])[0]
    hard = sound_keys([word], hard=True)[0] if "ch" in word else soft
    return (soft,) if hard == soft else (soft, hard)


def _key(word: str) -> str:
    """How the table spells a respelling: lower case, straight apostrophes."""
    return word.lower().replace("\u2019", "'")


class PhoneticRestorer(Restorer):
    """Candidates are the words the attack respells: lexicon words of at least `MIN_LETTERS`
    letters that are not function words (its policy, `perturbers.phonetic`)."""

    name = "phonetic"

    def __init__(self, lexicon: Lexicon, root=None):
        self.lexicon, self.skip = lexicon, stopwords()
        table = PhoneticTable.from_component(load_component(COMPONENT, root))
        candidates, scores = table.candidates, table.scores.tolist()
        offsets = table.offsets.tolist()
        inverse: dict[str, dict[str, float]] = {}  # respelling → source word → best score
        for i, word in enumerate(table.words):
            if self.attackable(word):
                for j in range(offsets[i], offsets[i + 1]):
                    found = inverse.setdefault(candidates[j], {})
                    if found.get(word, 0.0) < scores[j]:
                        found[word] = scores[j]
        self.inverse = inverse

    def attackable(self, word: str) -> bool:
        """Whether ``word`` is one the attack respells, so a candidate."""
        return word in self.lexicon.counts and len(word) >= MIN_LETTERS and word not in self.skip

    @functools.cached_property
    def by_sound(self) -> dict[str, list[str]]:
        """Sound key → candidate words, most frequent first (built on the first token that
        needs it)."""
        counts = self.lexicon.counts
        words = sorted(filter(self.attackable, counts), key=counts.__getitem__, reverse=True)
        index: dict[str, list[str]] = defaultdict(list)
        for word, key in zip(words, sound_keys(words)):
            index[key].append(word)
        hard = [w for w in words if "ch" in w]
        for word, soft, key in zip(hard, sound_keys(hard), sound_keys(hard, hard=True)):
            if key != soft:
                index[key].append(word)
        return dict(index)

    def candidates(self, word):
        low = _key(word)
        letters = low.replace("'", "")
        if len(letters) < 2 or (word.isupper() and len(letters) <= ACRONYM_LETTERS):
            return {}  # a letter (b, c) or an acronym (UN, IV) is no respelling the attack makes
        exact = self.inverse.get(low)
        if exact is not None:
            return dict(sorted(exact.items(), key=lambda kv: (-kv[1], kv[0]))[:LIMIT])
        return {} if low in self.lexicon else dict(self.sounding(letters))

    def keeps_whole(self, word, head, stem, tail):
        """A respelling the table holds whole (``pain'ting``), where the split is not a known
        word and its clitic (``girl's``) nor a negation (``can't``)."""
        return (word.lower() in self.inverse and stem.lower() not in self.lexicon
                and tail.lower() not in ("n't", "n’t"))

    def sounding(self, letters: str) -> list[tuple[str, float]]:
        """Lexicon words with the sound key of ``letters``, the closest in spelling first, with
        `KEY_CONFIDENCE` scaled by their spelling similarity (none beyond `MAX_DISTANCE`)."""
        if not (MIN_LETTERS <= len(letters) <= MAX_LETTERS and letters.isascii()
                and letters.isalpha()):  # the attack respells words of ≥ MIN_LETTERS letters
            return []
        bucket = dict.fromkeys(w for key in word_keys(letters)
                               for w in self.by_sound.get(key, ())[:BUCKET])
        found = process.extract(letters, list(bucket), limit=LIMIT, score_cutoff=MAX_DISTANCE,
                                scorer=DamerauLevenshtein.normalized_distance)
        return [(w, KEY_CONFIDENCE * (1.0 - d)) for w, d, _ in found]
