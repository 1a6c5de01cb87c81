"""Re-rank each Latin letter's look-alikes by whether a reader still reads the word (issue #36).

The learned space ranks glyphs by how they embed alone, so a letter's top 20 fills with accented
and decorated forms and with other letters' shapes (ì among l's), and a reader misreads a fifth
of the words the attack changes. So for each letter: a pool of candidates (its learned nearest
``pool`` and every glyph Unicode says reads as it; never a plain ASCII letter, a glyph Unicode
reads as another letter only, or one that would split the word for the tokenizer, as ⋿ for e
does), each substituted into ``carriers`` tuning words, rendered
at ``px`` with font fallback and read back by each of ``readers`` (Tesseract, RapidOCR: as the
readability bench does, on other words and at another size; with ``blur`` each reader reads them
also under a Gaussian blur of that radius); ranked by the share of those words read back, the
least of the readers' shares over both renderings (in the same case with
``same_case``: a zero among the o's is read, but as "hOttest") + ``bonus`` when Unicode says the
glyph reads as the letter (UTS #39, NFKD, or its name: LATIN SMALL LETTER K WITH HOOK)
+ ``weight`` × the learned cosine − ``case`` when the glyph is of the other case (a capital Ḃ
among the b's is read, but as a case change, which taggers notice) + ``shape`` when Unicode says
it reads as the letter but its character class differs (`char_class`: the Roman numeral ⅽ
for c, the digit ໐ for o, the Lisu ꓮ for A, a letter without case). A reader sees only the
shape; a program also sees the class (shape and casing features, isalpha and isupper), so
among glyphs read alike the attack prefers those (only glyphs that decompose to one letter: ⅷ
decomposes to viii). The table keeps its format: the top k by that
rank, each with its learned cosine (what the attack samples by and thresholds compare) and its
share read back (``reads``: the attack draws among a row's most readable entries).
"""
from __future__ import annotations

import string
import unicodedata
from dataclasses import dataclass

import numpy as np

from zeroe_assets import tokenize
from zeroe_assets.assets.index import VectorIndex
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.bench.readability import check_reader, read_words, reads_as_word
from zeroe_assets.visual.confusables import reads_as
from zeroe_assets.visual.render import WordRenderer, blurred
from zeroe_assets.visual.space import is_candidate

from .quality import reads_like


@dataclass(frozen=True)
class Rerank:
    """The settings of `rerank` (``export.rerank`` in ``conf/export/visual.yaml``)."""

    letters: str = string.ascii_letters
    pool: int = 200  # learned nearest neighbours considered per letter
    carriers: int = 3  # tuning words each candidate is read in
    px: int = 32  # pixels per em of the words the reader reads (the bench reads 48)
    bonus: float = 1.0  # for glyphs Unicode says read as the letter
    weight: float = 0.3  # of the learned cosine
    case: float = 1.0  # off a glyph of the other case
    same_case: bool = False  # a candidate's words must be read back in the same case
    shape: float = 0.0  # for a glyph Unicode reads as the letter, of another character class
    readers: tuple[str, ...] = ("tesseract",)  # a candidate's share: the least over these
    blur: float = 0.0  # > 0: each reader reads the words also under a Gaussian blur of this radius

    def __post_init__(self):
        if not self.readers:
            raise ValueError("export.rerank.readers is empty: name at least one reader")
        if self.blur < 0:
            raise ValueError(f"export.rerank.blur is a radius in pixels (0: sharp only), "
                             f"got {self.blur}")
        for reader in self.readers:
            check_reader(reader)

    @property
    def renderings(self) -> tuple[float, ...]:
        """The blur radii each reader reads the words at (0: sharp)."""
        return (0.0, self.blur) if self.blur else (0.0,)


def keeps_word(ch: str) -> bool:
    """Whether a word with ``ch`` inside stays one word (`tokenize.words`): a symbol such as ⋿
    or ∣ would cut it in two, and the tokenizer, the shield and every victim would see two."""
    return tokenize.words(f"a{ch}a") == [f"a{ch}a"]


def reads_otherwise(letter: str, ch: str) -> bool:
    """An ASCII letter, or a glyph Unicode reads as another letter only (ì for l)."""
    found = reads_as(ch)
    return ch in string.ascii_letters or (bool(found) and letter.lower() not in found)


def letter_case(ch: str) -> str | None:
    """"upper" or "lower": of ``ch``, else of its NFKD base, else as its name says (None: a
    caseless glyph such as a digit or most symbols)."""
    for c in (ch, unicodedata.normalize("NFKD", ch)[:1]):
        if c.isupper() or c.islower():
            return "upper" if c.isupper() else "lower"
    name = unicodedata.name(ch, "")
    return "upper" if "CAPITAL" in name else "lower" if "SMALL" in name else None


def char_class(ch: str) -> str:
    """What a program sees of ``ch`` besides its code point: "upper" (an upper-case letter),
    "letter" (any other), "digit" (str.isdigit), "number" (a Roman numeral, a fraction) or
    "other" (what `keeps_word` already keeps out of the rows)."""
    if ch.isupper():
        return "upper"
    if ch.isalpha():
        return "letter"
    return "digit" if ch.isdigit() else "number" if ch.isnumeric() else "other"


def one_letter(ch: str) -> bool:
    """Whether ``ch`` reads as one letter: Unicode decomposes it (NFKD) into at most one letter
    or digit (and marks). ⅷ is viii and ǲ is Dz, read as several letters even though their
    decomposition starts with the letter."""
    return sum(c.isalnum() for c in unicodedata.normalize("NFKD", ch)) <= 1


