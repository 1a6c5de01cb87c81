"""Re-ranking the letters' look-alikes for reading (issue #36): what Unicode says reads as the
letter first, plain letters and other letters' look-alikes never, the table's format kept."""
from __future__ import annotations

import json

import numpy as np
import pytest

from train.visual.quality import reads_like, table_figures
from train.visual.rerank import (Rerank, carrier_words, char_class, keeps_word, letter_case,
                                 one_letter, rank, read_back_rates, rerank)
from zeroe_assets.assets.index import VectorIndex
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.visual.render import blurred

from .conftest import ROOT
from .visual_fixtures import dejavu_renderer, needs_rapidocr, needs_tesseract


def test_reads_like_follows_unicode_and_names():
    assert reads_like("a", "\u0430")  # Cyrillic а: UTS #39
    assert reads_like("e", "\u00e9") and reads_like("E", "\u00e9")  # é: NFKD, either case
    assert reads_like("k", "\u0199")  # ƙ LATIN SMALL LETTER K WITH HOOK: by its name
    assert not reads_like("l", "\u00ec")  # ì reads as i
    assert not reads_like("a", "\u0434")  # Cyrillic д


def test_letter_case_of_look_alikes():
    assert [letter_case(c) for c in "a\u1e02\u0432\u1d18\u00e9"] == [  # a Ḃ в ᴘ é
        "lower", "upper", "lower", "lower", "lower"]
    assert letter_case("7") is None and letter_case("\u2202") is None  # ∂


def test_char_class_is_what_a_program_sees():
    # a A, Lisu ꓮ (a letter without case), Roman numeral ⅽ, Lao digit ໐, 0
    assert [char_class(c) for c in "aA\ua4ee\u217d\u0ed00"] == [
        "letter", "upper", "letter", "number", "digit", "digit"]


def test_rank_prefers_another_class_only_among_glyphs_unicode_reads_as_the_letter():
    # for o: Greek ο (a letter), Lao ໐ (a digit), Greek capital Ο (the other case), ⅽ (a
    # number Unicode reads as c), all read back alike; the learned space prefers them in order
    chars = ["\u03bf", "\u0ed0", "\u039f", "\u217d"]
    cosines, rates = np.array([0.9, 0.8, 0.7, 0.6]), np.ones(4)
    plain = rank("o", chars, cosines, rates, Rerank(shape=0.0))
    assert [chars[i] for i in plain] == chars  # ⅽ last: Unicode reads it as c, not as o
    shaped = rank("o", chars, cosines, rates, Rerank(shape=0.25))
    # the digit moves first; the capital stays under the case term and ⅽ gets no class bonus
    assert [chars[i] for i in shaped] == ["\u0ed0", "\u03bf", "\u039f", "\u217d"]
    # ⅷ decomposes to viii: Unicode reads it as starting with v, but it is four letters
    assert one_letter("\u0ed0") and one_letter("\u00e9") and not one_letter("\u2177")
    v = ["\u03bd", "\u2177"]  # ν ⅷ
    assert [v[i] for i in rank("v", v, np.array([0.9, 0.8]), np.ones(2), Rerank(shape=0.25))] == v


def test_a_look_alike_keeps_the_word_one_word():
    assert keeps_word("\u0430") and keeps_word("\u01c0") and keeps_word("0")  # а ǀ 0
    assert not keeps_word("\u22ff") and not keeps_word("!")  # ⋿ and ! cut a word in two


def test_carriers_show_the_letter_in_its_case():
    words = ["banana", "apple", "kiwi", "grape"]
    assert carrier_words("n", words, 2) == ["banana"]
    assert carrier_words("A", words, 3) == ["Apple", "BANANA", "GRAPE"]
    assert carrier_words("K", ["Kiwi"], 1) == ["Kiwi"]
    assert all("p" in w for w in carrier_words("p", words, 5))


