"""The shield: text in, restored text out. Each word gets the readings its restorers propose
(one per mechanism, mirroring `perturbers/`), the ranker picks one in context, and the word
changes only when the ranker is sure; gaps, case and clitics stay as they were.
"""
from __future__ import annotations

import difflib
import functools
import math
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rapidfuzz.distance import DamerauLevenshtein

from .. import tokenize
from ..tokenize import match_case
from .accents import is_accented_word, plain
from .channel import load_channel
from .context import SURE, Context, RealWords, Window, inflected, neighbours
from .features import MECHANISMS, evidence_counts, evidence_shares, line_evidence, token_features
from .hashtags import EDITED, read_tag
from .hyphens import hyphens
from .intrude import bracketed
from .keyboard import qwerty
from . import language
from .language import known
from .lexicon import Lexicon, load_lexicon
from .lm import END, START, load_context_model
from .marked import marked, marked_readings, unmarked
from .placeholders import placeholders
from .ranker import Ranker, hand_set_ranker, load_ranker
from .segment import SHORT_PARTS
from .spelling import MIN_STEM, SUFFIXES, spelled_right
from .visual import name_letter
from .webwords import MIN_LENGTH as WEB_MIN_LENGTH, joined, load_web_words

# a Hawaiian word: ASCII letters, each ʻokina (U+02BB) before a vowel (`Shield._spelled`)
_OKINA = re.compile(r"[A-Za-z]*(?:\u02bb[AEIOUaeiou][A-Za-z]*)+")
# a URL, an e-mail address, a @mention or #hashtag is a name, not an attacked word: the
# whitespace-free chunks holding one of these marks (found chunk by chunk: linear in the line)
_CHUNK = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"[.!?]")
_MARKS = ("://", "www.", "@", "#")
# … and so is a file or domain name: a dot right after a word and before a short lower-case
# extension (report.pdf, TEXT.htm, cnn.com; not U.S., p.m. or 3.5)
_FILE = re.compile(r"\w\.[a-z0-9]{2,4}(?![A-Za-z])")
LONG = 5_000  # a line of more chunks (runs between whitespace) is read in pieces (`_pieces`)
REACH = 200  # … each read with this many chunks of context on either side
NONWORD_KEEP = 0.3  # tuned on a dev split of TextAttack's adversarial texts (OLID, SNLI 200–400)
NONWORD_MIN = 4
SHORT = (2, 3)  # shorter non-words change on the noisy channel only (`Shield._short`)
CHANNEL_MARGIN = 0.5  # log10: the noisy channel's best reading ahead of the next
CHANNEL_OVER = 2.0  # log10: … ahead of every other reading, to overrule the ranker
CHANNEL_FREQ = -4.5  # log10 frequency of a word common enough for the channel to pick alone
CHANNEL_UNSEEN = -6.0  # … and for it to pick for a non-word no text or list has used (cronsiders)
UNSEEN_MARGIN = 1.0  # log10: … with the reading this far ahead of the next
CHANNEL_NAMES = -4.0  # … and for it to pick for a capitalised non-word inside the line (Thazks)
ANCHOR_GAIN = 1.5  # log10: a window gain that makes a dictionary word its anchor's word
GUESS_SURE = 3.0  # log10: with ``guess``, the window gain that reads a rare word as another
PAIR_SURE = 3.0  # log10: … and, read against an anchor, any word as DeepWordBug's (`_pair_real`)
INNER_SURE = 2.0  # log10: … and, read alone, as one of Pruthi's inner edits (`_inner_real`)
MIN_LENGTH = 2  # a single letter (x, a variable, an initial) is never changed
MAX_LENGTH = 40  # nor a token longer than any English word (a hash, base64, a run of x)
NEGATED = frozenset({"ca", "wo", "sha", "ai"})  # the stems of can't, won't, shan't, ain't
WORDS = 0.7  # the share of dictionary words that makes a long line English on one common word
ENGLISH_ODDS = 3.0  # log10: how much likelier English must be than any other language (`language`)
COMMON = -4.0  # log10 frequency of a common English word (the, water; not cafe -4.5, jose -4.4)
# words common in English and rarer elsewhere: a line of four to nine words with none of them
# (as a reader sees them), or a longer one with fewer than two, is another language: left alone
ENGLISH = frozenset("a at as the and of to is are was were that this with for you it its be been "
                    "have has not by from they we his her she he which or my me our your there "
                    "their an will would can but what who".split())


@dataclass
class Unit:
    """One word of the text as the shield sees it: words ``start..end`` (more than one where an
    intruded symbol split a word), its stem and the readings proposed for the stem."""

    start: int
    end: int
    head: str
    stem: str
    tail: str
    template: str  # the stem as a reader sees it (look-alikes undone): the casing of a reading
    candidates: dict[str, dict[str, float]]
    opens: bool = False  # it starts a sentence (`_opens`): a capital there says nothing of a name
    compound: bool = False  # a hyphen joins it to a neighbour (`_compound`: ham-fisted)
    asked: bool = False  # the restorers were asked for its readings (none may have come)

    @property
    def low(self) -> str:
        return self.stem.lower()

    def provisional(self, lexicon: Lexicon) -> str | None:
        """How the word reads before ranking, for its neighbours' context: itself if it is a
        word, else its most often proposed, most frequent candidate."""
        if self.low in lexicon:
            return self.low
        if not self.candidates:
            return None
        best = max(self.candidates.items(),
                   key=lambda kv: (len(kv[1]), lexicon.logfreq(kv[0].split()[0]), kv[0]))
        return best[0]


class Tally:
    """What a line says as a whole, added up over its words and units in order (`add`), so
    that a long line read a piece at a time (`_pieces`) reads each word as the whole line read
    at once does: whether it is in capitals (``shouting``: `Shield.units`; ``units_shouting``:
    `Shield._real_words`), English (``english``), which context model reads it
    (``words_read``: `Context.fit`) and how it was attacked (``evidence``:
    `features.evidence_counts`)."""

    def __init__(self, lexicon: Lexicon, context: Context):
        self.lexicon, self.context = lexicon, context
        self.words = self.capitals = 0  # the words, those in capitals
        self.units = self.unit_capitals = 0  # the units, those in capitals
        self.words_read = None  # `Context.read` of the units as typed
        self.evidence: dict[str, int] = {}
        self.plain = self.in_lexicon = self.known = 0  # of the units no mark protects
        self.found: set[str] = set()  # common English words among them (`english`)
        self.mistyped: set[str] = set()  # … and English words mistyped (`_mistyped`)
        self.votes: dict[str, float] = {}  # `language.votes`

    def add(self, words: list[str], units: list[Unit], protected: set[int] = frozenset()
            ) -> Tally:
        """Count in the next ``words`` of the line and its ``units`` (``protected``: the words
        of marks, `_protected`, which say nothing of its language)."""
        lexicon = self.lexicon
        self.words += len(words)
        self.capitals += sum(map(_capital, words))
        self.units += len(units)
        self.unit_capitals += sum(_capital(u.stem) for u in units)
        self.words_read = self.context.read([u.low for u in units], self.words_read)
        counts = evidence_counts(lexicon, [(u.low, u.candidates, u.template.lower())
                                           for u in units])
        self.evidence = {k: self.evidence.get(k, 0) + v for k, v in counts.items()}
        plain = [u for u in units if u.start not in protected]
        lows = [u.template.lower() for u in plain]
        self.plain += len(plain)
        self.in_lexicon += sum(low in lexicon for low in lows)
        self.known += sum(map(known, lows))
        self.votes = language.votes(lows, self.votes)
        for u, low in zip(plain, lows):
            if low in ENGLISH or low not in lexicon and not ENGLISH.isdisjoint(u.candidates):
                self.found.add(low)
            # asked only while too few are found for `english` to need none: it costs
            if len(self.found) < 2 and low not in lexicon and _mistyped(u, lexicon):
                self.mistyped.add(low)
        return self

    @property
    def shouting(self) -> bool:
        return _shouting(self.capitals, self.words)

    @property
    def units_shouting(self) -> bool:
        return _shouting(self.unit_capitals, self.units)

    @property
    def english(self) -> bool:
        """Whether the line reads as English: enough of its words are, or may be restored to,
        common English words (``Teh`` counts as *the*, and so does any word no language has
        that is one edit from a common English word: `_mistyped`). Hashtags, mentions and URLs
        do not count, and a long line of dictionary words with one common word is English too
        (a tweet of names and hashtags: ``Democrats Support Antifa, … Sedition And Treason``).
        A line with too few of those words is English still when its words, by their
        frequencies in English and six other languages, are far likelier English
        (`language.english_odds`); a line with them is not when it is plainly another language
        (`language.other_language`)."""
        if self.plain < 4:
            return True
        need = 1 if self.plain < 10 else 2
        found = self.found  # distinct: French "le … le" is one
        if len(found) < need:  # the attack may have mistyped them
            found = found | self.mistyped
        if len(found) >= need or found and self.in_lexicon >= WORDS * self.plain:
            # … unless it is plainly another language that shares a, me, as with English
            # (``'compleja' es uno de esos filmes …``)
            return not language.foreign(self.known, self.plain, self.votes)
        # the attack may have taken its few function words (``Four kids pose during summre
        # vacatino``): then all its words vote, each by its frequency in each language
        return language.odds(self.votes) >= ENGLISH_ODDS


