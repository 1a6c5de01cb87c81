"""Phonetic pipeline, no training: distance bins, slang list, pair sets, configs, table format."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from train.phonetic.lexicon import read_phones_tsv, split_of
from train.phonetic.pairs import (build_pairs, label_of, normalised_distance, pair_split,
                                  read_slang, word_distance)
from zeroe_assets.assets import ArtifactError, load_component, write_component
from zeroe_assets.assets.tables import PhoneticTable
from zeroe_assets.data import stopwords
from zeroe_assets.phonetic.embedder import CLASSES

RATIOS = (0.6, 0.2, 0.2)
TINY = {
    "night": "N AY T", "knight": "N AY T", "write": "R AY T", "right": "R AY T", "rite": "R AY T",
    "their": "DH EH R", "there": "DH EH R", "two": "T UW", "too": "T UW", "by": "B AY",
    "buy": "B AY", "bye": "B AY", "see": "S IY", "sea": "S IY", "know": "N OW", "no": "N OW",
    "sun": "S AH N", "son": "S AH N", "mail": "M EY L", "male": "M EY L", "tail": "T EY L",
    "tale": "T EY L", "meet": "M IY T", "meat": "M IY T", "blue": "B L UW", "blew": "B L UW",
    "plain": "P L EY N", "plane": "P L EY N", "organization": "AO R G AH N AH Z EY SH AH N",
    "organizations": "AO R G AH N AH Z EY SH AH N Z",
    "communication": "K AH M Y UW N AH K EY SH AH N",
    "communications": "K AH M Y UW N AH K EY SH AH N Z",
    "responsibility": "R IY S P AA N S AH B IH L AH T IY",
    "responsibilities": "R IY S P AA N S AH B IH L AH T IY Z",
    "international": "IH N T ER N AE SH AH N AH L",
    "internationally": "IH N T ER N AE SH AH N AH L IY", "table": "T EY B AH L",
    "tables": "T EY B AH L Z", "paper": "P EY P ER", "papers": "P EY P ER Z", "water": "W AO T ER",
    "waters": "W AO T ER Z", "river": "R IH V ER", "rivers": "R IH V ER Z", "stone": "S T OW N",
    "stones": "S T OW N Z", "phone": "F OW N", "phones": "F OW N Z", "photo": "F OW T OW",
    "photos": "F OW T OW Z", "music": "M Y UW Z IH K", "musical": "M Y UW Z IH K AH L",
    "laugh": "L AE F", "laughed": "L AE F T", "rough": "R AH F", "tough": "T AH F",
    "cat": "K AE T", "cut": "K AH T", "dog": "D AO G", "house": "HH AW S", "mouse": "M AW S",
    "light": "L AY T", "green": "G R IY N", "yellow": "Y EH L OW", "queen": "K W IY N",
    "white": "W AY T", "kitten": "K IH T AH N", "garden": "G AA R D AH N",
}


def write_tiny(path: Path) -> Path:
    path.write_text("".join(f"{w}\t{p}\n" for w, p in TINY.items()))
    return path


@pytest.mark.parametrize("d, label", [
    (0.0, "identical"), (1 / 11, "very_similar"), (1 / 10, "very_similar"), (2 / 10, "similar"),
    (3 / 10, "similar"), (1 / 3, "different"), (4 / 10, "different"), (2.0, "different")])
def test_bins_closed_on_the_right(d, label):
    assert CLASSES[label_of(d)] == label


def test_distance_is_normalised_by_the_shorter_pronunciation():
    assert normalised_distance(("K", "AE", "T"), ("K", "AH", "T")) == pytest.approx(1 / 3)
    ten = tuple("ABCDEFGHIJ")
    assert normalised_distance(ten, ten[:-1] + ("X",)) == pytest.approx(0.1)
    assert normalised_distance(("A", "B"), ("A", "B", "C", "D")) == 1.0
    assert CLASSES[label_of(normalised_distance(ten, ten + ("Z",)))] == "very_similar"
    # several pronunciations: the closest pair decides
    prons = {"won": ["wan", "wön"], "one": ["wan"]}
    assert word_distance(prons, "won", "one") == 0
    with pytest.raises(ValueError):
        normalised_distance((), ("A",))


def test_packaged_slang_list():
    slang = read_slang()
    assert len(slang) >= 100
    assert len({(w, r) for w, r, _ in slang}) == len(slang)
    assert ("night", "nite", 0) in slang and ("great", "gr8", 0) in slang
    assert all(w != r and c in (0, 1) for w, r, c in slang)


def test_malformed_slang_names_the_line(tmp_path):
    bad = tmp_path / "slang.tsv"
    bad.write_text("# comment\nyou\tu\tidentical\nlove\tluv\tsimilar\n")
    with pytest.raises(ValueError, match=r"slang.tsv:3"):
        read_slang(bad)


def test_pairs_are_labelled_balanced_and_respect_the_split(tmp_path):
    lexicon = read_phones_tsv(write_tiny(tmp_path / "tiny.tsv"))
    slang = [("night", "nite", 0), ("photo", "foto", 0), ("going", "goin", 1)]
    pairs = build_pairs(lexicon, per_class=12, slang=slang, max_bucket=1000, split_ratios=RATIOS,
                        seed=3)
    again = build_pairs(lexicon, per_class=12, slang=slang, max_bucket=1000, split_ratios=RATIOS,
                        seed=3)
    assert (pairs.a, pairs.b, pairs.label) == (again.a, again.b, again.label)
    counts = np.bincount(pairs.label, minlength=4)
    assert all(0 < c <= 12 for c in counts)
    assert sum(pairs.shortfall.values()) == 4 * 12 - len(pairs)
    prons = {w: [p] for w, p in TINY.items()}
    for a, b, label, d, split, source in zip(pairs.a, pairs.b, pairs.label, pairs.distance,
                                             pairs.split, pairs.source):
        assert a != b and split == pair_split(a, b, RATIOS)
        if split == "train":  # no held-out word in a training pair
            assert split_of(a, RATIOS) == split_of(b, RATIOS) == "train"
        if source == "slang":
            assert (a, b, label) in slang or (b, a, label) in slang
        else:
            dist = word_distance({w: [tuple(p.split())] for w, [p] in prons.items()}, a, b)
            assert dist == pytest.approx(d) and label == label_of(d)
    assert {"lexicon", "slang", "random"} <= set(pairs.source)
    summary = pairs.summary()
    assert sum(sum(v.values()) for v in summary["per_split"].values()) == len(pairs)
    pairs.write_tsv(tmp_path / "pairs.tsv")
    assert len((tmp_path / "pairs.tsv").read_text().splitlines()) == len(pairs) + 1


def test_table_round_trip_and_corruption(tmp_path):
    table = PhoneticTable.build(["night", "the", "cat"],
                                [[("nite", 0.99, 5), ("knight", 0.9, 2)], [], [("kat", 0.8, 1)]])
    assert table.options() == {"night": ("nite", "knight"), "cat": ("kat",)}
    write_component("phonetic", table.files(), {}, root=tmp_path)
    loaded = PhoneticTable.from_component(load_component("phonetic", tmp_path))
    assert loaded.row(0)[0][0] == "nite" and loaded.row(0)[0][2] == 5 and loaded.words == table.words
    files = table.files()
    files["table.offsets.npy"] = files["table.offsets.npy"][:-4] + np.uint32(7).tobytes()
    write_component("phonetic", files, {}, root=tmp_path)  # checksums fine, content inconsistent
    with pytest.raises(ArtifactError, match="corrupt phonetic table"):
        PhoneticTable.from_component(load_component("phonetic", tmp_path))
    with pytest.raises(ValueError, match="newlines"):
        PhoneticTable.build(["a\nb"], [[]])


def test_stopwords_file():
    words = stopwords()
    assert {"the", "and", "you", "don't"} <= words and "night" not in words
    assert all(w == w.lower().strip() for w in words)


def test_runtime_imports_without_torch():
    code = ("import sys, zeroe_assets.perturbers.phonetic, zeroe_assets.phonetic, "
            "zeroe_assets.cli.neighbours; "
            "assert not {'torch', 'lightning', 'pytorch_lightning', 'hydra'} & set(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_too_small_lexicon_is_a_clear_error(tmp_path):
    from train.phonetic.pair_datamodule import PairDataModule

    path = tmp_path / "three.tsv"
    path.write_text("night\tN AY T\nknight\tN AY T\nnite\tN AY T\n")
    with pytest.raises(ValueError, match="too small for split ratios"):
        PairDataModule(read_phones_tsv(path), per_class=5, slang=False).prepare()


def test_a_slang_pair_is_not_also_drawn_from_the_lexicon(tmp_path):
    lexicon = read_phones_tsv(write_tiny(tmp_path / "tiny.tsv"))
    slang = [("night", "knight", 1)]  # the list says very similar, the lexicon identical
    pairs = build_pairs(lexicon, per_class=40, slang=slang, max_bucket=1000, split_ratios=RATIOS,
                        seed=0)
    found = [(label, source) for a, b, label, source in
             zip(pairs.a, pairs.b, pairs.label, pairs.source) if {a, b} == {"night", "knight"}]
    assert found == [(1, "slang")]
