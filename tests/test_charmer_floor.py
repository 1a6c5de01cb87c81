"""benchmarks/charmer_floor.py: its closed forms are the victim's own logits, and its pair
search finds what trying every two-edit text finds (a tiny victim, so brute force is quick)."""
from __future__ import annotations

import random

import pytest

from zeroe_assets.victims.sklearn import train_victim

from .conftest import load_benchmark

TRAIN = [("a fine , moving film", "pos"), ("a dull , tired mess", "neg"),
         ("moving and fine acting", "pos"), ("tired plot , dull acting", "neg"),
         ("the best film this year", "pos"), ("the worst film this year", "neg"),
         ("great fun", "pos"), ("bad fun", "neg"), ("so good", "pos"), ("so bad", "neg")]


@pytest.fixture(scope="module")
def floor():
    return load_benchmark("charmer_floor")


@pytest.fixture(scope="module")
def victim():
    return train_victim("generic-tfidf", [t for t, _ in TRAIN], [y for _, y in TRAIN])


def test_single_edits_pairs_and_touching_pairs_score_as_the_victim_does(floor, victim):
    sent = floor.Sentence("a tired , dull film this year", floor.Weights(victim))
    real = victim.model.decision_function(victim._x([sent.text]))[0]
    assert sent.logit == pytest.approx(real, abs=1e-9)
    found = floor.check(sent, victim, random.Random(0), 100)
    assert max(found["max_gap"]) < 1e-9
    assert found["labels_differ"] == [0, 0, 0]


def test_the_pair_search_finds_the_best_two_edit_text(floor, victim):
    sent = floor.Sentence("bad fun", floor.Weights(victim))
    row = floor.analyse(sent, complete=True)
    assert row["best"] == pytest.approx(floor.brute_force(sent), abs=1e-9)


def test_two_edits_that_make_a_known_bigram_across_two_words(floor, victim):
    """``bed fan`` → ``bad fun``: neither edit alone makes the bigram ``bad fun``, both do."""
    sent = floor.Sentence("bed fan", floor.Weights(victim))
    first, second = sent.span_of(1, "s", "a"), sent.span_of(5, "s", "u")
    keys = sorted({sent.span_of(*o) for o in sent.ops()} - {(0, 1, ("bed",)), (1, 2, ("fan",))})
    table = floor.PairTable(sent, keys)
    i, j = keys.index(first), keys.index(second)
    logit, separate = table.rows(i, i + 1)
    assert separate[0, j]
    real = victim.model.decision_function(victim._x(["bad fun"]))[0]
    assert logit[0, j] == pytest.approx(real, abs=1e-9)


@pytest.mark.parametrize("args, error", [
    (["--limit", "0"], "--limit must be at least 1, got 0"),
    (["--check", "-1"], "--check must be at least 0, got -1"),
    (["--brute-force", "-5"], "--brute-force must be at least 0, got -5"),
    (["--check", "2", "--brute-force", "30"], "--check and --brute-force are two other runs: "
                                              "give one"),
    ([], "no victim {work}/mr/generic-tfidf-odd.joblib: run search_vs_textattack.py --work "
         "{work} first (see --help)")])
def test_bad_arguments_are_one_line_before_anything_is_written(floor, args, error, tmp_path,
                                                               monkeypatch, capsys):
    # they were a traceback (ValueError: victim model not found), or, with the victim there,
    # an analysis of no sentence (--limit 0) or of a negative count
    work = tmp_path / "work"
    monkeypatch.setattr("sys.argv", ["charmer_floor.py", "--work", str(work), *args])
    with pytest.raises(SystemExit) as stop:
        floor.main()
    assert stop.value.code == 2 and not work.exists()
    assert capsys.readouterr().err.splitlines()[-1] == \
        f"charmer_floor.py: error: {error.format(work=work)}"
