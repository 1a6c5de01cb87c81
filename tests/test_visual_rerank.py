"""Re-ranking the letters' look-alikes for reading (issue #36): what Unicode says reads as the
letter first, plain letters and other letters' look-alikes never, the table's format kept."""
from __future__ import annotations

import numpy as np

from train.visual.quality import reads_like, table_figures
from train.visual.rerank import Rerank, carrier_words, rerank, word_similarity
from zeroe_assets.assets.index import VectorIndex
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.visual.render import WordRenderer

from .visual_fixtures import tiny_font  # noqa: F401


def test_reads_like_follows_unicode_and_names():
    assert reads_like("a", "\u0430")  # Cyrillic а: UTS #39
    assert reads_like("e", "\u00e9") and reads_like("E", "\u00e9")  # é: NFKD, either case
    assert reads_like("k", "\u0199")  # ƙ LATIN SMALL LETTER K WITH HOOK: by its name
    assert not reads_like("l", "\u00ec")  # ì reads as i
    assert not reads_like("a", "\u0434")  # Cyrillic д


def test_word_similarity_is_one_for_the_same_picture_and_zero_for_no_common_ink():
    a = np.zeros((4, 6), np.float32)
    a[1, 1:3] = 255
    b = np.zeros((4, 4), np.float32)
    b[2, 2:4] = 255
    assert word_similarity(a, a) == 1.0
    assert word_similarity(a, b) == 0.0
    assert 0 < word_similarity(a, a * 0.5) < 1


def test_carriers_show_the_letter_in_its_case():
    words = ["banana", "apple", "kiwi", "grape"]
    assert carrier_words("n", words, 2) == ["banana"]
    assert carrier_words("A", words, 3) == ["Apple", "BANANA", "GRAPE"]
    assert all("p" in w for w in carrier_words("p", words, 5))


def test_rerank_puts_readers_look_alikes_first_and_keeps_the_format(tiny_font):  # noqa: F811
    # the learned space puts o and the full stop nearest to a; á and à read as a
    chars = "a\u00e1\u00e0o.l"
    vectors = np.array([[1, 0, 0], [0.6, 0.8, 0], [0.5, 0.86, 0], [0.99, 0.1, 0],
                        [0.95, 0.3, 0], [0, 0, 1]], np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    keys = np.array([ord(c) for c in chars], np.uint16)
    index = VectorIndex.build(vectors, keys)
    learned = [[ord("o"), ord(".")], [ord("a"), ord("\u00e0")], [ord("a"), ord("\u00e1")],
               [ord("a"), ord(".")], [ord("o"), ord("a")], [ord("."), ord("o")]]
    table = NeighbourTable(keys, np.array(learned, np.uint16), np.full((6, 2), 0.9, np.float16))
    renderers = [WordRenderer(px, [tiny_font]) for px in (12, 16)]
    new, rows = rerank(table, index, ["aloa", "lala"], Rerank(letters="a", pool=5, carriers=2,
                                                             sizes=(12, 16)), renderers)
    a = new.neighbours[0].tolist()
    assert sorted(a) == sorted([0xE1, 0xE0])  # o is a plain letter: never a look-alike of a
    assert rows["a"] == {"before": "o.", "after": "".join(map(chr, a))}
    expected = vectors[[chars.index(chr(c)) for c in a]] @ vectors[0]
    assert np.allclose(new.scores[0].astype(np.float32), expected, atol=2e-3)  # cosines kept
    assert new.neighbours.dtype == table.neighbours.dtype and new.k == table.k
    assert np.array_equal(new.neighbours[1:], table.neighbours[1:])  # other rows as they were
    assert table_figures(new)["same_letter_precision"] > table_figures(table)[
        "same_letter_precision"]
