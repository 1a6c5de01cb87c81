"""The ranker's features name no restorer (issue #33): a candidate is described by how its
letters relate to the token, its frequency, its context and how surely and how widely its
proposers explain the line, so a ranker fit without one attack family still reads it."""
from __future__ import annotations

import numpy as np
import pytest

from zeroe_assets.shield.features import (FEATURES, MECHANISMS, RELATIONS, line_evidence,
                                          relations, token_features)
from zeroe_assets.shield.lexicon import load_lexicon


def flags(seen: str, reading: str) -> set[str]:
    return {name for name, flag in zip(RELATIONS, relations(seen, reading)) if flag}


def test_no_feature_names_a_restorer():
    for name in FEATURES:
        assert not any(m in name for m in MECHANISMS), name


@pytest.mark.parametrize("seen,reading,expected", [
    ("eenrg", "green", {"anagram"}),                                  # shuffled
    ("grn", "green", {"dropped", "consonants", "sound", "ends"}),      # disemvowelled
    ("gree", "green", {"dropped", "one_edit"}),                        # cut
    ("gguitar", "guitar", {"added", "sound", "ends", "one_edit"}),     # a letter intruded
    ("nite", "night", {"sound"}),                                      # respelled
    ("bihe", "bike", {"ends", "one_edit"}),                            # a slip inside
    ("rdivel", "drivel", {"anagram", "one_edit"}),                     # a swap
    ("abrightgreen", "a bright green", set()),                         # joined: the same letters
])
def test_relations_between_a_token_and_a_reading(seen, reading, expected):
    assert flags(seen, reading) == expected


def test_relations_of_the_token_itself_or_other_scripts_are_none():
    assert flags("green", "green") == set()
    assert flags("grееn", "green") == set()  # Cyrillic е: the visual reader's business


def test_a_reading_scores_the_same_whichever_restorer_proposed_it():
    lexicon = load_lexicon()
    rows = []
    for mechanism in MECHANISMS:
        candidates = {"green": {mechanism: 1.0}, "groan": {mechanism: 0.5}}
        evidence = line_evidence(lexicon, [("grn", candidates, "grn"), ("the", {}, "the")])
        readings, matrix = token_features(lexicon, "grn", "grn", False, candidates, "the", "grass",
                                          evidence)
        assert readings == ["grn", "green", "groan"]
        rows.append(matrix)
    for matrix in rows[1:]:
        np.testing.assert_array_equal(matrix, rows[0])


def test_frequency_share_and_line_relations():
    lexicon = load_lexicon()
    candidates = {"green": {"disemvowel": 1.0}, "groan": {"disemvowel": 1.0}}
    line = [("grn", candidates, "grn"), ("hs", {"has": {"disemvowel": 1.0}}, "hs"),
            ("a", {}, "a")]
    evidence = line_evidence(lexicon, line)
    assert evidence["oov"] == pytest.approx(2 / 3)
    assert evidence["rel_consonants"] == 1.0 and evidence["rel_anagram"] == 0.0
    readings, rows = token_features(lexicon, "grn", "grn", False, candidates, None, None, evidence)
    column = {name: rows[:, i] for i, name in enumerate(FEATURES)}
    green, groan = readings.index("green"), readings.index("groan")
    assert column["posterior"][green] > column["posterior"][groan] > 0
    assert column["posterior"][green] + column["posterior"][groan] == pytest.approx(1.0)
    assert column["top_freq"][green] == 1.0 and column["top_freq"][groan] == 0.0
    assert column["line_rel_consonants"][green] == 1.0
    assert column["keep_candidates"][0] > 0 and column["exact"][green] == 1.0
