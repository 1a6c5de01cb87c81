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


def test_three_edit_texts_score_as_the_victim_does(floor, victim):
    """`score_replaced` (any separate spans replaced) and `span_effects` (a touching pair's
    four sums) against the victim's ``decision_function``, on random 1+1+1 and 2+1 texts."""
    sent = floor.Sentence("a tired , dull film this year", floor.Weights(victim))
    units = floor.Units(sent)
    rng = random.Random(1)
    texts, mine = [], []
    while len(texts) < 60:
        i, j, k = rng.sample(range(len(units.keys)), 3)
        spans = [units.keys[x] for x in (i, j, k)]
        if all(units.separate(p[0], p[1], q[0], q[1])
               for n, p in enumerate(spans) for q in spans[n + 1:]):
            texts.append(floor.witness_text(sent, spans))
            mine.append(floor.score_replaced(sent, spans))
    for _ in range(60):
        v = rng.randrange(len(units.pair_keys))
        pair = units.pair_keys[v]
        e = units.pair_eff[v]
        alone = sent.w.bias + floor.term(sent.nw + e[0], sent.sw + e[1]) + \
            floor.term(sent.nc + e[2], sent.sc + e[3])
        assert float(alone) == pytest.approx(floor.score_replaced(sent, [pair]), abs=1e-9)
        k = rng.choice([k for k in range(len(units.keys)) if units.separate(
            pair[0], pair[1], units.a[k], units.b[k])])
        texts.append(floor.witness_text(sent, [pair, units.keys[k]]))
        mine.append(floor.score_replaced(sent, [pair, units.keys[k]]))
    real = victim.model.decision_function(victim._x(texts))
    assert max(abs(m - r) for m, r in zip(mine, real)) < 1e-9


def test_search3_returns_a_three_edit_text_and_its_exact_logit(floor, victim):
    from rapidfuzz.distance import Levenshtein

    sent = floor.Sentence("the best film this year", floor.Weights(victim))
    row = floor.search3(sent, floor.Units(sent), k1=40, k2=200, k3=20, keep=50)
    text = floor.witness_text(sent, row["witness"])
    assert Levenshtein.distance(sent.text, text) <= 3
    real = victim.model.decision_function(victim._x([text]))[0]
    sign = 1.0 if sent.logit < 0 else -1.0
    assert sign * real == pytest.approx(row["best"], abs=1e-9)
    assert row["flips"] == ((real > 0) != (sent.logit > 0))


@pytest.mark.parametrize("args, error", [
    (["--limit", "0"], "--limit must be at least 1, got 0"),
    (["--check", "-1"], "--check must be at least 0, got -1"),
    (["--brute-force", "-5"], "--brute-force must be at least 0, got -5"),
    (["--check", "2", "--brute-force", "30"], "--check and --brute-force are other runs each: "
                                              "give one"),
    (["--brute-force", "30", "--triples", "r.jsonl"], "--brute-force and --triples are other "
                                                       "runs each: give one"),
    (["--triples", "missing.jsonl"], "--triples missing.jsonl: no such file (an attack's "
                                     "records.jsonl)"),
    (["--at-least", "5", "--at-most", "4"], "--at-most must be at least 5, got 4"),
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
