"""Word accuracy (`shield.accuracy`), on examples counted by hand."""
from __future__ import annotations

import pytest

from zeroe_assets.shield.accuracy import matched_words, word_accuracy, words


@pytest.mark.parametrize("clean, restored, expected", [
    # case and punctuation do not count
    ("The cat sat on the mat.", "the cat sat on the mat", (6, 6)),
    # two words wrong (Teh, no); the other four aligned around them
    ("The cat sat on the mat.", "Teh cat sat no the mat", (4, 6)),
    # a symbol splits a word (c, t) and a joined word is one wrong word (themat)
    ("The cat sat on the mat.", "The c@t sat on themat.", (3, 6)),
    # an alignment keeps order: of a reversed sentence only one word lines up
    ("a b c", "c b a", (1, 3)),
    # the apostrophe splits a clean word too: don + t + stop, and dont is neither
    ("Don't stop", "Dont stop", (1, 3)),
    # a look-alike left in place is a wrong word; letters with accents are letters
    ("cat café", "ćat café", (1, 2)),
    # words split again where they were joined: every clean word found
    ("ice cream", "icecream", (0, 2)),
    ("icecream", "ice cream", (0, 1)),
    # digits are words; a restored sentence with extra words loses nothing
    ("Room 101 is here", "Room 101 is right here", (4, 4)),
    ("", "", (0, 0)),
    ("x", "", (0, 1)),
])
def test_word_accuracy_by_hand(clean, restored, expected):
    assert word_accuracy(clean, restored) == expected


def test_words_are_lower_cased_unicode_letter_and_digit_runs():
    assert words("Ünïcode_text, N°5 & ΑΒΓ!") == ["ünïcode", "text", "n", "5", "αβγ"]


def test_matched_words_names_the_clean_positions():
    assert matched_words("the cat sat", "the cta sat") == {0, 2}


def test_frequent_words_are_aligned_too():
    """autojunk off: in a 300-word text, ``the`` (a fifth of it) still aligns; with difflib's
    default it would be junk and only 3 words would match."""
    clean = "the cat and the dog " * 60
    restored = clean.replace("the cat", "thr cat", 1)
    assert word_accuracy(clean, restored) == (299, 300)
