"""Each constraint on texts the search makes: what it allows before a change and what it
accepts after."""
from __future__ import annotations

import math
import random

import pytest

from zeroe_assets import registry
from zeroe_assets.assets import ArtifactError
from zeroe_assets.constraints import (EditDistance, MaxPerturbed, MinWordLength, NoRepeat,
                                      PhoneticClass, Protected, Stopwords, VisualSimilarity,
                                      check_all)
from zeroe_assets.data import stopwords
from zeroe_assets.search import AttackedText, Edit


def _text(s: str) -> AttackedText:
    return AttackedText.from_input("text", s)


def _change(text: AttackedText, position: int, word: str) -> AttackedText:
    s, i = text.locate(position)
    return text.apply(Edit(s, ((i, word),), (), (position,)))


def test_max_perturbed_rounds_the_share_up_and_counts_words():
    text = _text("one two three four five six seven")  # 7 words: ⌈0.3·7⌉ = 3
    rho = MaxPerturbed(share=0.3)
    assert rho.limit(text) == 3 == math.ceil(0.3 * 7)
    changed = text
    for p in range(3):
        assert rho.allows(changed, p + 3)
        changed = _change(changed, p, "x" + changed.word(p))
    assert rho.check(text, changed) and not rho.allows(changed, 5)
    assert not rho.check(text, _change(changed, 5, "sixx"))
    assert MaxPerturbed(share=0.9, count=1).limit(text) == 1
    with pytest.raises(ValueError, match="share of words perturbed"):
        MaxPerturbed(share=1.5)
    with pytest.raises(ValueError, match="needs a share"):
        MaxPerturbed()


def test_no_word_modified_twice():
    text = _text("alpha beta gamma")
    once = _change(text, 1, "bta")
    assert NoRepeat().allows(once, 0) and not NoRepeat().allows(once, 1)
    twice = _change(once, 1, "bet")
    assert twice.repeated and not NoRepeat().check(text, twice)
    assert NoRepeat().check(text, _change(once, 2, "gama"))
    join = text.apply(Edit(0, (), ((2, ""),), (0, 1)))  # a segment join touches both words
    assert join.modified == {0, 1} and not NoRepeat().check(text, _change(join, 1, "bta"))


def test_stopwords_and_their_stems_stay():
    words = stopwords()
    assert {"the", "don't", "is"} <= words and "coach" not in words
    text = _text("The coach don't like it")
    stop = Stopwords()
    assert [stop.allows(text, p) for p in range(len(text))] == [False, True, False, True, False]
    assert not stop.check(text, _change(text, 0, "Teh"))
    assert stop.check(text, _change(text, 1, "caoch"))
    assert Stopwords(["coach"]).keeps(text, 1)
    as_textattack = Stopwords(case_sensitive=True)  # "The" is not "the" to TextAttack
    assert [as_textattack.allows(text, p) for p in range(len(text))] == \
        [True, True, False, True, False]


def test_protected_tokens_hashtags_and_patterns():
    text = _text("@USER look at #MAGA now URL id42x")
    plain = Protected()
    assert [plain.allows(text, p) for p in range(len(text))] == \
        [False, True, True, True, True, False, True]
    tags = Protected(hashtags=True, patterns=[r"id\d+x"])
    assert not tags.allows(text, 3) and not tags.allows(text, 6) and tags.allows(text, 1)
    joined = text.apply(Edit(0, (), ((1, ""),), (0, 1)))  # "@USERlook": USER is touched
    assert not plain.check(text, joined)
    with pytest.raises(ValueError, match="not a regular expression"):
        Protected(patterns=["("])


def test_min_word_length():
    text = _text("I can see clearly")
    assert [MinWordLength(4).allows(text, p) for p in range(4)] == [False, False, False, True]


def test_edit_distance_normalised_and_absolute():
    text = _text("abcdefghij klmno")  # 16 characters
    one = _change(text, 0, "abcdefghiX")
    three = _change(text, 1, "kXXXo")
    assert EditDistance(normalised=1 / 16).check(text, one)
    assert not EditDistance(normalised=1 / 16).check(text, three)
    assert EditDistance(absolute=3).check(text, three)
    assert not EditDistance(absolute=2).check(text, three)
    assert check_all([EditDistance(absolute=1), NoRepeat()], text, [one, three]) == [one]
    with pytest.raises(ValueError, match="normalised or an absolute"):
        EditDistance()


def test_visual_similarity_keeps_look_alike_replacements():
    if not registry.is_available("visual"):
        pytest.skip("no visual assets")
    visual = registry.get_perturber("visual")
    text = _text("hello world")
    constraint = VisualSimilarity()
    forms = visual.candidates("hello", 5, random.Random(0))
    assert forms and all(constraint.check(text, _change(text, 0, f)) for f in forms)
    assert not constraint.check(text, _change(text, 0, "helo"))  # a deletion
    assert not constraint.check(text, _change(text, 0, "hezlo"))  # z does not look like l


def test_visual_similarity_without_assets_says_what_is_missing(empty_artifacts):
    text = _text("hello")
    with pytest.raises(ArtifactError, match="visual"):
        VisualSimilarity().check(text, _change(text, 0, "hellö"))


def test_phonetic_class_keeps_sound_alikes():
    if not registry.is_available("phonetic"):
        pytest.skip("no phonetic assets")
    pytest.importorskip("torch")
    text = _text("see you tonight")
    constraint = PhoneticClass()
    sound = _change(_change(text, 2, "tonite"), 0, "c")
    noise = _change(text, 2, "tqzxvh")
    assert check_all([constraint], text, [sound, noise]) == [sound]
    with pytest.raises(ValueError, match="phonetic classes are"):
        PhoneticClass(["loud"])
