import collections

import pytest

from tests.conftest import DATA, needs_data
from train.phonetic.lexicon import (LexiconError, filter_lexicon, read_cmudict, read_combilex,
                                    read_phones_tsv, split_lexicon, split_of, split_summary)

COMBILEX = DATA / "combilex" / "combilex_en_ph.tsv"


@pytest.fixture(scope="module")
def cmu():
    return filter_lexicon(read_cmudict())


def write(tmp_path, text, name="lex.tsv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_cmudict_strips_stress_and_keeps_every_pronunciation(cmu):
    assert cmu.entries["read"] == (("R", "EH", "D"), ("R", "IY", "D"))
    assert all(not p[-1].isdigit() for p in cmu.phones())
    assert len(cmu.phones()) == 39  # the ARPAbet phoneme set
    stressed = read_cmudict(stress=True)
    assert ("R", "IY1", "D") in stressed.entries["read"] and stressed.stress


def test_combilex_reader_one_character_per_phoneme(tmp_path):
    lex = read_combilex(write(tmp_path, "relocate\tri5FkPt+\nPolish\tpQlIS\npolish\tpQlIS\n"
                                        "polish\tp5lIS\n\nsere\tsQr+\n"))
    assert lex.entries["relocate"] == (tuple("ri5FkPt+"),)
    # lower-casing merges spellings; repeated pronunciations are kept once, in reading order
    assert lex.entries["polish"] == (tuple("pQlIS"), tuple("p5lIS"))
    assert lex.sounding(tuple("ri5FkPt+")) == tuple("ri5FkPt")
    assert lex.sounding(tuple("sQr0")) == tuple("sQr")


def test_phones_tsv_reader(tmp_path):
    lex = read_phones_tsv(write(tmp_path, "cat\tK AE T\ntomato\tT AH M EY T OW\ntomato\tT AH M AA T OW\n"))
    assert lex.entries["tomato"] == (("T", "AH", "M", "EY", "T", "OW"), ("T", "AH", "M", "AA", "T", "OW"))
    assert lex.num_pairs() == 3 and not lex.silent


@pytest.mark.parametrize("reader", [read_combilex, read_phones_tsv])
def test_malformed_line_names_file_and_line(tmp_path, reader):
    path = write(tmp_path, "cat\tK AE T\ndog K AO G\nbird\tB ER D\n")
    with pytest.raises(LexiconError, match=rf"{path.name}:2: expected"):
        reader(path)
    lenient = reader(path, lenient=True)
    assert lenient.skipped == 1 and set(lenient.entries) == {"cat", "bird"}
    with pytest.raises(LexiconError, match=":1: empty"):
        reader(write(tmp_path, "cat\t \n", "blank.tsv"))


def test_empty_lexicon_is_an_error(tmp_path):
    with pytest.raises(LexiconError, match="empty"):
        read_phones_tsv(write(tmp_path, "\n\n"))
    lex = read_phones_tsv(write(tmp_path, "a\tAH\nx-ray\tEH K S R EY\n"))
    with pytest.raises(LexiconError, match="no word passes"):
        filter_lexicon(lex)


def test_filter_length_and_pattern(tmp_path):
    lex = read_phones_tsv(write(tmp_path, "a\tAH\nit's\tIH T S\nx-ray\tEH K S R EY\nco2\tK OW\n"
                                          "ok\tOW K EY\n"))
    assert set(filter_lexicon(lex).entries) == {"it's", "ok"}
    assert set(filter_lexicon(lex, min_len=1, pattern=None).entries) == set(lex.entries)


@needs_data("combilex/combilex_en_ph.tsv")
def test_real_combilex_file():
    lex = read_combilex(COMBILEX, lowercase=False)
    assert len(lex) == 73576 and len(lex.phones()) == 55
    assert lex.num_pairs() == 78093  # 80,000 lines, repeated word/transcription lines kept once
    assert {"+", "0"} <= set(lex.phones()) and lex.silent == {"+", "0"}
    assert len(filter_lexicon(read_combilex(COMBILEX))) > 70000


def test_split_is_a_pure_function_of_the_lower_cased_word():
    # golden values: changing the split function silently would leak test words into training
    assert [split_of(w) for w in ("cat", "read", "zeroe", "hero")] == ["val", "train", "test", "train"]
    assert split_of("Cat") == split_of("cat")
    assert split_of("cat", salt="other") in ("train", "val", "test")
    with pytest.raises(ValueError, match="summing to 1"):
        split_of("cat", (0.5, 0.2, 0.2))


def test_split_disjoint_covering_and_proportional(cmu):
    splits = split_lexicon(cmu)
    words = [set(part.entries) for part in splits.values()]
    assert sum(map(len, words)) == len(cmu) and not (words[0] & words[1] or words[1] & words[2]
                                                     or words[0] & words[2])
    share = {name: len(part) / len(cmu) for name, part in splits.items()}
    assert share["train"] == pytest.approx(0.9, abs=0.01) and share["test"] == pytest.approx(0.05, abs=0.005)
    summary = split_summary(splits)
    assert summary == split_summary(split_lexicon(cmu))
    assert collections.Counter(len(summary[s]["sha256"]) for s in splits) == {64: 3}


@pytest.mark.parametrize("reader", [read_combilex, read_phones_tsv])
def test_missing_file_names_the_path_and_the_key(tmp_path, reader):
    missing = tmp_path / "missing.tsv"
    with pytest.raises(FileNotFoundError,
                       match=rf"lexicon file {missing} does not exist \(set lexicon.reader.path\)"):
        reader(missing)


def test_tsv_readers_skip_comments_and_a_bom_and_merge_numbered_alternates(tmp_path):
    path = tmp_path / "lex.tsv"
    path.write_text("\ufeffnight\tN AY T\n# a comment\tX\n;;; another\nread\tR IY D\n"
                    "read(2)\tR EH D\n", encoding="utf-8")
    lex = read_phones_tsv(path)
    assert sorted(lex.entries) == ["night", "read"]
    assert sorted(lex.entries["read"]) == [("R", "EH", "D"), ("R", "IY", "D")]