class Shield:
    """Undo low-level attacks. ``mechanisms``: which restorers run (default all of
    `MECHANISMS`); ``threshold``: the ranker probability a change needs (default the ranker's);
    ``learned``: use the exported ranker if there is one (else the hand-set weights);
    ``real_words``: read the rare dictionary words it keeps again in context
    (`context.RealWords`: ``wok`` in "his bike to wok" is *work*, judged by the context model
    `lm`); on by default since its bounds (a much commoner reading, first and last letters
    kept) changed 8 of 52,814 clean dev tokens (docs/shield.md). A non-word of four letters or
    more whose best reading falls short of the threshold still changes when keeping it is
    unlikely (``nonword_keep``).

    ``guess`` (off by default): read for a robust encoding behind the shield, where a token
    left as typed is `unkword` or the encoding's own one-edit lookup (``bdring`` → *bring*),
    never the word it was. A lower-case non-word no text has used that the rules leave goes to
    its best reading in context (`_guess`), and a rare dictionary word to a neighbour its
    window reads ``GUESS_SURE`` likelier, first and last letters included (`context.RealWords`'
    ``sure``: ``flawed loo at`` is *look*, ``manages to scape`` *escape*): DeepWordBug edits
    any letter and leaves real words. Measured behind the MiniLM on movie reviews
    (docs/defend.md). A pair's hypothesis is read against its premise alike with or without
    ``guess`` (`_anchored`, `_pair_guess`, `_pair_real`)."""

    # a non-word the ranker is unsure of still changes to its best reading when keeping it is
    # this unlikely (None: only the ranker's threshold decides); see `_decide`
    nonword_keep: float | None = NONWORD_KEEP
    # … or when the noisy channel clearly prefers a common word one edit away (`_channel_best`;
    # None: off); both tuned on a dev split of TextAttack's adversarial texts
    channel_margin: float | None = CHANNEL_MARGIN
    channel_freq: float = CHANNEL_FREQ
    # … and to a rarer word for a non-word no text or list has used (`_unseen`; None: never)
    channel_unseen: float | None = CHANNEL_UNSEEN
    # … and in place of the ranker's reading of a non-word when the channel is this far ahead
    # (`_overrule`; None: the ranker's reading stands)
    channel_over: float | None = CHANNEL_OVER
    # a capitalised non-word inside the line changes only on the noisy channel, to a word this
    # common (log10; None: never)
    channel_names: float | None = CHANNEL_NAMES
    # a capital inside a lower-case word marks the attacked letter (`marked`; False: off)
    marked: bool = True
    # a dictionary word reads as an anchor's word one edit away when its window gains this
    # (log10; None: anchors only keep their own words and read non-words, `_anchored`)
    anchor_gain: float | None = ANCHOR_GAIN
    # a token one edit from a data set's placeholder reads as it (`placeholders`; False: off)
    placeholders: bool = True
    # a hashtag of several words has its one mistyped word read (`hashtags`; False: off)
    hashtags: bool = True
    # a hyphen an attack swapped with a letter goes back (`hyphens`; False: off)
    hyphens: bool = True
    # a pair's hypothesis non-word no premise word explains reads as its likeliest one-edit
    # word (`_pair_guess`), and a dictionary word as one far likelier (`_pair_real`); False:
    # only with ``guess``
    pair_guess: bool = True
    # a dictionary word of a text read alone reads as a word Pruthi's inner edits make it from
    # when its window and the edit's odds are this much likelier (log10, `_inner_real`; None: off)
    inner_sure: float | None = INNER_SURE
    # a word of wordfreq's list the lexicon lacks (a name, a rare word) stays, and a non-word
    # no text has used reads as the one such word one edit away (`webwords`; False: off)
    web_words: bool = True

    def __init__(self, mechanisms: Sequence[str] | None = None, threshold: float | None = None,
                 learned: bool = True, root: Path | str | None = None,
                 ranker: Ranker | None = None, real_words: bool = True, guess: bool = False):
        if isinstance(mechanisms, str):
            mechanisms = [m.strip() for m in mechanisms.split(",") if m.strip()]
        chosen = tuple(MECHANISMS if mechanisms is None else mechanisms)
        unknown = [m for m in chosen if m not in MECHANISMS]
        if unknown or not chosen:
            raise ValueError(f"unknown shield mechanism(s) {', '.join(unknown) or '(none given)'};"
                             f" choose from {', '.join(MECHANISMS)}")
        self.mechanisms = tuple(m for m in MECHANISMS if m in chosen)
        self.root = Path(root) if root else None
        self.lexicon = load_lexicon()
        # `describe`'s note: the hand-set weights because none was exported, not as asked for
        self._none_exported = False
        if ranker is None:
            loaded = load_ranker(self.root) if learned else None
            ranker = loaded or hand_set_ranker()
            self._none_exported = learned and loaded is None
        if threshold is not None:
            if not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
                raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}")
            ranker = Ranker(ranker.weights, float(threshold), ranker.learned, ranker.meta)
        self.ranker = ranker
        self.restorers = _restorers(self.mechanisms, self.lexicon, self.root)
        self.context = Context(self.lexicon, load_context_model(self.root))
        self.guess = bool(guess)
        self.real_words = RealWords(self.context, sure=GUESS_SURE if guess else SURE) \
            if real_words else None
        self.mechanisms = tuple(self.restorers)  # without any that could not load
        self._inner_near: dict[str, list[str]] = {}  # `_inner_real`'s readings of a word

    @property
    def learned(self) -> bool:
        return self.ranker.learned

    def describe(self) -> str:
        how = "learned ranker" if self.learned else "hand-set ranker"
        if self._none_exported:
            how += " (no learned one exported: run `python -m train.shield`)"
        guessing = ", guessing" if self.guess else ""
        return (f"shield [{', '.join(self.mechanisms)}], {how}, threshold "
                f"{self.ranker.threshold}{guessing}")

    # -- the pipeline ------------------------------------------------------------------------
    def units(self, words: list[str], gaps: list[str], propose: bool = True,
              joins: list | None = None, shouting: bool | None = None) -> list[Unit]:
        """The words of a line as units, with the readings their restorers propose (none
        without ``propose``: for a reader that never takes them); ``joins`` gets the joins the
        restorers weighed (`IntrudeRestorer.merges`); ``shouting``: whether the line is in
        capitals (None: more than half of ``words`` are, `Tally`)."""
        restorers = self.restorers.values()

        def read(word: str) -> str:
            for restorer in restorers:
                word = restorer.read(word)
            return word

        merges = sorted((i, j, joined, restorer.name) for restorer in restorers
                        for i, j, joined in restorer.merges(words, gaps, read, joins))
        spans, k = [], 0
        for i, j, joined, by in merges:
            spans += [(w, w, None, "") for w in range(k, i)] + [(i, j, joined, by)]
            k = j + 1
        spans += [(w, w, None, "") for w in range(k, len(words))]
        protected = _protected(words, gaps)
        tags = _tags(words, gaps)
        paired = _paired(words, gaps, self.context)
        if shouting is None:  # a line in capitals has no acronyms to keep
            shouting = _shouting(sum(map(_capital, words)), len(words))
        units = []
        for i, j, joined, by in spans:
            if joined is not None:
                raw = tokenize.join(words[i:j + 1], [""] + gaps[i + 1:j + 1] + [""])
                found = {joined: {by: 1.0}}
                if joined not in self.lexicon:  # intruded and attacked again: read it on
                    found = {reading: {**mine, by: 0.5}
                             for reading, mine in self._propose(joined, skip=by).items()}
                units.append(Unit(i, j, "", raw, "", "".join(map(read, words[i:j + 1])),
                                  found))
                continue
            head, stem, tail = tokenize.stem(words[i])
            if tail.lower().replace("’", "'") == "n't" and stem.lower() in NEGATED:
                units.append(Unit(i, i, "", words[i], "", words[i], {}))  # can't: not ca + n't
                continue
            if (head or tail) and any(r.keeps_whole(words[i], head, stem, tail)
                                      for r in restorers):
                head, stem, tail = "", words[i], ""
            seen = read(stem)
            if len(stem) == 1 and not stem.isascii() and seen.lower() in ("a", "i") \
                    and i not in protected and "visual" in self.restorers:
                # a look-alike of the words "a" and "I" (Greek Α): the only one-letter change
                units.append(Unit(i, i, head, stem, tail, seen, {seen.lower(): {"visual": 1.0}}))
                continue
            acronym = not shouting and stem.isupper() and stem.isalpha() and len(stem) <= 4
            tag_word = i in tags and (self.context.known(stem.lower()) or len(stem) < NONWORD_MIN)
            if not propose or not MIN_LENGTH <= tokenize.length(stem) <= MAX_LENGTH \
                    or i in protected and i not in tags or tag_word or acronym or i in paired \
                    or self._spelled(stem) or self.context.usual(stem.lower()):
                units.append(Unit(i, i, head, stem, tail, seen, {}))
                continue
            found = self._propose(stem)
            if seen != stem and seen.lower() not in self.lexicon \
                    and not any(by.get("visual", 0.0) == 1.0 for by in found.values()):
                # look-alikes undone, the word may still be shuffled, cut, mistyped …
                for reading, by in self._propose(seen, skip="visual").items():
                    mine = found.setdefault(reading, {})
                    mine.update(by, visual=max(mine.get("visual", 0.0), 0.5))
            found.pop(stem.lower(), None)
            if i in tags:  # a hashtag stays one word: #mentalillness is not split
                found = {r: by for r, by in found.items() if " " not in r}
            units.append(Unit(i, i, head, stem, tail, seen, found, asked=True))
        for unit in units:
            unit.opens = _opens(unit, gaps)
            unit.compound = _compound(unit, gaps)
        return units

    def _apostrophes(self, text: str, words: list[str], gaps: list[str]
                     ) -> tuple[list[str], list[str]]:
        """The words of ``text`` with the look-alikes of the apostrophe that the visual
        restorer knows read as the apostrophe (`apostrophes`); as they were without it, or
        in a line of ASCII (none of them is ASCII)."""
        visual = self.restorers.get("visual")
        if visual is None or text.isascii():
            return words, gaps
        return apostrophes(words, gaps, visual.apostrophes, self.lexicon, visual.read)

    def _spelled(self, stem: str) -> bool:
        """An accented word spelled right (café, crème, José, Málaga) is no attack: left alone
        unless its plain form is a common English word (thé for *the*, wàter), which the ranker
        decides with ``keep_accented``. Nor is a Hawaiian word with its ʻokina before a vowel
        (Hawaiʻi, Oʻahu, ʻokina): no attack here draws ʻ for a letter, only for an apostrophe.
        Nor is an American spelling or a derived word the lexicon lacks (`spelling`: marveled,
        impetuousness), in one case throughout (a capital inside marks an attacked letter:
        `marked`)."""
        if stem.isascii():
            low = stem.lower()
            return (stem[1:].islower() or stem.isupper()) and low not in self.lexicon \
                and spelled_right(low, self.lexicon)
        if _OKINA.fullmatch(stem):
            return True
        if not is_accented_word(stem):
            return False
        return self.lexicon.logfreq(plain(stem.lower())) < COMMON

    def _propose(self, stem: str, skip: str = "") -> dict[str, dict[str, float]]:
        """Reading → {restorer: confidence} for one stem."""
        found: dict[str, dict[str, float]] = {}
        for name, restorer in self.restorers.items():
            if name != skip:
                for reading, confidence in restorer.candidates(stem).items():
                    found.setdefault(reading, {})[name] = confidence
        return found

    def _rows(self, units: list[Unit], k: int, evidence: dict[str, float],
              context: list[str | None]) -> tuple[list[str], np.ndarray]:
        unit = units[k]
        left = context[k - 1] if k else None
        right = context[k + 1] if k + 1 < len(units) else None
        capital = unit.stem[:1].isupper() and k > 0
        return token_features(self.lexicon, unit.stem, unit.low, capital, unit.candidates,
                              left and left.split()[-1], right and right.split()[0], evidence,
                              unit.template.lower())

    def evidence(self, units: list[Unit]) -> dict[str, float]:
        return line_evidence(self.lexicon, [(u.low, u.candidates, u.template.lower())
                                            for u in units])

    def _decide(self, units: list[Unit], evidence: dict[str, float], context: list[str | None],
                windows: list[Window], anchors: frozenset[str] = frozenset()
                ) -> list[str | None]:
        """The reading each unit changes to (None: it stays), given its neighbours' readings
        (``context``, and the words around it: ``windows``) and the ``anchors``' words."""
        chosen: list[str | None] = []
        for k, unit in enumerate(units):
            if self._web_word(unit):
                chosen.append(None)
                continue
            if not unit.candidates or unit.low in anchors:
                chosen.append((self._derived(unit) or self._guess(unit, windows[k]))
                              if unit.asked and not unit.candidates else None)
                continue
            if anchors and unit.low not in self.lexicon \
                    and unit.template.lower() not in self.lexicon \
                    and (found := self._anchored(unit, anchors, windows[k])):
                chosen.append(found)
                continue
            if anchors and (found := self._pair_guess(unit, windows[k])):
                chosen.append(found)
                continue
            if self.marked and unit.start == unit.end \
                    and (found := marked_readings(unit.stem, self.lexicon)):
                chosen.append(max(found, key=lambda r: (self.context.score(r, windows[k]), r)))
                continue
            readings, rows = self._rows(units, k, evidence, context)
            probs = self.ranker.probabilities(rows)
            best = int(probs.argmax())
            if best and probs[best] >= self.ranker.threshold:
                over = self._overrule(unit, k, readings, readings[best], windows[k])
                chosen.append(over or readings[best])
            else:
                chosen.append(self._unsure(unit, k, readings, probs, windows[k]))
        return [(None if self._inflection(unit, reading) else reading) if reading
                else self._web_reading(unit) for unit, reading in zip(units, chosen)]

    @functools.cached_property
    def webwords(self):
        return load_web_words(self.lexicon)

    def _web_word(self, unit: Unit) -> bool:
        """Whether the unit is a word of wordfreq's list the lexicon lacks (`webwords`:
        ``sayles``, ``pearce``, ``lackluster``), as written (ASCII, no capital inside): a name
        or a rare word, not an attack on a lexicon word."""
        return self.web_words and unit.start == unit.end and unit.stem.isascii() \
            and (unit.stem[1:].islower() or unit.stem.isupper()) \
            and unit.low not in self.lexicon and self.webwords.knows(unit.low)

    def _web_reading(self, unit: Unit) -> str | None:
        """The reading of a lower-case non-word no text has used (`_never_used`) that every
        other rule leaves: the one word of wordfreq's list one edit away with its first letter
        (`WebWords.near`: ``sayels`` is *sayles*, ``siderbergh`` *soderbergh*). Not two
        lexicon words written together (``pitbull``), nor a hyphenated compound's piece."""
        seen = unit.template.lower()
        if not self.web_words or not unit.asked or not unit.stem.islower() or unit.compound \
                or unit.start != unit.end or len(seen) < WEB_MIN_LENGTH - 1 \
                or not seen.isascii() or self.webwords.knows(seen) \
                or not self._never_used(seen) or joined(seen, 0, self.lexicon, least=3):
            return None
        return self.webwords.near(seen)

    def _inflection(self, unit: Unit, reading: str) -> bool:
        """Whether ``reading`` is another inflection of the unit's dictionary word
        (`context.inflected`): ``manages`` stays, not *managed*. An attack that puts one for
        the other changes little that a reader's grammar would not accept, and the context
        cannot tell the attack's from the writer's. A marked letter (`marked`) is read as
        marked, and a reading that only adds letters stays one (the truncate attack's)."""
        return unit.low in self.lexicon and marked(unit.stem) is None \
            and inflected(unit.low, reading) and not reading.startswith(unit.low)

    def _unsure(self, unit: Unit, k: int, readings: list[str], probs: np.ndarray,
                window: Window) -> str | None:
        """What a unit the ranker is unsure of changes to: nothing unless it is a non-word
        (`_nonword`); then its best reading when keeping it is unlikely (``nonword_keep``),
        else the noisy channel's (`_channel_best`)."""
        if self._short(unit, k):  # with ``guess``, among every word one edit away first
            return self._guess(unit, window, readings, probs) \
                or (self._channel_best(unit, readings, window)
                    if self.channel_margin is not None else None)
        if not self._nonword(unit, k, names=True):
            return None
        if not self._nonword(unit, k):  # a capitalised non-word inside the line: a name …
            if self.channel_names is None or self.channel_margin is None:
                return None
            # … unless one edit inside it (its first and last letters kept: not Gare for Are,
            # Fulk for Full) makes it a common word no other such reading comes near
            found = self._channel_best(unit, readings, window, ends=True)
            if found and self.lexicon.logfreq(found) >= self.channel_names:
                return found
            return self._unseen(unit, readings, window, capital=True)
        if self.nonword_keep is not None and probs[0] <= self.nonword_keep:
            pick = _ranker_best(readings, probs)
            return self._overrule(unit, k, readings, pick, window) or pick
        found = None
        if self.channel_margin is not None:
            found = self._channel_best(unit, readings, window) \
                or self._unseen(unit, readings, window) \
                or self._derived(unit)
        return found or self._guess(unit, window, readings, probs)

    def _guess(self, unit: Unit, window: Window, readings: Sequence[str] = (),
               probs: np.ndarray | None = None) -> str | None:
        """With ``guess``, the reading of a lower-case non-word no text has used
        (`_never_used`) that the other rules leave: among the restorers' ``readings`` and every
        lexicon word one edit away, the one that reads best in its window (`Context.score`),
        however close the next (``bdring`` in *staggeringly bdring cinema*: *boring*, not
        *bring*), else the ranker's best reading (``probs``). Every edit counts alike, not as
        the noisy channel weighs people's typos: an attack edits any letter (``ilm`` in
        *strongest ilm since* is *film*, not the likelier typo *ilk*). Kept as typed, such a
        token tells a robust encoding nothing it can read; read, it is the likeliest word.
        None: off, or a token of real writing (slang, a name, a capital)."""
        seen = unit.template.lower()
        if not self.guess or not unit.stem.islower() or unit.compound \
                or unit.start != unit.end or not (seen.isascii() and self._never_used(seen)):
            return None
        near = self._one_edit(seen, readings[1:])
        if near:
            return max(near, key=lambda r: (self.context.score(r, window), r))
        return _ranker_best(readings, probs) if probs is not None and len(probs) > 1 else None

    def _pair_guess(self, unit: Unit, window: Window) -> str | None:
        """With ``pair_guess`` or ``guess``, a hypothesis non-word (the text has an anchor: a
        pair's premise) that
        no anchor word explains (`_anchored`), read before the ranker as the lexicon word one
        edit away (or the restorers' reading one edit away) likeliest by its window
        (`Context.score`) and by how DeepWordBug's edits make the token from it
        (`_attack_odds`): ``The bird is flying over the treens`` is *trees*, not the ranker's
        *greens*; ``Thery are peeps`` *They*, not *Theory*. A hypothesis is short and plain,
        so a confident ranker's reading of a one-edit token is what an adaptive attack steers
        (12 of the 17 pairs that got through on an SNLI dev slice: the lab note of 2026-12-07,
        defend-snli-pair-guess); the window and the edits weigh every one-edit word alike.
        Lower case, or capitalised at a sentence's start; letters only, used in some text or not:
        a hypothesis is written plainly, and the short tokens of tweets are what the attack makes
        of its words (``for fn`` is *fun*, ``Two sd men`` *sad*, ``Ny one`` *No*: kept, they were
        `unkword` to the encoding, which the MiniLM behind it reads as nothing said; the lab note
        of 2026-12-07, defend-snli-real-words). None: off, or no such word. On by default since
        it changed no clean hypothesis word of 2,000 SNLI dev pairs (two since it reads short
        tokens: *motorcycled*, *gi*) and turned back three more of the dev texts of TextAttack's
        recipes (the lab note of 2026-12-07, shield-pair-guess-default)."""
        seen = unit.template.lower()
        if not (self.pair_guess or self.guess) or unit.compound or unit.start != unit.end \
                or unit.low in self.lexicon or seen in self.lexicon \
                or not (unit.stem.islower() or unit.opens and unit.stem[1:].islower()) \
                or not (seen.isascii() and seen.isalpha()):
            return None
        near = self._one_edit(seen, unit.candidates)
        if not near:
            return None
        return self._attacked_from(seen, near, window)[1]

    def _attacked_from(self, seen: str, words: Iterable[str], window: Window,
                       odds: Callable[[str, str], float | None] | None = None
                       ) -> tuple[float, str]:
        """(score, word) of the word among ``words`` likeliest to have been attacked into
        ``seen``: its window's score (`Context.score`) plus how an attack's edits make ``seen``
        from it (``odds``: DeepWordBug's, `_attack_odds`; Pruthi's, `_inner_odds`); a tie to
        the word that sorts last. ``words`` is not empty, and ``odds`` defined for each."""
        odds = odds or _attack_odds
        return max((self.context.score(w, window) + odds(seen, w), w) for w in words)

    def _one_edit(self, seen: str, readings: Iterable[str]) -> set[str]:
        """The lexicon words one edit from ``seen``: its neighbours and those of ``readings``
        (the restorers') that are single lexicon words one edit away."""
        return {r for r in [*readings, *neighbours(self.lexicon, seen)]
                if " " not in r and r in self.lexicon and DamerauLevenshtein.distance(seen, r) == 1}

    def _derived(self, unit: Unit) -> str | None:
        """A derived word whose stem was mistyped, read as its stem's word with the suffix
        (`spelling.SUFFIXES`): ``tresomely`` is *tiresome* + *ly*. The restorers propose
        lexicon words, and the lexicon lacks most derived words (tiresomely), so none proposes
        it. In lower case, a non-word no text or list has used (`_never_used`), its stem of
        ``MIN_STEM`` letters or more one edit from a lexicon word it may be a slip in
        (`_slip_of`) that the noisy channel, weighed with the word's frequency, puts
        ``UNSEEN_MARGIN`` ahead of every other."""
        seen = unit.template.lower()
        if not unit.stem.islower() or unit.compound or not seen.isascii() \
                or not self._never_used(seen):
            return None
        channel = load_channel()
        for suffix in SUFFIXES:
            base = seen[:-len(suffix)]
            if not seen.endswith(suffix) or len(base) < MIN_STEM or base in self.lexicon:
                continue
            scored = sorted(((channel.score(base, w) + self.lexicon.logfreq(w), w)
                             for w in neighbours(self.lexicon, base) if _slip_of(base, w)),
                            reverse=True)
            if scored and (len(scored) == 1 or scored[0][0] - scored[1][0] >= UNSEEN_MARGIN):
                return scored[0][1] + suffix
        return None

    def _unseen(self, unit: Unit, readings: list[str], window: Window,
                capital: bool = False) -> str | None:
        """The noisy channel's reading of a non-word that no text the context model read and
        no language's list has used (`language.known`): not slang or a name, so an attack's
        or a typo's. In lower case it may read as a rarer word (``channel_unseen``) one edit
        away, its first and last letters kept, ``UNSEEN_MARGIN`` ahead of the next reading:
        ``cronsiders`` is *considers*, ``fisges`` *fishes*; not with a doubled letter dropped
        (``herrmann``, one name's other spelling) nor as a piece of a hyphenated compound.
        Capitalised inside the line (``capital``), where names are, only its first letter may
        have been put for another, to a common word (``channel_freq``) ``channel_over`` ahead:
        ``Ucreaming`` is *Screaming*, ``Cideo`` *Video* (DeepWordBug's capitals)."""
        seen = unit.template.lower()
        if self.channel_unseen is None or self.channel_margin is None or unit.compound \
                or not self._never_used(seen):
            return None
        if capital:
            if self.channel_over is None:
                return None
            found = self._channel_best(unit, readings, window, margin=self.channel_over)
            fits = found and len(found) == len(seen) and found[1:] == seen[1:]
        else:
            found = self._channel_best(unit, readings, window, margin=UNSEEN_MARGIN,
                                       floor=self.channel_unseen)
            fits = unit.stem.islower() and found and _slip_of(seen, found)
        return found if fits else None

    def _never_used(self, seen: str) -> bool:
        """Whether ``seen`` (lower case) is letters that no text the context model read and no
        language's list (`language.known`) has used: not slang or a name, so an attack's or a
        typo's."""
        return seen.isalpha() and not self.context.known(seen) and not known(seen)

    def _channel_best(self, unit: Unit, readings: list[str], window: Window,
                      ends: bool = False, margin: float | None = None,
                      floor: float | None = None) -> str | None:
        """The noisy channel's reading of a non-word the ranker leaves: among the single-word
        readings (with the token's first and last letters if ``ends``), the best by how it
        reads in its window (`Context.score`) + log10 P(token | word) (`channel`, letter
        confusions learnt from real typos), if it is one edit from the token
        (a letter put for another, added, dropped, two swapped), a common word
        (``floor``, default ``channel_freq``) and ahead of the next by ``margin`` (default
        ``channel_margin``).
        The ranker weighs frequency about four times the channel (``stuid``: solid .08,
        stupid .03, keep .61); one edit to a common word that no other reading comes near is
        what a typo looks like."""
        seen = unit.template.lower()
        if not (seen.isascii() and seen.isalpha()):
            return None
        margin = self.channel_margin if margin is None else margin
        channel, lexicon = load_channel(), self.lexicon
        scored = sorted(((self.context.score(r, window) + channel.score(seen, r), r)
                         for r in readings[1:] if " " not in r and r in lexicon
                         and not (ends and (r[0] != seen[0] or r[-1] != seen[-1]))),
                        reverse=True)
        if not scored:
            return None
        score, best = scored[0]
        if DamerauLevenshtein.distance(seen, best) != 1 \
                or lexicon.logfreq(best) < (self.channel_freq if floor is None else floor) \
                or len(scored) > 1 and score - scored[1][0] < margin:
            return None
        return best

    def _overrule(self, unit: Unit, k: int, readings: list[str], pick: str,
                  window: Window) -> str | None:
        """The noisy channel's reading of a non-word in place of the ranker's ``pick``, when
        the channel's is one edit from the token and ahead of every other reading, the pick
        included, by ``channel_over`` (`_channel_best`): ``doD`` barks is *dog*, not the
        shuffle *odd*; ``xall`` human is *tall*, not *call*. None: the pick stands, and always
        when it is several words (a segmentation the channel does not judge). A short non-word
        too (``Hv`` is reading: *He*, not *Have*): the token changes either way, so the length
        that keeps short non-words of real writing (`_nonword`) has nothing to keep here; for
        the same reason the channel's reading may be any lexicon word, however rare (``stagy
        and stilhed``: *stilted*, log10 −6.7, not *settled*), where alone it needs a common one
        (``channel_freq``)."""
        if self.channel_over is None or " " in pick \
                or not self._nonword(unit, k, names=True, least=MIN_LENGTH):
            return None
        found = self._channel_best(unit, readings, window, margin=self.channel_over,
                                   floor=-np.inf)
        return found if found != pick else None

    def _short(self, unit: Unit, k: int) -> bool:
        """Whether the unit is a non-word of ``SHORT`` letters that the noisy channel alone may
        change (``sht``, ``rch``, ``nw``: a word cut or mistyped): in lower case (not an
        acronym or a name), no lexicon word, and never used in the context model's training
        text, where the short non-words of real writing are (lol, smh, idk, ur)."""
        return len(unit.stem) in SHORT and unit.stem.isalpha() and unit.stem.islower() \
            and bool(unit.candidates) and unit.low not in self.lexicon \
            and not self.context.known(unit.low) and self.context.model is not None

    def _nonword(self, unit: Unit, k: int, names: bool = False, least: int = NONWORD_MIN
                 ) -> bool:
        """Whether the unit is a non-word that may change below the ranker's threshold (on
        ``nonword_keep`` or the noisy channel): no lexicon word as typed or as read,
        ``least`` letters or more (by default ``NONWORD_MIN``: oh, mr, lol, short non-words, are
        often words the lexicon lacks), and not a capitalised name inside a sentence (Gare,
        Noida; a capital that starts one, ``won't! Idoits!``, says nothing of a name:
        `_opens`). Several readings close to the threshold (``Firts``: first .45, keep .27) mean
        the token was changed, not that it is a word, yet the threshold alone leaves it."""
        return unit.low not in self.lexicon \
            and unit.template.lower() not in self.lexicon and len(unit.candidates) > 0 \
            and len(unit.stem) >= least \
            and (names or not (not unit.opens and unit.stem[:1].isupper()
                               and unit.stem[1:].islower()))

    def _anchored(self, unit: Unit, anchors: frozenset[str], window: Window) -> str | None:
        """The anchor's word one edit (a letter put for another, added, dropped, two swapped)
        from the unit as a reader sees it, the best in its window where several are: in a
        sentence pair the attack changes the hypothesis and the premise stays as written, so
        ``Bos`` under *The boys are playing* is *Boys* and ``tip`` under *a field trip* is
        *trip*. An attacker gains nothing by a token that reads as a premise word: the pair
        then says what it said unattacked."""
        seen = unit.template.lower()
        if unit.start != unit.end or not seen.isascii() or not seen.isalpha():
            return None
        near = [w for w in anchors if len(w) >= 3 and abs(len(w) - len(seen)) <= 1
                and w not in ENGLISH and DamerauLevenshtein.distance(seen, w) == 1
                and not inflected(seen, w) and not _undoubled(w, seen)]
        return max(near, key=lambda w: (self.context.score(w, window), w)) if near else None

    def _context(self, units: list[Unit], gaps: list[str], tally: Tally,
                 anchors: frozenset[str] = frozenset()
                 ) -> tuple[dict[str, float], list[str | None], list[bool]]:
        """The line's evidence, each unit's neighbours' readings for the final decision and
        where its clauses start (`_cuts`): a first pass decides with the neighbours read
        provisionally, the final one with the first pass's readings (a restored neighbour is
        better context than a guess). The context models' mixture is fitted to the line's
        words as typed first (`Context.fit`: a film review is read with the reviews' model);
        the line's evidence and words are ``tally``'s (the whole line's, read in pieces)."""
        self.context.fit(tally.words_read)
        evidence, cuts = evidence_shares(tally.evidence), _cuts(units, gaps)
        provisional = [u.provisional(self.lexicon) for u in units]
        first = self._decide(units, evidence, provisional, self._windows(units, provisional, cuts),
                             anchors)
        return evidence, [c or p for c, p in zip(first, provisional)], cuts

    def _windows(self, units: list[Unit], read: list[str | None], cuts: list[bool]
                 ) -> list[Window]:
        return self.context.windows(read, cuts, [u.tail.replace("’", "'") for u in units])

    def _real_words(self, units: list[Unit], cuts: list[bool], chosen: list[str | None],
                    protected: set[int], shouting: bool, anchors: frozenset[str] = frozenset()
                    ) -> list[str | None]:
        """``chosen`` with the dictionary words kept so far read again in context
        (`context.RealWords`): a word whose neighbours, as restored, call for another word
        one edit away changes to it. Neighbours across punctuation do not count. An anchor's
        word one edit away (`_anchored`) needs only ``anchor_gain``: ``act`` in *A act nurses
        puppies* under a premise with *cat* is *cat*, *the all of a raised foundation* under
        *the wall of …* is *wall* (gain 1.8); any other word of a text read against an anchor
        may be DeepWordBug's (`_pair_real`), and of a text read alone Pruthi's (`_inner_real`).
        ``shouting``: most of the line's units are in capitals (`Tally`)."""
        read = [c or (u.low if u.low in self.lexicon else None) for u, c in zip(units, chosen)]
        windows = self._windows(units, read, cuts)
        out = list(chosen)
        for k, unit in enumerate(units):
            if chosen[k] is not None or unit.start != unit.end or unit.start in protected \
                    or not (unit.stem.isascii() and unit.stem.isalpha()) \
                    or (k and unit.stem[:1].isupper() and not shouting) \
                    or unit.low in anchors:
                continue
            if anchors and self.anchor_gain is not None \
                    and (found := self._anchored(unit, anchors, windows[k])) \
                    and self.context.score(found, windows[k]) \
                    - self.context.score(unit.low, windows[k]) >= self.anchor_gain:
                out[k] = found
                continue
            found = self.real_words.correct(unit.low, windows[k])
            if found is None:
                found = self._pair_real(unit, windows[k]) if anchors \
                    else self._inner_real(unit, windows[k])
            if found is not None:
                out[k] = found
        return out

    def _pair_real(self, unit: Unit, window: Window) -> str | None:
        """With ``pair_guess`` or ``guess``, a dictionary word of a hypothesis (a text read
        against an anchor) that the word one edit away likeliest by its window and by how
        DeepWordBug's edits make the token from it (`_attack_odds`) beats by ``PAIR_SURE``
        (log10), however common either word: ``wearing lack walking`` is *black*, ``A mean is
        riding`` *man*, ``is laying basketball`` *playing*. The real-word pass (`RealWords`)
        keeps common words and asks for the first and last letters, for the typos of people;
        DeepWordBug edits any letter of any word, and its real words were half of what still got
        through on SNLI dev slices. On 1,000 held-out clean SNLI test pairs one hypothesis word
        of 2,930 reads so well (*fan* → *man*, 3.55); never another inflection of the token,
        nor a word of one or two letters (*a*, *in*: one edit from too many words)."""
        if not (self.pair_guess or self.guess) or len(unit.low) < 3:
            return None
        near = [w for w in neighbours(self.lexicon, unit.low) if not inflected(unit.low, w)]
        if not near:
            return None
        score, best = self._attacked_from(unit.low, near, window)
        return best if score - self.context.score(unit.low, window) >= PAIR_SURE else None

    def _inner_real(self, unit: Unit, window: Window) -> str | None:
        """A common dictionary word of a text read alone (no anchor) that a word Pruthi et
        al.'s attack could have made it from (`_inner_odds`: one inner letter swapped, dropped,
        added or put for a QWERTY neighbour, the first and last letters kept, a word of four
        letters or more) reads as, when that word's window and the edit's odds beat the token's
        window by ``inner_sure`` (log10): ``rather a god time`` is *good*, ``deadly bring``
        *boring*, ``broke as sit but`` *shit*. The attack's real words are common words made
        from common words, which the real-word pass (`RealWords`) never questions; a rare word
        is left to that pass's bounds (`Context.common`: *rife* in *the army was rife with*
        stays, though *ride* reads 2.2 likelier). Only with a neighbour on either side to speak
        for it, as in `RealWords`. On the dev probes' clean text (held-out tweets, EWT dev,
        movie-review dev) it changed one token, a writer's slip (``i red somewhere`` →
        *read*)."""
        left, right = window
        if self.inner_sure is None or unit.low not in self.lexicon \
                or not self.context.common(unit.low) \
                or all(w in (None, START, END) for w in left[-1:] + right[:1]):
            return None
        near = self._inner_near.get(unit.low)
        if near is None:  # the same for every window: found once per word (a lexicon word)
            near = self._inner_near[unit.low] = [
                w for w in neighbours(self.lexicon, unit.low)
                if not inflected(unit.low, w) and _inner_odds(unit.low, w) is not None]
        if not near:
            return None
        score, best = self._attacked_from(unit.low, near, window, _inner_odds)
        return best if score - self.context.score(unit.low, window) >= self.inner_sure else None

    def restore(self, text: str, anchor: str | None = None) -> str:
        """``text`` with the attacked words it is sure of restored; everything else as it was.
        ``anchor``: a text written as meant that ``text`` is read against (a pair's premise,
        for its hypothesis): its words stay, and a word one edit from one of them reads as it
        (`_anchored`). A line of more than ``LONG`` chunks is read a piece at a time
        (`_pieces`), in the memory of a piece, each word as the whole line read at once reads
        it: the line's tally (`Tally`) is added up piece by piece first."""
        if not isinstance(text, str):
            raise ValueError(f"the shield restores text (str), got {type(text).__name__}")
        if anchor is not None and not isinstance(anchor, str):
            raise ValueError(f"the shield's anchor is text (str), got {type(anchor).__name__}")
        anchors = anchor_words(anchor) if anchor else frozenset()
        pieces = list(_pieces(text))
        if len(pieces) == 1:
            return self._restore(text, anchors)
        tally = self._line_tally(text, pieces)
        return "".join(self._restore(text[start:end], anchors, tally, lo - start, hi - start)
                       for start, lo, hi, end in pieces)

    def _read(self, text: str) -> tuple[list[str], list[str], list[str], set[int]]:
        """``(words, gaps, given, protected)``: the words of ``text`` as the units are made of
        them (placeholders, hashtags and moved hyphens read), its gaps, its words as split
        (the characters each stands for) and the protected ones (`_protected`)."""
        words, gaps = self._apostrophes(text, *split(text))
        given = words
        if self.placeholders:
            words = placeholders(words, gaps, self.context.known)
        if self.hashtags:
            words = self._hashtags(words, gaps)
        protected = _protected(words, gaps)  # the hyphen pass moves no mark: the same after
        if self.hyphens:
            words = hyphens(words, gaps, self.lexicon, self.context.pair, protected)
        return words, gaps, given, protected

    def _line_tally(self, text: str, pieces: list[tuple[int, int, int, int]],
                    shouting: bool = False) -> Tally:
        """The tally of a long line, added up over the words each of its ``pieces`` restores,
        their units made as for a line in capitals (``shouting``) or not, and made again the
        other way when the line's words say otherwise (they do not depend on the units)."""
        tally = self._tally()
        for start, lo, hi, end in pieces:
            words, gaps, given, protected = self._read(text[start:end])
            a, b = _within(given, gaps, lo - start, hi - start)
            units = [u for u in self.units(words, gaps, shouting=shouting) if a <= u.start < b]
            tally.add(words[a:b], units, protected)
        if tally.shouting != shouting:
            return self._line_tally(text, pieces, tally.shouting)
        return tally

    def _tally(self) -> Tally:
        return Tally(self.lexicon, self.context)

    def _restore(self, text: str, anchors: frozenset[str], tally: Tally | None = None,
                 lo: int = 0, hi: int | None = None) -> str:
        """The restored ``text[lo:hi]``, its words read with all of ``text`` around them, by
        the line's ``tally`` (None: ``text`` is the whole line)."""
        words, gaps, given, protected = self._read(text)
        if not words:
            return text[lo:hi]
        units = self.units(words, gaps, shouting=None if tally is None else tally.shouting)
        tally = tally or self._tally().add(words, units, protected)
        if not tally.english:
            return text[lo:hi]
        out_words, out_gaps = list(words), list(gaps)
        evidence, context, cuts = self._context(units, gaps, tally, anchors)
        chosen = self._decide(units, evidence, context, self._windows(units, context, cuts),
                              anchors)
        if self.real_words is not None:
            chosen = self._real_words(units, cuts, chosen, protected, tally.units_shouting,
                                      anchors)
        for unit, reading in zip(units, chosen):
            if reading is None:
                continue
            out_words[unit.start] = unit.head + match_case(unmarked(unit.template), reading) \
                + unit.tail
            for w in range(unit.start + 1, unit.end + 1):  # the pieces of an intruded word
                out_words[w], out_gaps[w] = "", ""
        return _cut(given, gaps, out_words, out_gaps, lo, len(text) if hi is None else hi)

    def _hashtags(self, words: list[str], gaps: list[str]) -> list[str]:
        """``words`` with each whole hashtag of several words read word by word
        (`hashtags.read_tag`): ``#GeratAwakening`` is *#GreatAwakening*."""
        out = list(words)
        for i in _tags(words, gaps):
            if words[i].isascii():
                out[i] = read_tag(words[i], self._tag_word, self._tag_typo, self.restore,
                                  self.context.fluency) or words[i]
        return out

    def _tag_word(self, piece: str) -> float | None:
        """log10 frequency of ``piece`` as a word of a hashtag (`Context.logfreq`), None for
        no word or a short one too rare to cut a tag at (`segment.SHORT_PARTS`)."""
        freq = self.context.logfreq(piece)
        if freq is None or freq < SHORT_PARTS.get(len(piece), freq):
            return None
        return freq

    def _tag_typo(self, piece: str) -> float | None:
        """How likely the non-word ``piece`` of a hashtag is a typo of a common word
        (``channel_freq``) one edit away: the best reading's log10 frequency plus the typo
        channel; None when no text uses it and no such word is near."""
        if self.context.known(piece):
            return None
        channel = load_channel()
        return max((self.lexicon.logfreq(w) + channel.score(piece, w)
                    for w in neighbours(self.lexicon, piece)
                    if len(w) >= EDITED and self.lexicon.logfreq(w) >= self.channel_freq),
                   default=None)

    def restore_many(self, texts: Iterable[str]) -> Iterator[str]:
        """Restore lines one by one (streaming)."""
        for text in texts:
            yield self.restore(text)

    def __call__(self, texts: str | Sequence[str]):
        if isinstance(texts, str):
            return self.restore(texts)
        if not isinstance(texts, Iterable):  # None, a number: say what the shield takes
            raise ValueError(f"the shield restores a str or a sequence of str, got "
                             f"{type(texts).__name__}")
        return list(self.restore_many(texts))

    # -- training ----------------------------------------------------------------------------
    def training_rows(self, perturbed: str, clean: str) -> list[tuple[np.ndarray, int, str]]:
        """``(rows, gold, mechanisms)`` for every word of ``perturbed`` aligned with a word (or
        words) of ``clean`` whose reading is among its candidates: what `train.shield` fits the
        ranker on. ``mechanisms`` names the restorers that proposed the gold reading ("" when it
        is the word itself)."""
        words, gaps = self._apostrophes(perturbed, *split(perturbed))
        if not words:
            return []
        units = self.units(words, gaps)
        evidence, context, _ = self._context(units, gaps, self._tally().add(words, units))
        gold = [tokenize.stem(w)[1].lower() for w in tokenize.split(clean)[0]]
        mine = [u.low for u in units]
        out = []
        matcher = difflib.SequenceMatcher(None, mine, gold, autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op == "equal" or (op == "replace" and a1 - a0 == b1 - b0):
                pairs = list(zip(range(a0, a1), gold[b0:b1]))
            elif op == "replace" and a1 - a0 == 1:
                pairs = [(a0, " ".join(gold[b0:b1]))]  # joined words
            else:
                continue
            for k, target in pairs:
                if target != units[k].low and target not in units[k].candidates:
                    continue
                readings, rows = self._rows(units, k, evidence, context)
                index = readings.index(target)
                out.append((rows, index, ",".join(units[k].candidates.get(target, {}))))
        return out


def split(text: str) -> tuple[list[str], list[str]]:
    """`tokenize.split`, with the symbols that spell a letter (ⓐ, ⒜: `visual.name_letter`)
    taken as letters and the characters a reader does not see (zero-width spaces and joiners,
    soft hyphens: `visual.invisible`) as marks on the letter before them, so that a word
    written with them stays one word."""
    if text.isascii():
        return tokenize.split(text)
    masked = "".join("x" if unicodedata.category(c)[0] in "SP" and name_letter(c)
                     else "\u0301" if unicodedata.category(c) == "Cf" else c for c in text)
    if masked == text:
        return tokenize.split(text)
    words, gaps, position = [], [], 0
    masked_words, masked_gaps = tokenize.split(masked)
    for k, gap in enumerate(masked_gaps):
        gaps.append(text[position:position + len(gap)])
        position += len(gap)
        if k < len(masked_words):
            words.append(text[position:position + len(masked_words[k])])
            position += len(masked_words[k])
    return words, gaps


def _pieces(text: str, size: int | None = None, reach: int | None = None
            ) -> Iterator[tuple[int, int, int, int]]:
    """``(start, lo, hi, end)`` for each piece a line is read in: its characters ``lo..hi``
    are restored, read with ``start..end`` around them. A line of ``size`` chunks (runs
    between whitespace; default ``LONG``) or fewer is one piece, a longer one is cut before
    every ``size``-th chunk with ``reach`` chunks (default ``REACH``) of context on either
    side: a word's reading depends on the units up to six away (its window's two words, read
    in a first pass from windows two further, the real-word pass's two more), each of at most
    `intrude.MAX_PIECES` (16) chunks: with ``reach`` over 7 × 16 chunks the units a restored
    word depends on are made as in the whole line, those cut at the piece's edge too far off
    to matter. A cut is right after whitespace: no word holds it, and the gap it falls in
    either ends there or, two characters or more with whitespace, is one no join takes and no
    reading changes."""
    size, reach = size or LONG, reach or REACH
    marks = {}  # the chunk starts a piece begins or ends at, by chunk index
    count = 0
    for count, chunk in enumerate(_CHUNK.finditer(text), 1):
        if (count - 1) % size in (0, reach, size - reach):
            marks[count - 1] = chunk.start()
    for first in range(0, max(count, 1), size):
        last = first + size
        yield (marks.get(first - reach, 0), marks.get(first, 0) if first else 0,
               marks.get(last, len(text)), marks.get(last + reach, len(text)))


def _cut(words: list[str], gaps: list[str], out_words: list[str], out_gaps: list[str],
         lo: int, hi: int) -> str:
    """The restored text of the characters ``lo..hi`` of the text split as ``(words, gaps)``,
    whose restored words and gaps are ``out_words`` and ``out_gaps``. A gap that ``lo`` or
    ``hi`` cuts is one no reading changes (`_pieces`): its characters are kept as written."""
    parts, position = [], 0
    for k, gap in enumerate(gaps):
        for given, out in ((gap, out_gaps[k]),) + (((words[k], out_words[k]),)
                                                   if k < len(words) else ()):
            end = position + len(given)
            if lo <= position and end <= hi:
                parts.append(out)
            elif position < hi and lo < end:
                parts.append(given[max(lo - position, 0):hi - position])
            position = end
    return "".join(parts)


def anchor_words(text: str) -> frozenset[str]:
    """The words of an anchor text, lower case, letters only: a token that is one of them stays
    as written (a premise's *ad* keeps the hypothesis's *ad*, no lexicon word); one of three
    letters or more is also what a token one edit away may read as (`Shield._anchored`: a
    premise's *a*, *in*, *is* are one edit from too many tokens)."""
    return frozenset(stem.lower() for stem in (tokenize.stem(w)[1] for w in split(text)[0])
                     if stem.isascii() and stem.isalpha())


def apostrophe_word(word: str, lexicon: Lexicon) -> bool:
    """Whether ``word``, written with an apostrophe, is one a reader reads: a word and its
    clitic (don't, it's, they're; can't) or an Irish name (O'Brien)."""
    head, stem, tail = tokenize.stem(word)
    if head:
        return head == "O'" and not tail and stem.istitle()
    clitic = tail.lower()
    return clitic in tokenize.CLITICS and (stem.lower() in lexicon
                                  or clitic == "n't" and stem.lower() in NEGATED)


def apostrophes(words: list[str], gaps: list[str], looks: frozenset[str], lexicon: Lexicon,
                read) -> tuple[list[str], list[str]]:
    """``(words, gaps)`` with a look-alike of the apostrophe (``looks``) between two letters
    read as the apostrophe where the word it then makes, its letters as ``read`` sees them
    (Ï᾿m as I'm), is one a reader reads (`apostrophe_word`): don՚t, split by the tokenizer
    into don + t, is one word don't again, and itʼs (ʼ is a letter) is it's; the letters stay
    as written, for the restorers. Ukrainian's and Hawaiian's ʼ and ʻ (Hawaiʻi) stay."""
    out_words, out_gaps = [], [gaps[0]]
    for k, word in enumerate(words):
        gap = gaps[k]
        if out_words and len(gap) == 1 and gap in looks and out_words[-1][-1].isalpha() \
                and word[0].isalpha() \
                and apostrophe_word(read(out_words[-1]) + "'" + read(word), lexicon):
            out_words[-1] += "'" + word
            out_gaps[-1] = gaps[k + 1]
            continue
        inner = [i for i in range(1, len(word) - 1) if word[i] in looks
                 and word[i - 1].isalpha() and word[i + 1].isalpha()]
        if len(inner) == 1:
            at = inner[0]
            if apostrophe_word(read(word[:at]) + "'" + read(word[at + 1:]), lexicon):
                word = word[:at] + "'" + word[at + 1:]
        out_words.append(word)
        out_gaps.append(gaps[k + 1])
    return out_words, out_gaps


def _opens(unit: Unit, gaps: list[str]) -> bool:
    """Whether the unit starts a sentence: the line's first word, or one after a full stop,
    an exclamation or a question mark (``won't! Idoits!``)."""
    return unit.start == 0 or bool(_SENTENCE_END.search(gaps[unit.start] + unit.head))


def _ranker_best(readings: Sequence[str], probs: np.ndarray) -> str:
    """The restorers' reading (``readings[1:]``; ``readings[0]`` is the token kept) the ranker
    scores highest."""
    return readings[1 + int(probs[1:].argmax())]


def _attack_odds(token: str, word: str) -> float:
    """log10 P(``token`` | ``word``) for a token one edit from the word, up to a constant, as
    DeepWordBug makes it: one of its four operations at a place drawn uniformly (two adjacent
    letters swapped, one dropped, one put for another of 25, one of 26 added), so a swap or a
    drop is some 25 times likelier than a given substitution (``moneky``: *monkey*, not
    *money*)."""
    n = len(word)
    if len(token) == n - 1:
        return -math.log10(n)
    if len(token) == n + 1:
        return -math.log10(26 * (n + 1))
    if sum(a != b for a, b in zip(token, word)) == 2:  # one edit, two places: a swap
        return -math.log10(n - 1)
    return -math.log10(25 * n)


def _inner_odds(token: str, word: str) -> float | None:
    """log10 P(``token`` | ``word``), up to a constant, as Pruthi et al.'s attack makes it
    (TextAttack's Pruthi2019: words of four letters or more, one of four operations, never on
    the first or last letter), with each operation equally likely and its place drawn
    uniformly: two adjacent inner letters swapped, one dropped, one of 26 added, one put for
    one of its QWERTY neighbours (`qwerty`); None when no such edit makes ``token``."""
    n = len(word)
    if n < 4 or token[:1] != word[:1] or token[-1:] != word[-1:]:
        return None
    if len(token) == n - 1 and any(token == word[:i] + word[i + 1:] for i in range(1, n - 1)):
        return -math.log10(4 * (n - 2))  # an inner letter dropped
    if len(token) == n + 1 and any(word == token[:i] + token[i + 1:] for i in range(1, n)):
        return -math.log10(4 * (n - 1) * 26)  # a letter added inside
    if len(token) != n:
        return None
    at = [i for i, (a, b) in enumerate(zip(token, word)) if a != b]
    if len(at) == 2 and at[1] == at[0] + 1 and token[at[0]] == word[at[1]] \
            and token[at[1]] == word[at[0]]:
        return -math.log10(4 * (n - 3))  # two adjacent inner letters swapped
    if len(at) == 1:
        near = qwerty().get(word[at[0]], ())
        if token[at[0]] in near:
            return -math.log10(4 * (n - 2) * len(near))  # a QWERTY neighbour put
    return None


def _slip_of(token: str, word: str) -> bool:
    """Whether ``token`` may be a slip in ``word`` (one edit apart): their first and last letters
    the same, and not ``word`` with one of two doubled letters dropped (`_undoubled`)."""
    return token[0] == word[0] and token[-1] == word[-1] and not _undoubled(token, word)


def _undoubled(token: str, word: str) -> bool:
    """Whether ``word`` is ``token`` with one of two doubled letters dropped (herrmann,
    hermann): how spellings of one name differ, not how a random edit reads."""
    return len(token) == len(word) + 1 and any(
        token[i] == token[i + 1] and token[:i] + token[i + 1:] == word
        for i in range(len(token) - 1))


def _compound(unit: Unit, gaps: list[str]) -> bool:
    """Whether a hyphen joins the unit to the word before or after it."""
    return gaps[unit.start].endswith("-") \
        or unit.end + 1 < len(gaps) and gaps[unit.end + 1].startswith("-")


def _paired(words: list[str], gaps: list[str], context: Context) -> set[int]:
    """The pieces of a hyphenated compound the context model's text has used as it stands
    (``sci-fi``, ``self-aware``: the two pieces a stored bigram): a compound written as
    people write it, not an attacked word, though a piece alone (``fi``) reads as a typo."""
    found = set()
    for i in range(len(words) - 1):
        first, second = words[i].lower(), words[i + 1].lower()
        if gaps[i + 1] == "-" and first.isalpha() and second.isalpha() \
                and context.pair(first, second):
            found |= {i, i + 1}
    return found


def _cuts(units: list[Unit], gaps: list[str]) -> list[bool]:
    """Where a clause starts: at the line's first unit and at a unit with punctuation or a
    mark before it (a word's context stops there, as `train.shield.lm` cuts its text)."""
    return [k == 0 or bool(u.head) or bool(gaps[u.start].strip()) for k, u in enumerate(units)]


def _protected(words: list[str], gaps: list[str]) -> set[int]:
    """The words inside URLs, e-mail addresses, mentions, hashtags and file names, the two
    halves of a word an editor's brackets split (``[t]he``: `intrude.bracketed`) and a word an
    editor put in brackets of its own (``[sic]``, once read as *sick*): no attack writes them."""
    brackets = {k for i in range(len(words)) if bracketed(gaps, i) for k in (i, i + 1)}
    brackets |= {i for i in range(len(words)) if gaps[i].endswith("[")
                 and i + 1 < len(gaps) and gaps[i + 1].startswith("]")}
    text = tokenize.join(words, gaps)
    if not any(mark in text for mark in _MARKS) and not _FILE.search(text):
        return brackets
    spans = [m.span() for m in _CHUNK.finditer(text)
             if any(k in m.group() for k in _MARKS) or _FILE.search(m.group())]
    if not spans:
        return brackets
    found, position = brackets, 0
    for i, word in enumerate(words):
        position += len(gaps[i])
        if any(a <= position < b for a, b in spans):
            found.add(i)
        position += len(word)
    return found


def _tags(words: list[str], gaps: list[str]) -> set[int]:
    """The words that are a whole hashtag (``#Conservatives``, not ``#mental_illness``): an
    attack changes them as it changes any word (``#Conservatvies``) and a reader, or a model
    that reads the tag as a word, still sees the word. Only their body is read, as one word."""
    found = set()
    for i, word in enumerate(words):
        after = gaps[i + 1] if i + 1 < len(gaps) else ""
        if gaps[i].endswith("#") and word.isalpha() \
                and (not after or after[0].isspace() or after[0] in ".,;:!?)…\"”"):
            found.add(i)
    return found


def _capital(word: str) -> bool:
    """Whether ``word`` is written in capitals (more than one letter: not *I*, *A*)."""
    return word.isupper() and len(word) > 1


def _shouting(capitals: int, count: int) -> bool:
    """Whether a line is in capitals: more than half of its ``count`` words (or units) are."""
    return capitals > count / 2


def _within(words: list[str], gaps: list[str], lo: int, hi: int) -> tuple[int, int]:
    """``(a, b)``: ``words[a:b]`` are the words of the text split as ``(words, gaps)`` that
    start in its characters ``lo..hi``."""
    a = b = position = 0
    for k, word in enumerate(words):
        position += len(gaps[k])
        if position < lo:
            a = k + 1
        if position < hi:
            b = k + 1
        position += len(word)
    return a, b


def _mistyped(unit: Unit, lexicon: Lexicon) -> bool:
    """Whether a non-word is an English word mistyped: no language's list has it, and one edit
    makes it a common English word (``donig``, ``ewll``, ``helC``). Such words are what an
    attack leaves of a line's few common words (``@USER $$$ ewll spet``), so they count as
    those words would; a word of another language is in its list and does not count, nor do
    short ones (pls, thx) and capitalised ones (Pak, Kang: names)."""
    seen = unit.template.lower()
    if len(seen) < NONWORD_MIN or unit.stem[:1].isupper() and unit.stem[1:].islower():
        return False
    return not known(seen) and any(" " not in r and lexicon.logfreq(r) >= COMMON
                                   and DamerauLevenshtein.distance(seen, r) == 1
                                   for r in unit.candidates)


def _restorers(mechanisms, lexicon, root) -> dict:
    from .disemvowel import DisemvowelRestorer
    from .intrude import IntrudeRestorer
    from .keyboard import KeyboardTypoRestorer
    from .natural import NaturalTypoRestorer
    from .segment import SegmentRestorer
    from .shuffle import FullShuffleRestorer, InnerShuffleRestorer
    from .truncate import TruncateRestorer
    from .visual import VisualRestorer

    keyboard = KeyboardTypoRestorer(lexicon)
    build = {"visual": lambda: VisualRestorer(lexicon, keyboard, root),
             "intrude": lambda: IntrudeRestorer(lexicon),
             "segment": lambda: SegmentRestorer(lexicon),
             "keyboard-typo": lambda: keyboard,
             "natural-typo": lambda: NaturalTypoRestorer(),
             "inner-shuffle": lambda: InnerShuffleRestorer(lexicon),
             "full-shuffle": lambda: FullShuffleRestorer(lexicon),
             "truncate": lambda: TruncateRestorer(lexicon),
             "disemvowel": lambda: DisemvowelRestorer(lexicon),
             "phonetic": lambda: _phonetic(lexicon, root)}
    return {m: r for m in mechanisms if (r := build[m]()) is not None}


def _phonetic(lexicon, root):
    try:
        from .phonetic import PhoneticRestorer
    except ImportError:
        warnings.warn("the phonetic restorer is not available in this version", stacklevel=3)
        return None
    return PhoneticRestorer(lexicon, root)