@needs_tesseract
def test_rerank_ranks_by_what_the_reader_reads_and_keeps_the_format():
    renderer = dejavu_renderer(40)
    # the learned space puts Ж and o nearest to a; Cyrillic а is read as a in any word
    chars = "a\u0416o\u0430\u00e4"
    cos = np.array([1.0, 0.95, 0.9, 0.6, 0.5], np.float32)
    vectors = np.stack([cos, np.sqrt(1 - cos ** 2), np.zeros(5)], 1)
    vectors[1:3, 1] *= -1  # Ж and o on the other side: each letter its own direction
    keys = np.array([ord(c) for c in chars], np.uint16)
    index = VectorIndex.build(vectors, keys)
    learned = [[ord("\u0416"), ord("o")]] + [[ord("a"), ord("o")]] * 4
    table = NeighbourTable(keys, np.array(learned, np.uint16), np.full((5, 2), 0.9, np.float16))
    rates = read_back_rates("a", ["\u0430", "\u0416"], ["water", "cat"], renderer)
    assert rates[0] == 1.0 and rates[1] < 1.0
    # a capital A is read, but as "wAter": only ignoring case
    assert read_back_rates("a", ["A"], ["water", "cat"], renderer)[0] == 1.0
    assert read_back_rates("a", ["A"], ["water", "cat"], renderer, same_case=True)[0] == 0.0
    settings = Rerank(letters="a", pool=4, carriers=2, px=40, bonus=0.0, weight=0.1)
    new, rows = rerank(table, index, ["water", "cat", "data"], settings, renderer)
    a = [chr(c) for c in new.neighbours[0].tolist()]
    assert a[0] == "\u0430" and "o" not in a  # read first; a plain letter never
    assert rows["a"] == {"before": "\u0416o", "after": "".join(a)}
    expected = [float(cos[chars.index(c)]) for c in a]
    assert np.allclose(new.scores[0].astype(np.float32), expected, atol=2e-3)  # cosines kept
    assert new.neighbours.dtype == table.neighbours.dtype and new.k == table.k
    assert np.array_equal(new.neighbours[1:], table.neighbours[1:])  # other rows as they were
    assert table_figures(new)["same_letter_precision"] > table_figures(table)[
        "same_letter_precision"]
    # each entry's share read back is kept beside it (what the attack draws among), 1 in the rows
    # not re-ranked
    assert table.reads is None and new.reads.shape == new.neighbours.shape
    assert new.reads[0, 0] == 1.0 and np.all(new.reads[1:] == 1.0)
    assert new.reads[0, 1] == read_back_rates("a", [a[1]], ["water", "cat"], renderer)[0]


def test_a_blurred_word_keeps_its_ink_and_spreads_it():
    renderer = dejavu_renderer(32)
    sharp = renderer.render("salad")
    soft = blurred(sharp, 2)
    assert soft.shape == sharp.shape and soft.dtype == np.uint8
    assert soft.max() < sharp.max() and (soft > 0).sum() > (sharp > 0).sum()
    assert abs(int(soft.sum()) - int(sharp.sum())) < 0.02 * int(sharp.sum())  # ink moves, stays
    with pytest.raises(ValueError, match="blur radius must be positive, got 0"):
        blurred(sharp, 0)


def test_the_blur_option_adds_a_blurred_reading_and_is_checked():
    assert Rerank().renderings == (0.0,)  # sharp only unless the config says otherwise
    assert Rerank(blur=2.0).renderings == (0.0, 2.0)
    with pytest.raises(ValueError, match="blur is a radius in pixels"):
        Rerank(blur=-1.0)
    from omegaconf import OmegaConf

    from train.visual.export import rerank_settings

    cfg = {"pool": 3, "carriers": 2, "px": 40, "bonus": 1.0, "weight": 0.3, "case": 1.0}
    assert rerank_settings(OmegaConf.create(cfg)).blur == 0.0  # an older config: sharp only
    assert rerank_settings(OmegaConf.create({**cfg, "blur": 2})).renderings == (0.0, 2.0)


@needs_tesseract
def test_a_candidate_is_read_as_far_as_it_is_read_sharp_and_blurred():
    renderer = dejavu_renderer(32)
    # for a: Cyrillic а, ä, Ж, ɑ (Latin alpha), ạ; at 32 px a blur of 3 px melts ɑ and ạ
    chars = ["\u0430", "\u00e4", "\u0416", "\u0251", "\u1ea1"]
    carriers = ["water", "salad"]
    sharp = read_back_rates("a", chars, carriers, renderer)
    soft = read_back_rates("a", chars, carriers, renderer, blurs=(3.0,))
    both = read_back_rates("a", chars, carriers, renderer, blurs=(0.0, 3.0))
    assert np.array_equal(both, np.minimum(sharp, soft))
    assert both[0] == 1.0 and both[2] == 0.0  # а read both ways, Ж neither
    assert sharp[3] > both[3]  # ɑ is read sharp, less often blurred


def test_the_readers_are_checked_before_any_reading():
    assert Rerank().readers == ("tesseract",)  # one reader unless the config names more
    with pytest.raises(ValueError, match="unknown reader 'abbyy'; choose one of tesseract"):
        Rerank(readers=("tesseract", "abbyy"))
    with pytest.raises(ValueError, match="readers is empty"):
        Rerank(readers=())


