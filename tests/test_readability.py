"""``zeroe bench readability``: attacked words rendered with font fallback and read back by
Tesseract, next to UTS #39 look-alikes and random letters at the same positions."""
from __future__ import annotations

import json
import shutil
import sys

import numpy as np
import pytest

from zeroe_assets.bench import readability as R
from zeroe_assets.cli import main
from zeroe_assets.visual.render import WordRenderer

from .visual_fixtures import SHAPES, build_font, dejavu_renderer, needs_rapidocr, needs_tesseract

WORDS = "house water garden little mother people\n"


def test_changed_positions_name_what_the_attack_touched():
    assert R.changed_positions("house", "hоuse") == [1]  # Cyrillic о
    assert R.changed_positions("house", "hose") == [2]
    assert R.changed_positions("house", "hoxuse") == [2]  # inserted before u
    assert R.changed_positions("house", "house") == []


def test_held_out_words_are_distinct_letters_only_and_seeded(tmp_path):
    src = tmp_path / "text.txt"
    src.write_text("The house, the House and a tree.\ncar waters 3pm well-known x1y2 mother\n")
    words = R.held_out_words(src, 4, seed=1)
    # 4-10 letters once surrounding punctuation is gone, distinct ignoring case, first kept
    assert set(words) == {"house", "tree", "waters", "mother"}
    assert words == R.held_out_words(src, 4, seed=1)
    assert set(R.held_out_words(src, 3, seed=2, exclude={"house"})) == {"tree", "waters",
                                                                        "mother"}
    with pytest.raises(ValueError, match="fewer than the 5"):
        R.held_out_words(src, 5)


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    src = tmp_path / "latin1.txt"
    src.write_bytes("caf\xe9 houses and trees\n".encode("latin-1"))
    with pytest.raises(ValueError, match=f"{src} is not UTF-8"):
        R.held_out_words(src, 1)


def test_conllu_words_come_from_the_form_column(tmp_path):
    src = tmp_path / "x.conllu"
    rows = ["# text = Birds fly up", "1\tBirds\tbird\tNOUN\t_\t_\t2\tnsubj\t_\t_",
            "2\tfly\tfly\tVERB\t_\t_\t0\troot\t_\t_",
            "3\tup\tupwards\tADV\t_\t_\t2\tadvmod\t_\t_", ""]
    src.write_text("\n".join(rows) + "\n")
    assert R.held_out_words(src, 1) == ["Birds"]
    with pytest.raises(ValueError, match="has 1 distinct"):  # not the lemma "upwards"
        R.held_out_words(src, 2)


def test_the_default_chain_says_which_fonts_it_lacks(monkeypatch):
    # an export re-ranked without Noto read most candidates as boxes and said nothing
    from zeroe_assets.visual import fonts

    real = fonts.alias_fonts
    monkeypatch.setattr(fonts, "alias_fonts",
                        lambda name, dirs=fonts.FONT_DIRS: [] if name != "dejavu" else real(name))
    if not real("dejavu"):
        pytest.skip("no DejaVu Sans (system or matplotlib's)")
    with pytest.warns(UserWarning) as caught:
        renderer = WordRenderer(24)
    messages = [str(w.message) for w in caught]
    assert [m.split(":")[0] for m in messages] == ["font alias 'noto'", "font alias 'unifont'"]
    assert all("drawn as boxes" in m and "fonts-noto-core" in m for m in messages)
    assert renderer.chain == [p.resolve() for p in real("dejavu")]


def test_each_character_is_drawn_by_the_first_font_that_has_it(tmp_path):
    first = build_font(tmp_path / "first.ttf", {"a": SHAPES["a"], " ": []})
    second = build_font(tmp_path / "second.ttf", {"l": SHAPES["l"], "a": SHAPES["o"]})
    renderer = WordRenderer(24, [first, second])
    assert [renderer.font_index(c) for c in "alx"] == [0, 1, None]
    one, both = renderer.render("a"), renderer.render("al")
    assert one.shape[0] == both.shape[0] == 48 and both.shape[1] > one.shape[1]
    assert np.array_equal(both[:, :one.shape[1] - 12], one[:, :one.shape[1] - 12])  # a from first
    assert both[:, one.shape[1] - 12:].max() > 0  # and l drawn by the second font


def test_read_back_ignores_case_and_surrounding_punctuation_unless_asked():
    assert R.reads_as_word(" booK.\n", "book") and not R.reads_as_word("booK", "book", fold=False)
    assert R.reads_as_word("'book'", "book", fold=False) and not R.reads_as_word("bo ok", "book")


def test_a_reader_is_required_and_named(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    src = tmp_path / "words.txt"
    src.write_text(WORDS)
    code = main(["bench", "readability", "--input", str(src), "--words", "3",
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "apt-get install tesseract-ocr" in err
    assert not (tmp_path / "out").exists()


@needs_tesseract
def test_readability_reads_clean_words_and_not_random_scripts(tmp_path, capsys):
    src = tmp_path / "words.txt"
    src.write_text(WORDS)
    out = tmp_path / "out"
    args = ["bench", "readability", "--input", str(src), "--words", "6", "--phi", "0.5",
            "--out", str(out)]
    assert main(args) == 0
    report = json.loads((out / "readability.json").read_text())
    assert set(report["read_back"]) == set(R.CONDITIONS)
    assert report["read_back"]["clean"] == 1.0  # plain common words at 48 px: the ceiling
    assert report["read_back_in_the_same_case"]["clean"] == 1.0
    assert report["read_back"]["other_script"] < report["read_back"]["clean"]
    assert report["words_changed_by_the_attack"] >= 1
    for row in report["examples"]:  # the other conditions change the positions the attack did
        word, attacked, tr39 = row["word"], row["attacked"][0], row["tr39"][0]
        assert R.changed_positions(word, tr39) == [] or \
            set(R.changed_positions(word, tr39)) <= set(R.changed_positions(word, attacked))
    assert (out / "readability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    first = (out / "readability.json").read_bytes()
    assert main(args) == 0 and (out / "readability.json").read_bytes() == first  # seeded


@needs_tesseract
def test_read_back_puts_each_word_on_its_own_line():
    renderer = dejavu_renderer(40)
    words = ["house", "", "garden"]  # an empty line in between stays empty
    assert R.read_back([renderer.render(w) for w in words], 80) == words


def test_a_missing_second_reader_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)  # import fails as if missing
    R._rapidocr.cache_clear()
    src = tmp_path / "words.txt"
    src.write_text(WORDS)
    code = main(["bench", "readability", "--input", str(src), "--words", "3",
                 "--reader", "rapidocr", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    R._rapidocr.cache_clear()
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "pip install rapidocr-onnxruntime" in err
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="unknown reader 'easyocr'"):
        R.read_words([], 80, "easyocr")


@needs_rapidocr
def test_the_second_reader_reads_clean_words_one_per_image(tmp_path):
    renderer = dejavu_renderer(48)
    words = ["house", "", "garden", "Mother"]  # an empty image reads as nothing
    assert R.read_words([renderer.render(w) for w in words], 96, "rapidocr") == words
    assert R.reader_version("rapidocr").startswith("RapidOCR ")
