"""benchmarks/search_own_time.py's replayed victim: it gives back what the victim answered,
without asking it, so that a replayed attack is the same attack (a toy victim: the benchmark's
own runs take minutes)."""
from __future__ import annotations

import pytest

from zeroe_assets.search import get_recipe
from zeroe_assets.victims import Scorer
from zeroe_assets.victims.wrapper import TimedVictim

from .conftest import load_benchmark


@pytest.fixture(scope="module")
def own_time():
    return load_benchmark("search_own_time")


class Toxic:
    """P(offensive): 0.9 for a text with the word "idiot" (any case), else 0.1; counts texts."""

    task = "tc"

    def __init__(self):
        self.texts = 0

    def predict(self, batch):
        self.texts += len(batch)
        return [0.9 if "idiot" in t.lower().split() else 0.1 for t in batch]


EXAMPLES = [("you idiot", 1), ("what an idiot he is", 1), ("such a nice day", 0),
            ("IDIOT and liar", 1)]


def test_replayed_answers_are_the_victim_s_and_cost_it_nothing(own_time):
    victim = Toxic()
    recorded = own_time.Recorded(victim)
    first = recorded.predict(["you idiot", "a fine day"])
    asked = victim.texts
    recorded.replay = True
    assert recorded.predict(["a fine day", "you idiot"]) == first[::-1]
    assert victim.texts == asked  # the victim was not asked again
    with pytest.raises(KeyError):
        recorded.predict(["never asked"])  # a replay that asks something new is another run
    assert recorded.task == "tc"  # everything else is the victim's


def test_an_attack_replayed_gives_the_same_records(own_time):
    victim = own_time.Recorded(Toxic())

    def run():
        attack = get_recipe("deepwordbug", "tc", max_queries=50, seed=0)
        return [attack.run(e, victim, index=i).to_json() for i, e in enumerate(EXAMPLES)]

    real = run()
    assert any(r["status"] == "successful" for r in real)
    victim.replay = True
    assert run() == real


class Sentiment:
    """A ``generic`` victim with class probabilities: "dull" makes a text ``neg``; counts texts."""

    task = "generic"
    labels = ("neg", "pos")

    def __init__(self):
        self.texts = 0

    def scores(self, batch):
        self.texts += len(batch)
        return [[0.8, 0.2] if "dull" in t.split() else [0.3, 0.7] for t in batch]

    def predict(self, batch):
        return [self.labels[max(range(2), key=row.__getitem__)] for row in self.scores(batch)]


def test_a_label_victim_s_probabilities_are_replayed_too(own_time):
    victim = Sentiment()
    recorded = own_time.Recorded(victim)
    first = recorded.scores(["a dull film", "a fine film"])
    assert recorded.predict(["a dull film"]) == ["neg"]
    asked = victim.texts
    recorded.replay = True
    assert recorded.scores(["a fine film", "a dull film"]) == first[::-1]
    assert recorded.predict(["a dull film"]) == ["neg"]  # kept apart from the probabilities
    assert victim.texts == asked
    with pytest.raises(AttributeError):
        own_time.Recorded(Toxic()).scores  # a victim without probabilities has none here either

    def run():
        attack = get_recipe("deepwordbug", "generic", max_queries=50, seed=0)
        return [attack.run(e, recorded, index=i).to_json()
                for i, e in enumerate([("a dull film", "neg"), ("dull dull dull", "neg")])]

    recorded.replay = False
    real = run()
    assert any(r["status"] == "successful" for r in real)
    recorded.replay = True
    assert run() == real
    # --timed: the replay behind the benchmark's TimedVictim is still a victim with scores
    # (the wrapper answers `scores` only for a Scorer) and gives the same records
    recorded = TimedVictim(recorded)
    assert isinstance(recorded, Scorer)
    assert run() == real


def test_a_replay_answers_with_the_victim_s_array(own_time):
    """A victim that answers with a numpy array is replayed with one (the goal checks an array
    and a list of rows on different paths, so a list would time another path)."""
    import numpy as np

    class Arrays(Sentiment):
        def scores(self, batch):
            return np.array(super().scores(batch))

    recorded = own_time.Recorded(Arrays())
    first = recorded.scores(["a dull film", "a fine film"])
    recorded.replay = True
    again = recorded.scores(["a fine film", "a dull film"])
    assert isinstance(again, np.ndarray) and again.tolist() == first.tolist()[::-1]
    assert isinstance(own_time.Recorded(Sentiment()).scores(["a film"]), list)