def carrier_words(letter: str, words: list[str], n: int) -> list[str]:
    """``n`` tuning words showing ``letter``: lower case inside a word, else anywhere; upper
    case at the start of a capitalised word, else in an upper-case one."""
    low, words = letter.lower(), [w.lower() for w in words]
    if letter.islower():
        found = [w for w in words if low in w[1:-1]] + [w for w in words if low in (w[0], w[-1])]
    else:
        found = ([w.capitalize() for w in words if w[0] == low] +
                 [w.upper() for w in words if low in w[1:]])
    found = list(dict.fromkeys(found))[:n]
    if not found:
        raise ValueError(f"no tuning word shows {letter!r}: give more words")
    return found


def read_back_rates(letter: str, candidates: list[str], carriers: list[str],
                    renderer: WordRenderer, same_case: bool = False,
                    readers: tuple[str, ...] = ("tesseract",),
                    blurs: tuple[float, ...] = (0.0,)) -> np.ndarray:
    """The share of the carrier words read back (ignoring case unless ``same_case``) with each
    candidate in place of ``letter`` (its first occurrence): the least over ``readers`` and over
    the renderings ``blurs`` (Gaussian radii in pixels, 0: sharp), so a glyph counts as read only
    as far as every reader reads it in every rendering. A later reading reads only the candidates
    every earlier one read at least once (the least is 0 for the others)."""
    rates = np.ones(len(candidates))
    for reader in readers:
        for radius in blurs:
            rates = np.minimum(rates, _read_once(letter, candidates, carriers, renderer,
                                                 same_case, reader, radius, rates > 0))
    return rates


def _read_once(letter: str, candidates: list[str], carriers: list[str], renderer: WordRenderer,
               same_case: bool, reader: str, radius: float, alive: np.ndarray) -> np.ndarray:
    """One reader's share for each candidate where ``alive`` (0 elsewhere), the words drawn
    with a blur of ``radius`` (0: sharp)."""
    images, rows = [], []
    for word in carriers:
        i = word.index(letter)
        for k in np.flatnonzero(alive).tolist():
            image = renderer.render(word[:i] + candidates[k] + word[i + 1:])
            images.append(blurred(image, radius) if radius else image)
            rows.append((k, word))
    read = np.zeros(len(candidates))
    for (k, word), text in zip(rows, read_words(images, 2 * renderer.px, reader)):
        read[k] += reads_as_word(text, word, fold=not same_case)
    return read / len(carriers)


def candidate_pool(letter: str, index: VectorIndex, keys: np.ndarray, size: int,
                   covers) -> tuple[list[str], np.ndarray]:
    """The letter's ``size`` nearest in the learned space and every glyph in ``keys`` that reads
    like it, kept if a candidate that the fonts draw (``covers``), keeps the word one word and
    is not read as another letter; with their learned cosines."""
    v = index.vector(ord(letter)).astype(np.float32)
    found, _ = index.search(v, size + 1)
    chars = [chr(k) for k in found.tolist()]
    chars += [chr(k) for k in keys.tolist() if reads_like(letter, chr(k))]
    chars = [c for c in dict.fromkeys(chars)
             if c != letter and is_candidate(c) and keeps_word(c) and not reads_otherwise(letter, c)
             and covers(c)]
    vectors = np.stack([index.vector(ord(c)) for c in chars]).astype(np.float32)
    cosines = vectors @ v / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(v) + 1e-12)
    return chars, cosines


def rank(letter: str, chars: list[str], cosines: np.ndarray, rates: np.ndarray,
         settings: Rerank) -> np.ndarray:
    """The order of ``chars``, best first (see the module's docstring)."""
    liked = np.array([reads_like(letter, c) for c in chars], np.float64)
    other = np.array([letter_case(c) not in (None, letter_case(letter)) for c in chars],
                     np.float64)
    shape = np.array([char_class(c) != char_class(letter) for c in chars], np.float64)
    shape *= liked * (1 - other)  # a case change is the case term's, not this one's
    shape *= [one_letter(c) for c in chars]  # not ⅷ (viii) for v
    score = (rates + settings.bonus * liked + settings.weight * cosines - settings.case * other
             + settings.shape * shape)
    return np.argsort(-score, kind="stable")


def rerank(table: NeighbourTable, index: VectorIndex, words: list[str],
           settings: Rerank = Rerank(), renderer: WordRenderer | None = None
           ) -> tuple[NeighbourTable, dict]:
    """``table`` with the rows of ``settings.letters`` re-ranked by reading (the other rows as
    they were); and per letter its row before and after."""
    renderer = renderer or WordRenderer(settings.px)
    rows = {chr(k): i for i, k in enumerate(table.keys.tolist())}
    neighbours, scores = table.neighbours.copy(), table.scores.copy()
    reads = np.ones(table.neighbours.shape, np.float16)
    report = {}
    for letter in settings.letters:
        if letter not in rows or ord(letter) not in index:
            continue
        chars, cosines = candidate_pool(letter, index, table.keys, settings.pool,
                                        renderer.covers)
        carriers = carrier_words(letter, words, settings.carriers)
        rates = read_back_rates(letter, chars, carriers, renderer, settings.same_case,
                                settings.readers, settings.renderings)
        top = rank(letter, chars, cosines, rates, settings)[:table.k]
        if len(top) < table.k:
            raise ValueError(f"only {len(top)} candidates for {letter!r}: raise the pool")
        i = rows[letter]
        report[letter] = {"before": "".join(chr(c) for c in neighbours[i].tolist()),
                          "after": "".join(chars[j] for j in top)}
        neighbours[i] = [ord(chars[j]) for j in top]
        scores[i] = cosines[top].astype(scores.dtype)
        reads[i] = rates[top]
    return NeighbourTable(table.keys, neighbours, scores, reads), report


__all__ = ["Rerank", "carrier_words", "char_class", "keeps_word", "letter_case", "one_letter",
           "read_back_rates", "rerank"]
