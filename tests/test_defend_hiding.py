"""benchmarks/defend_hiding.py: hiding words (``unkword``) greedily finds the flips that exist
within the budget and no others, and a defended victim's bound counts only real flips."""
from __future__ import annotations

import random

import pytest

from zeroe_assets.defend import defend
from zeroe_assets.search.goals import goal_for

from .conftest import load_benchmark


@pytest.fixture(scope="module")
def hiding():
    return load_benchmark("defend_hiding")


class Praise:
    """P(pos) = 0.3 + 0.25 per "good" or "great" (at most 1): two must go before it says neg."""

    labels = ("neg", "pos")

    def scores(self, batch):
        rows = []
        for text in batch:
            text = " ".join(text) if isinstance(text, tuple) else text  # a pair: both texts
            p = min(1.0, 0.3 + 0.25 * sum(w in ("good", "great") for w in text.split()))
            rows.append([1.0 - p, p])
        return rows

    def predict(self, batch):
        return [self.labels[int(r[1] >= 0.5)] for r in self.scores(batch)]


def test_the_greedy_hides_the_words_the_model_minds_until_it_flips(hiding):
    goal, model = goal_for("generic"), Praise()
    assert hiding.hidden(goal, model, "a good and great film", "pos", 2, set()) == 2
    assert hiding.hidden(goal, model, "a good and great film", "pos", 1, set()) is None
    # a kept word (a stopword) is never hidden
    assert hiding.hidden(goal, model, "a good and great film", "pos", 5, {"great"}) is None
    # a pair's second text is the one hidden: the premise's praise stays
    assert hiding.hidden(goal, model, ("good great", "a good film"), "pos", 3, set()) is None


def test_a_defended_victim_holds_no_more_than_its_clean_right_and_flips_are_real(hiding,
                                                                                  tmp_path):
    rng = random.Random(0)
    good, bad = ["great", "lovely", "moving", "superb"], ["dull", "awful", "boring", "tired"]
    rows = []
    for _ in range(120):
        label = rng.choice(["pos", "neg"])
        words = rng.sample(good if label == "pos" else bad, 2) + ["film", "plot", "cast"]
        rng.shuffle(words)
        rows.append((" ".join(words), label))
    train = tmp_path / "train.tsv"
    train.write_text("text\tlabel\n" + "".join(f"{t}\t{g}\n" for t, g in rows), encoding="utf-8")
    out = tmp_path / "defended"
    defend("generic", "generic-tfidf", train, out, "encode", progress=False)
    result = hiding.bound("generic", f"defended:{out}", train, 40, 0.3)
    assert result["examples"] == 40 and result["right"] == 40
    # two of five words may hide (⌈0.3 × 5⌉): the greedy hides both sentiment words, and what
    # holds is exactly the sentences whose neutral rest the model still reads as their label
    from zeroe_assets.victims import load_victim

    victim = load_victim(f"defended:{out}", task="generic")
    sentiment = set(good + bad)
    rest = [" ".join("unkword" if w in sentiment else w for w in victim.seen([t])[0].split())
            for t, _ in rows[:40]]
    still = sum(p == g for p, (_, g) in zip(victim.victim.predict(rest), rows[:40]))
    assert result["held"] == still
    assert 0 < still < 40  # the rest leans to one label: the other falls
