"""The sound space's pieces that need no trained model: phone distance, classes, phone n-gram
vectors, and the shipped index (knows → nose, sea → see, flour → flower)."""
import numpy as np
import pytest

from zeroe_assets.assets import component_available
from zeroe_assets.phonetic.names import CLASSES
from zeroe_assets.phonetic.sound import BOUNDS, phone_distance, phone_vectors, sound_class


@pytest.mark.parametrize("d, label", [
    (0.0, "identical"), (1 / 11, "very_similar"), (0.1, "very_similar"), (0.2, "similar"),
    (0.3, "similar"), (1 / 3, "different"), (2.0, "different")])
def test_classes_are_closed_on_the_right(d, label):
    assert sound_class(d) == label and label in CLASSES


def test_phone_distance_is_over_the_shorter_pronunciation():
    assert phone_distance(("K", "AE", "T"), ("K", "AH", "T")) == pytest.approx(1 / 3)
    assert phone_distance(("N", "OW", "Z"), ("N", "OW", "Z")) == 0
    assert phone_distance(("T", "UW"), ("T", "UW", "Z")) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="empty pronunciation"):
        phone_distance((), ("A",))


def test_phone_vectors_are_unit_stable_and_near_for_near_pronunciations():
    prons = [("N", "OW", "Z"), ("N", "OW", "Z"), ("N", "OW", "N", "Z"), ("S", "IY")]
    v = phone_vectors(prons)
    assert v.shape == (4, 128) and np.allclose(np.linalg.norm(v, axis=1), 1)
    assert np.array_equal(v, phone_vectors(prons))  # no salted hash: the same in every process
    sims = v @ v.T
    assert sims[0, 1] == pytest.approx(1) and sims[0, 2] > sims[0, 3] and sims[0, 2] > 0.3


@pytest.mark.skipif(not component_available("phonetic"), reason="no exported phonetic assets")
@pytest.mark.parametrize("word, expected", [("knows", "nose"), ("sea", "see"), ("flour", "flower"),
                                            ("their", "there"), ("night", "knight")])
def test_the_shipped_space_hears(word, expected):
    from zeroe_assets.phonetic import load_phonetic

    near = load_phonetic().neighbours(word, 5)
    assert expected in [w for w, _ in near[:3]] and near[0][1] == 1.0
    assert [s for _, s in near] == sorted((s for _, s in near), reverse=True)


@pytest.mark.skipif(not component_available("phonetic"), reason="no exported phonetic assets")
def test_near_homophones_come_before_spelling_neighbours():
    from zeroe_assets.phonetic import load_phonetic

    sound = load_phonetic().sound
    found = sound.neighbours("organization", 10)
    dist = [sound.distance("organization", w) for w, _ in found]
    near = [d <= BOUNDS[0] for d in dist]
    assert near == sorted(near, reverse=True) and any(near)
