"""Word accuracy, the shield's measure (as BERT-Defense was rescored, issue #24): the share of the
clean sentence's words that the restored sentence has exactly, found by aligning the two word
sequences with difflib (``SequenceMatcher``, autojunk off, so frequent words are not ignored).

Words here are lower-cased runs of Unicode letters and digits (``[^\\W_]+``): punctuation,
spaces and case do not count, a look-alike or an accent the shield left in place does (``ćat``
is not ``cat``), and a symbol inside a word splits it (``c@t`` is ``c`` and ``t``, neither is
``cat``). Summed over a corpus, matched / total is the corpus's word accuracy; the same measure
with the shield's output on clean text is the share of clean words it left unchanged.
"""
from __future__ import annotations

import difflib
import re

WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The lower-cased letter-and-digit runs of ``text``, in order."""
    return WORD.findall(text.lower())


def matched_words(clean: str, restored: str) -> set[int]:
    """Positions (in ``words(clean)``) of the clean words the aligned ``restored`` has exactly."""
    matcher = difflib.SequenceMatcher(None, words(clean), words(restored), autojunk=False)
    return {i + k for i, _, size in matcher.get_matching_blocks() for k in range(size)}


def word_accuracy(clean: str, restored: str) -> tuple[int, int]:
    """``(matched, total)``: how many of the clean sentence's words ``restored`` recovers."""
    return len(matched_words(clean, restored)), len(words(clean))
