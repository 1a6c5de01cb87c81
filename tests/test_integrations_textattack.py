"""Zéroe's mechanisms inside TextAttack (0.3.11, offline): real TextAttack attacks on a TF-IDF
victim trained here, whose adversarial texts are chains of the mechanism's candidates;
determinism, segmentation's merges, bad input (that ``import zeroe_assets`` stays free of
TextAttack: ``test_layering``)."""
from __future__ import annotations

import importlib.util
import os

import pytest

from zeroe_assets.integrations import textattack_offline
from zeroe_assets.victims.sklearn import train_victim

from .test_search import _tweets


@pytest.fixture(scope="module")
def ta(tmp_path_factory):
    """The integration module, imported offline; the environment variables TextAttack sets on
    import (HF_HOME, XDG_CACHE_HOME …) are restored for the tests that follow."""
    if importlib.util.find_spec("textattack") is None:
        pytest.skip("textattack is not installed: pip install '.[textattack]' (make test does)")
    saved = dict(os.environ)
    try:
        textattack_offline.prepare(tmp_path_factory.mktemp("textattack"))
        from zeroe_assets.integrations import textattack as module
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return module


@pytest.fixture(scope="module")
def victim():
    return train_victim("tc-tfidf", *_tweets(300))


def _label(victim, text):
    return int(victim.predict([text])[0] >= 0.5)


def _attack(ta, victim, transformation, search=None, budget=2000):
    from textattack import Attack
    from textattack.constraints.pre_transformation import (RepeatModification,
                                                           StopwordModification)
    from textattack.goal_functions import UntargetedClassification
    from textattack.search_methods import GreedyWordSwapWIR

    goal = UntargetedClassification(ta.VictimWrapper(victim), query_budget=budget)
    return Attack(goal, [RepeatModification(), StopwordModification()], transformation,
                  search or GreedyWordSwapWIR("delete"))


def _made_of_candidates(original, adversarial: str, transformation) -> bool:
    """Whether ``adversarial`` is the ``original`` AttackedText with some of its words (at least
    one) each replaced by one of its candidates, the text between them unchanged."""
    text, pieces, start = original.text, [], 0
    for word in original.words:
        at = text.index(word, start)
        pieces.append((text[start:at], word))
        start = at + len(word)

    def match(i, at, changed):
        if i == len(pieces):
            return changed and adversarial[at:] == text[start:]
        gap, word = pieces[i]
        if not adversarial.startswith(gap, at):
            return False
        at += len(gap)
        return any(adversarial.startswith(r, at) and match(i + 1, at + len(r), changed or r != word)
                   for r in [word] + transformation._get_replacement_words(word))

    return match(0, 0, False)


@pytest.mark.parametrize("mechanism", ["ZeroeVisual", "ZeroeDisemvowel"])
def test_a_textattack_attack_finds_adversarial_texts_made_of_candidates(ta, victim, mechanism):
    from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult

    transformation = getattr(ta, mechanism)(k=20)
    attack = _attack(ta, victim, transformation)
    examples = [(t, y) for t, y in zip(*_tweets(12, seed=1))]
    results = [attack.attack(text, label) for text, label in examples]
    won = [(r, y) for r, (_, y) in zip(results, examples) if isinstance(r, SuccessfulAttackResult)]
    attacked = [r for r in results if not isinstance(r, SkippedAttackResult)]
    assert len(won) >= len(attacked) // 2 > 0
    for r, gold in won:
        adversarial = r.perturbed_result.attacked_text.text
        assert _label(victim, adversarial) != gold  # re-checked on the victim itself
        assert _made_of_candidates(r.original_result.attacked_text, adversarial, transformation)
        assert 0 < r.perturbed_result.num_queries <= 2000


def test_candidates_depend_on_seed_and_word_only(ta):
    from textattack.shared import AttackedText

    text = AttackedText("the weather was lovely and the people were kind")
    a, b = ta.ZeroeInnerShuffle(k=5, seed=3), ta.ZeroeInnerShuffle(k=5, seed=3)
    assert a.deterministic and b.deterministic and a.is_black_box
    backwards = [t.text for t in b(text, indices_to_modify=[8, 7, 6, 5, 4, 3, 2, 1, 0])]
    assert sorted(t.text for t in a(text)) == sorted(backwards)
    assert a._get_replacement_words("weather") == b._get_replacement_words("weather")
    other = ta.ZeroeInnerShuffle(k=5, seed=4)
    assert other._get_replacement_words("weather") != a._get_replacement_words("weather")
    # the perturber sees the word inside TextAttack's: @USER → USER, don't → do + n't
    assert all(r.startswith("@") for r in a._get_replacement_words("@USERNAME"))
    assert all(r.endswith("n't") for r in ta.ZeroeTruncate()._get_replacement_words("couldn't"))


def test_segment_joins_a_word_with_the_next_over_one_space(ta):
    from textattack.shared import AttackedText

    text = AttackedText("the movie, was\nfine today ok")
    joined = sorted(t.text for t in ta.ZeroeSegment()(text))
    assert joined == ["the movie, was\nfine todayok", "the movie, was\nfinetoday ok",
                      "themovie, was\nfine today ok"]
    first = text.replace_word_at_index(4, "tdy")  # a changed word is not absorbed
    assert sorted(t.text for t in ta.ZeroeSegment()(first)) == [
        "the movie, was\nfine tdyok", "themovie, was\nfine tdy ok"]


def test_all_ten_compose_in_a_greedy_search(ta, victim):
    from textattack.attack_results import SuccessfulAttackResult
    from textattack.search_methods import GreedySearch

    composite = ta.zeroe_composite(k=3)
    assert len(composite.transformations) == 10
    attack = _attack(ta, victim, composite, GreedySearch())
    text, label = next((t, y) for t, y in zip(*_tweets(12, seed=1)) if y == 1)
    result = attack.attack(text, label)
    assert isinstance(result, SuccessfulAttackResult)
    assert _label(victim, result.perturbed_result.attacked_text.text) != label


def test_victim_wrapper_gives_class_probabilities(ta, victim):
    texts = _tweets(4, seed=2)[0]
    out = ta.VictimWrapper(victim)(texts)
    assert out.shape == (4, 2) and abs(out.sum(axis=1) - 1).max() < 1e-9
    assert list(out[:, 1]) == list(victim.predict(texts))


@pytest.mark.parametrize("build, message", [
    (lambda ta: ta.ZeroeTransformation("nope"), "unknown transformation"),
    (lambda ta: ta.ZeroeTransformation("segment"), "ZeroeSegment"),
    (lambda ta: ta.ZeroeTransformation(), "give a transformation name"),
    (lambda ta: ta.ZeroeVisual("truncate"), "ZeroeVisual is 'visual'"),
    (lambda ta: ta.ZeroeTruncate(k=0), "k must be an integer"),
    (lambda ta: ta.zeroe_composite([]), "at least one mechanism"),
])
def test_bad_input(ta, build, message):
    with pytest.raises(ValueError, match=message):
        build(ta)
