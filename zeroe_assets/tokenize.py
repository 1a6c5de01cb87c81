"""A reversible word tokenizer: ``detokenize(tokenize(s)) == s`` for every string.

A *word* is a run of letters/digits with their combining marks, with inner apostrophes kept
(``don't``, ``l’homme``), that contains at least one letter. Everything else (whitespace,
punctuation, emoji, numbers, also those written with ² ½ Ⅻ, and exponent and hex literals such
as ``1e5``, ``2.5E-3``, ``0x1F``) lives in the *gaps* between words and is never touched by a
perturber. ``re.split`` with a capturing group puts words at the odd
positions, so tokenizing a line is one C-level call.
"""
from __future__ import annotations

import functools
import re

from ._charclasses import MARKS, NUMERALS

_M = f"[{MARKS}]"
# exponent and hex literals read as letters + digits (the e of 1e5, the x of 0x1F) but are numbers;
# the digits before a decimal point are already in the gap, so a mantissa's tail starts the match
_NUMBER = r"(?:[0-9]+[eE][+-]?[0-9]+|0[xX][0-9A-Fa-f]+)"
# A word starts where no letter/digit/mark precedes (the look-behinds keep digit runs linear) and
# must contain a letter; runs of digits and numerals (12½, 100², Ⅻ) therefore stay in the gaps.
_RUN = rf"(?:[^\W_]+{_M}*)"
_WORD = re.compile(rf"(?<![^\W_])(?<!{_M})(?!{_NUMBER}(?![^\W_]|{_M}|['’][^\W_]))"
                   rf"((?:\d{_M}*|[{NUMERALS}]{_M}*)*[^\W\d_{NUMERALS}]{_M}*"
                   rf"{_RUN}*(?:['’]{_RUN}+)*)")
# The same words as `_WORD` on ASCII text, written to start with a character class, which lets
# the engine skip to the next letter or digit in one C loop instead of trying the look-arounds at
# every position (a sixth less per split): after the first character, a look-behind checks the
# one before it; a word that starts with a digit must not be a number (the rest of `_NUMBER`
# after that digit). Runs are possessive (*+): nothing after a run can take back what it matched
# (a letter after digits, an apostrophe after letters, nothing after the word), so the matches
# are the same and the engine keeps no places to go back to. It takes ’ as the full pattern does,
# so that it splits as the full one on any text whose non-ASCII characters are neither letters,
# digits nor marks (emoji, curly quotes, dashes: `_WORDISH`), which it sees as punctuation.
_NUMBER_REST = (r"(?:[0-9]*+[eE][+-]?[0-9]+|(?<=0)[xX][0-9A-Fa-f]+)"
                r"(?![A-Za-z0-9]|['’][A-Za-z0-9])")
_ASCII_WORD = re.compile(rf"([A-Za-z0-9](?<![A-Za-z0-9][A-Za-z0-9])"
                         rf"(?:(?<![0-9])|(?!{_NUMBER_REST})[0-9]*+[A-Za-z])"
                         r"[A-Za-z0-9]*+(?:['’][A-Za-z0-9]++)*+)")
# a run between spaces (U+0020) with a non-ASCII character in it, whole; linear: a run is
# scanned once, from its start
_NON_ASCII_RUN = re.compile(r"((?<![^ ])[\x00-\x1f\x21-\x7f]*+[^\x00-\x7f][^ ]*+)")
# a non-ASCII letter, digit, numeral or mark: text without one splits as ASCII text does. A class
# first, so that the engine skips to the next non-ASCII character in one C loop
_WORDISH = re.compile(rf"[^\x00-\x7f](?<=[\w{MARKS}{NUMERALS}])")
_wordish = _WORDISH.search
# a base with its marks; a decomposed Hangul syllable (leading consonants, vowels, final
# consonants: ᄒ ᅡ ᆫ) is one base
_JAMO = "[\u1100-\u115f\ua960-\ua97f]+[\u1160-\u11a7\ud7b0-\ud7c6]+[\u11a8-\u11ff\ud7cb-\ud7fb]*"
_CLUSTER = re.compile(rf"(?:{_JAMO}|.){_M}*", re.DOTALL)


def split(text: str) -> tuple[list[str], list[str]]:
    """Split ``text`` into ``(words, gaps)``, with ``len(gaps) == len(words) + 1``.

    ``gaps[i]`` is the text before ``words[i]``; ``gaps[-1]`` is the tail. Digit-only runs stay
    in the gaps: shuffling or truncating a number changes its meaning, not its spelling.
    """
    found = parts(text)
    return found[1::2], found[0::2]


