"""A long line is read a piece at a time (issue #33): each piece with its context on either side
and the whole line's tally (`core.Tally`), so its output is the whole line's, byte for byte.
Pieces of a few dozen chunks stand in for the real ``LONG``."""
from __future__ import annotations

import random

import pytest

from zeroe_assets.perturbers.intrude import IntrudePerturber
from zeroe_assets.perturbers.keyboard import KeyboardPerturber
from zeroe_assets.perturbers.shuffle import InnerShufflePerturber
from zeroe_assets.shield import core, get_shield

SENTENCES = ["The woman is walking her dog in the park near the river.",
             "A man plays guitar on a crowded street corner while people watch!",
             "@USER Three children don't eat breakfast together in the kitchen #WednesdayWisdom",
             "He was s l e e p i n g when the (noisy) neighbours came home , URL",
             "THE WEATHER IS TERRIBLE TODAY AND NOBODY WANTS TO GO OUTSIDE"]


def attacked_line(sentences: list[str], copies: int) -> str:
    """``copies`` rounds of ``sentences``, each word attacked by one of three perturbers now
    and then, on one line."""
    rng, out = random.Random(0), []
    perturbers = [InnerShufflePerturber(), KeyboardPerturber(), IntrudePerturber()]
    for _ in range(copies):
        for sentence in sentences:
            out.append(" ".join(rng.choice(perturbers).perturb_word(w, 0.3, rng)
                                if len(w) > 3 and rng.random() < 0.3 else w
                                for w in sentence.split()))
    return " ".join(out)


@pytest.fixture(scope="module")
def shield():
    return get_shield()


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces of 40 chunks, 20 on either side, and the pieces read with a line's tally."""
    monkeypatch.setattr(core, "LONG", 40)
    monkeypatch.setattr(core, "REACH", 20)
    read, restore = [], core.Shield._restore

    def counted(self, text, anchors, tally=None, *args):
        if tally is not None:
            read.append(text)
        return restore(self, text, anchors, tally, *args)

    monkeypatch.setattr(core.Shield, "_restore", counted)
    return read


FRENCH = ["le chat noir dort sur le tapis rouge , et le chien mange sa soupe ."]
LINES = {"mixed": (SENTENCES, 4),
         "in capitals": (SENTENCES[-1:] * 3 + SENTENCES[:1], 4),  # its units made twice
         # an English line: its French end is read as English too, though alone it is not
         "english then french": (SENTENCES * 3 + FRENCH * 5, 1)}


@pytest.mark.parametrize("line", [attacked_line(*v) for v in LINES.values()], ids=list(LINES))
def test_a_long_line_read_in_pieces_reads_as_the_whole_line(shield, small_pieces, line):
    whole = shield._restore(line, frozenset())  # one piece: the line read at once
    assert whole != line  # the shield changes words of it …
    assert shield.restore(line) == whole  # … and in pieces the same ones, and nothing else
    assert len(small_pieces) > 3


# what else separates words inside a line (`zeroe shield` cuts lines at \n only): line and
# paragraph separators, NEL, VT, FF, FS, a lone CR, tabs, wide and no-break spaces
SEPARATORS = ["\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\t", "\u3000", "\u00a0",
              " \r "]


def test_a_long_line_of_other_separators_reads_as_the_whole_line(shield, small_pieces):
    words = attacked_line(SENTENCES, 4).split(" ")
    line = "".join(w + SEPARATORS[k % len(SEPARATORS)] for k, w in enumerate(words))
    whole = shield._restore(line, frozenset())
    assert whole != line and shield.restore(line) == whole
    assert len(small_pieces) > 3


@pytest.mark.parametrize("filler", ["  ", " . , ! ", " 😀 👍🏽 👨\u200d👩\u200d👧 🇫🇷 "])
def test_a_long_line_of_no_words_is_written_back(shield, small_pieces, filler):
    line = filler * 60  # only spaces: one piece; punctuation, emoji: many, nothing to read
    assert shield.restore(line) == line


def test_a_long_line_of_another_language_stays_in_pieces_too(shield, small_pieces):
    line = attacked_line(FRENCH, 8)
    assert shield.restore(line) == line
    assert len(small_pieces) > 2


def test_pieces_cover_the_line_once_and_cut_after_whitespace():
    text = "  a b\tc ... d  e f, g h i j k l m n o p  "
    pieces = list(core._pieces(text, size=3, reach=1))
    assert "".join(text[lo:hi] for _, lo, hi, _ in pieces) == text
    assert all(start <= lo <= hi <= end and (lo == 0 or text[lo - 1].isspace())
               for start, lo, hi, end in pieces)
    assert list(core._pieces("short line", size=3, reach=1)) == [(0, 0, 10, 10)]