@needs_tesseract
@needs_rapidocr
def test_a_candidate_is_read_as_far_as_every_reader_reads_it():
    renderer = dejavu_renderer(32)
    # for a: Cyrillic а, ä, Ж, ɑ (Latin alpha), ª, ᵃ; read in two words by each reader
    chars = ["\u0430", "\u00e4", "\u0416", "\u0251", "\u00aa", "\u1d43"]
    carriers = ["water", "salad"]
    each = {r: read_back_rates("a", chars, carriers, renderer, readers=(r,))
            for r in ("tesseract", "rapidocr")}
    both = read_back_rates("a", chars, carriers, renderer, readers=("tesseract", "rapidocr"))
    assert np.array_equal(both, np.minimum(each["tesseract"], each["rapidocr"]))
    assert both[0] == 1.0 and both[2] == 0.0  # а read by both, Ж by neither
    assert not np.array_equal(each["tesseract"], each["rapidocr"])  # the readers differ


@needs_tesseract
def test_rerank_exported_rewrites_the_table_and_keeps_the_index(tmp_path):
    """``python -m train.export export=visual ckpt=null``: the letters of an exported table
    re-ranked in place, its index byte for byte, the manifest's checksums right."""
    from omegaconf import OmegaConf

    from train.publish import Destination
    from train.visual.export import rerank_exported
    from zeroe_assets.assets import load_component, write_component

    chars = "a\u0416\u2202\u0430"  # a Ж ∂ а
    cos = np.array([1.0, 0.95, 0.9, 0.6], np.float32)
    vectors = np.stack([cos, np.sqrt(1 - cos ** 2), np.zeros(4)], 1)
    vectors[1:3, 1] *= -1
    keys = np.array([ord(c) for c in chars], np.uint16)
    index = VectorIndex.build(vectors, keys)
    learned = np.array([[0x416, 0x2202]] + [[ord("a"), 0x2202]] * 3, np.uint16)
    table = NeighbourTable(keys, learned, np.full((4, 2), 0.9, np.float16))
    write_component("visual", {**index.files("index"), **table.files("table")}, {"top_k": 2},
                    root=tmp_path)
    before = load_component("visual", tmp_path)
    index_bytes = before.file("index.faiss").read_bytes()
    (tmp_path / "train.txt").write_text("water data lava salad\n")  # water: held out
    (tmp_path / "test.txt").write_text("house water\n")
    cfg = OmegaConf.create({"top_k": 2, "batch_size": 1, "rerank": {
        "words": str(tmp_path / "train.txt"), "held_out": str(tmp_path / "test.txt"),
        "tuning_words": 3, "seed": 0, "pool": 3, "carriers": 2, "px": 40, "bonus": 1.0,
        "weight": 0.3, "case": 1.0}})
    meta = rerank_exported(cfg, Destination(tmp_path, tmp_path, tmp_path / "run", replace=True,
                                            force=False))
    after = load_component("visual", tmp_path)  # verifies every checksum
    assert "table.reads.npy" in after.files
    row = NeighbourTable.from_component(after, "table").neighbours[0].tolist()
    assert chr(row[0]) == "\u0430" and 0x2202 not in row  # ∂ would cut the word
    assert after.file("index.faiss").read_bytes() == index_bytes
    assert meta["rerank"]["rows"]["a"]["before"] == "\u0416\u2202"
    assert meta["quality"]["table"] == meta["rerank"]["table_after"]


def test_the_shipped_table_is_what_the_exports_settings_make():
    """The shipped letters' rows were re-ranked with ``conf/export/visual.yaml``'s settings
    (readers, carriers, size, weights, blur), so re-running the export reproduces them; only where
    the data lives may differ."""
    from omegaconf import OmegaConf

    manifest = ROOT / "artifacts" / "manifest.json"
    if not manifest.is_file():
        pytest.skip("no shipped artifacts in the checkout")
    meta = json.loads(manifest.read_text(encoding="utf-8"))["components"]["visual"]["meta"]
    record = meta["rerank"]
    conf = OmegaConf.to_container(OmegaConf.load(ROOT / "conf" / "export" / "visual.yaml").rerank)
    paths = {"words", "held_out"}
    settings = {"blur": 0.0, **record["settings"]}  # exports before the option read sharp only
    assert {k: v for k, v in settings.items() if k not in paths} == {
        k: v for k, v in conf.items() if k not in paths}
    assert [r.split()[0].lower() for r in record["readers"]] == conf["readers"]