def parts(text: str) -> list[str]:
    """``text`` split into gaps and words in one list: ``gaps[i]`` at ``2i``, ``words[i]`` at
    ``2i + 1`` (so ``"".join(parts(text)) == text``).

    Text with non-ASCII characters is mostly ASCII (a tweet's emoji and curly quotes), and the
    full pattern costs four times the ASCII one per word: text whose non-ASCII characters are
    none of them a letter, digit or mark goes through the ASCII pattern whole (nine in ten
    such lines of tweets and web text); in other text only the runs between spaces that hold
    a non-ASCII character go through the full one, the stretches between them through the
    ASCII one. The same split, because a space is never in a word and the look-arounds at a
    word's ends take it as they take the end of the text."""
    if text.isascii() or not _wordish(text):
        return _ASCII_WORD.split(text)
    pieces = _NON_ASCII_RUN.split(text)  # ASCII stretch, run, ASCII stretch, …, ASCII stretch
    found = _ASCII_WORD.split(pieces[0])
    for i in range(1, len(pieces), 2):
        for piece in _WORD.split(pieces[i]), _ASCII_WORD.split(pieces[i + 1]):
            found[-1] += piece[0]  # the gap before the piece's first word goes on the last
            found += piece[1:]
    return found


def join(words: list[str], gaps: list[str]) -> str:
    """Inverse of ``split``."""
    out = [""] * (2 * len(words) + 1)
    out[0::2] = gaps
    out[1::2] = words
    return "".join(out)


def tokenize(text: str) -> list[str]:
    """Tokens alternating gap, word, gap, ..., gap (gaps may be empty strings)."""
    words, gaps = split(text)
    tokens = [gaps[0]]
    for word, gap in zip(words, gaps[1:]):
        tokens += (word, gap)
    return tokens


def detokenize(tokens: list[str]) -> str:
    return "".join(tokens)


def words(text: str) -> list[str]:
    return split(text)[0]


# English clitics a word may end in (nltk's tokenizer splits them off too): don't, it's, we're …;
# the pattern takes them in either case, with either apostrophe
CLITICS = frozenset({"n't", "'s", "'re", "'ve", "'ll", "'d", "'m"})
_CLITIC = re.compile(r"(?:[nN]['’][tT]|['’](?:[sS]|[rR][eE]|[vV][eE]|[lL][lL]|[dD]|[mM]))$")
_APOSTROPHE = re.compile(r"(['’])")


def stem(word: str) -> tuple[str, str, str]:
    """``(head, stem, tail)`` with ``head + stem + tail == word``: the part of a word with
    apostrophes that perturbers change, and the apostrophes and clitics around it that stay.

    A final English clitic (``n't``, ``'s``, ``'re``, ``'ve``, ``'ll``, ``'d``, ``'m``) goes to
    the tail; of what is left, the stem is the longest run without an apostrophe (the first of
    equals): ``don't`` → do + n't, ``Egypt's`` → Egypt + 's, ``l’homme`` → l’ + homme,
    ``O'Brien`` → O' + Brien. The paper's rules speak of letters, not of apostrophes.
    """
    if "'" not in word and "’" not in word:
        return "", word, ""
    clitic = _CLITIC.search(word)
    body, tail = (word[:clitic.start()], word[clitic.start():]) if clitic else (word, "")
    parts = _APOSTROPHE.split(body)
    best = max(range(0, len(parts), 2), key=lambda i: (len(parts[i]), -i))
    return "".join(parts[:best]), parts[best], "".join(parts[best + 1:]) + tail


def treebank_count(text: str) -> int:
    """How many tokens nltk's word tokenizer finds in ``text`` (punctuation, numbers and clitics
    such as 's and n't count): what the original code counted its ⌈p·n⌉ over."""
    return len(_treebank().tokenize(text))


@functools.lru_cache(maxsize=1)
def _treebank():
    from nltk.tokenize import NLTKWordTokenizer  # only the reference protocol counts this way

    return NLTKWordTokenizer()


def length(word: str) -> int:
    """How many characters a reader sees in ``word`` (``len(clusters(word))``, fast for ASCII):
    the length the perturbers' rules (words of ≥ 3 letters …) count."""
    return len(word) if word.isascii() else len(clusters(word))


def clusters(word: str) -> list[str]:
    """User-perceived characters: a base character with its combining marks (and a decomposed
    Hangul syllable as one).

    Perturbers that move, drop or insert characters work on these, so an accent never ends
    up on another letter. ASCII words take the fast path (one character each).
    """
    if word.isascii():
        return list(word)
    return _CLUSTER.findall(word)


def match_case(template: str, word: str) -> str:
    """Give ``word`` the capitalisation pattern of ``template`` (Word → Wxrd, WORD → WXRD)."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
