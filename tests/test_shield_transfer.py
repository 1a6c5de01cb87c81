"""The pure part of benchmarks/shield_transfer.py: the shares computed from restored adversarial
texts with a toy victim (TextAttack itself is too slow for the suite)."""
from __future__ import annotations

import pytest

from .conftest import load_benchmark


@pytest.fixture(scope="module")
def transfer():
    return load_benchmark("shield_transfer")


def toxic(texts):
    """A toy victim: 1 when the text has the word "idiot" (any case), else 0."""
    return [int("idiot" in t.lower().split()) for t in texts]


ROWS = [  # the victim's clean prediction was right (gold 1) and the attack flipped it
    {"clean": "you idiot", "adversarial": "you idoit", "gold": 1},
    {"clean": "what an idiot he is", "adversarial": "what an id1ot he is", "gold": 1},
    {"clean": "IDIOT", "adversarial": "1DIOT", "gold": 1},
    {"clean": "such an idiot", "adversarial": "such an idoit", "gold": 1},
]


def test_shares_counts_turned_back_exact_and_words(transfer):
    assert toxic([r["clean"] for r in ROWS]) == [1, 1, 1, 1]
    assert toxic([r["adversarial"] for r in ROWS]) == [0, 0, 0, 0]
    restored = ["you idiot",            # exact
                "What an idiot he is",  # same words, not exact
                "Idiot",                # same words, not exact
                "such an idot"]         # one word of three still wrong: not turned back
    restored_clean = ["you idiot", "what an idiot he is", "idiot", "such an idiom"]
    out = transfer.shares(ROWS, restored, restored_clean, toxic)
    assert out == {"adversarial": 4, "turned_back": 0.75, "exact": 0.25, "same_words": 0.75,
                   "word_accuracy": round(10 / 11, 4),  # 2 + 5 + 1 + 2 of 11 clean words
                   "clean_kept": 0.75,   # "such an idiom" is no longer toxic
                   "clean_exact": 0.5}   # "idiot" is not "IDIOT"


def test_shares_with_no_cleaning_turns_nothing_back(transfer):
    out = transfer.shares(ROWS, [r["adversarial"] for r in ROWS], [r["clean"] for r in ROWS],
                          toxic)
    assert out == {"adversarial": 4, "turned_back": 0.0, "exact": 0.0, "same_words": 0.0,
                   "word_accuracy": round(7 / 11, 4),  # 1 + 4 + 0 + 2: the attacked words
                   "clean_kept": 1.0, "clean_exact": 1.0}


def test_shares_pairs_give_the_victim_the_premise(transfer):
    seen = []

    def nli(pairs):
        seen.extend(pairs)
        return ["entailment" if h.split()[-1] in p.split() else "neutral" for p, h in pairs]

    rows = [{"premise": "a dog runs", "clean": "the dog", "adversarial": "the d0g",
             "gold": "entailment"}]
    out = transfer.shares(rows, ["the dog"], ["the dog"], nli)
    assert out["turned_back"] == 1.0 and out["exact"] == 1.0
    assert ("a dog runs", "the dog") in seen
    assert transfer.shares([], [], [], nli) == {"adversarial": 0}


def test_misses_name_the_tokens_left_and_broken(transfer):
    got = transfer.misses("you are a stupid liar", "you are a stuipd lair",
                          "you are an stupid lair")
    assert got == [("broken", "a", "a", "an"), ("unrestored", "liar", "lair", "lair")]
    # a different token count does not pair up
    assert transfer.misses("a b", "a b c", "a b") == []


def test_token_kinds_of_tweets(transfer):
    assert [transfer.token_kind(t) for t in ("#MAGA", '"@USER', "URL", "URL.", "idiot,")] == \
        ["hashtag", "mention", "URL", "URL", "word"]
