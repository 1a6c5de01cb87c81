"""benchmarks/search_own_time.py's replayed victim: it gives back what the victim answered,
without asking it, so that a replayed attack is the same attack (a toy victim: the benchmark's
own runs take minutes)."""
from __future__ import annotations

import pytest

from zeroe_assets.search import get_recipe

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
