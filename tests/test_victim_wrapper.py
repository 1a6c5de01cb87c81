"""The one wrapper base of victims (`WrappedVictim`) and the two wrappers on it: `TimedVictim`
counts, `ShieldedVictim` restores; both read as the victim they wrap."""
from __future__ import annotations

import copy
import pickle

import pytest

from zeroe_assets.bench.results import Example
from zeroe_assets.shield import ShieldedVictim, get_shield
from zeroe_assets.victims import Scorer, Victim
from zeroe_assets.victims.wrapper import TimedVictim, WrappedVictim

CYRILLIC_A = "\u0430"  # looks like "a": the visual restorer undoes it


class Labeller:
    """A label victim without probabilities: ``labels`` alone does not make a `Scorer`."""

    task = "generic"
    labels = ("long", "short")

    def __init__(self):
        self.seen = []

    def predict(self, batch):
        self.seen.append(list(batch))
        return ["long" if len(text) > 8 else "short" for text in batch]


class Prober(Labeller):
    """... and with them."""

    def scores(self, batch):
        self.seen.append(list(batch))
        return [[1.0, 0.0] if len(text) > 8 else [0.0, 1.0] for text in batch]


class ScoresOnly:
    """``scores`` without ``labels``: no `Scorer` (column j means nothing without labels[j])."""

    task = "generic"

    def predict(self, batch):
        return ["x"] * len(batch)

    def scores(self, batch):
        return [[1.0]] * len(batch)


def wrappers(victim):
    return [WrappedVictim(victim), TimedVictim(victim),
            ShieldedVictim(victim, shield=get_shield(["visual"]))]


@pytest.mark.parametrize("inner, scorer", [(Labeller(), False), (Prober(), True),
                                           (ScoresOnly(), False)])
def test_scores_and_scorer_follow_the_wrapped_victim(inner, scorer):
    for wrapped in wrappers(inner):
        assert isinstance(wrapped, Victim)
        assert isinstance(wrapped, Scorer) is scorer and hasattr(wrapped, "scores") is scorer
        assert isinstance(TimedVictim(wrapped), Scorer) is scorer  # wrappers of wrappers too


def test_every_other_attribute_is_the_victims():
    inner = Prober()
    for wrapped in wrappers(inner):
        assert wrapped.victim is inner and wrapped.labels == inner.labels
        assert wrapped.task == "generic"
        with pytest.raises(AttributeError):
            wrapped.nothing_of_the_victims


def test_names():
    inner = Labeller()
    assert WrappedVictim(inner).name == "Labeller" == TimedVictim(inner).name
    assert WrappedVictim(inner, "spec").name == "spec" == TimedVictim(inner, "spec").name
    shielded = ShieldedVictim(inner, shield=get_shield(["visual"]), name="spec")
    assert shielded.name == "shielded[visual] spec"
    # a timer keeps the name of what it times: errors then say the victim was shielded
    assert TimedVictim(shielded, "spec").name == "shielded[visual] spec"
    assert WrappedVictim(shielded, "other").name == "other"


def test_a_timer_sees_the_batch_as_given_and_counts_every_query():
    inner = Prober()
    timed = TimedVictim(inner)
    batch = [f"the c{CYRILLIC_A}t", "a dog sat down"]
    assert timed.seen(batch) == batch and not timed.rewrites
    assert timed.predict(batch) == ["short", "long"]
    assert timed.scores(batch) == [[0.0, 1.0], [1.0, 0.0]]
    assert inner.seen == [batch, batch]
    assert (timed.calls, timed.texts) == (2, 4) and timed.seconds > 0


def test_a_shield_restores_what_the_victim_sees():
    inner = Prober()
    shielded = ShieldedVictim(inner, shield=get_shield(["visual"]))
    attacked = [f"the c{CYRILLIC_A}t s{CYRILLIC_A}t", "a dog"]
    assert shielded.rewrites and shielded.seen(attacked) == ["the cat sat", "a dog"]
    shielded.predict(attacked)
    shielded.scores(attacked)
    assert inner.seen == [["the cat sat", "a dog"]] * 2
    timed = TimedVictim(shielded)  # timing the shielded victim: the shield inside the time
    timed.scores(attacked)
    assert inner.seen[-1] == ["the cat sat", "a dog"] and timed.calls == 1


def test_reports_show_the_restored_text_only_for_a_rewriting_wrapper():
    attacked = f"the c{CYRILLIC_A}t"
    inner = Labeller()
    shielded = ShieldedVictim(inner, shield=get_shield(["visual"]))
    for victim, restored in ((inner, None), (TimedVictim(inner), None), (shielded, "the cat"),
                             (TimedVictim(shielded), None)):  # the timer passes it on as given
        assert Example.of(victim, 0, "the cat", attacked, "short", "short", "short").restored \
            == restored


def test_copies_and_pickles_are_wrappers_of_their_own():
    inner = Prober()
    timed = TimedVictim(inner, "spec")
    timed.predict(["one"])
    for again in (copy.copy(timed), copy.deepcopy(timed), pickle.loads(pickle.dumps(timed))):
        assert type(again) is TimedVictim and again.name == "spec" and again.calls == 1
        assert isinstance(again, Scorer) and again.scores(["one"]) == [[0.0, 1.0]]
    assert copy.copy(timed).victim is inner and copy.deepcopy(timed).victim is not inner
    shielded = pickle.loads(pickle.dumps(ShieldedVictim(inner, shield=get_shield(["visual"]))))
    assert shielded.seen([f"c{CYRILLIC_A}t"]) == ["cat"]


class Shared(Prober):
    """A victim that is never copied (a model held on a GPU, say)."""

    def __deepcopy__(self, memo):
        return self


def test_special_names_are_the_wrappers_own():
    inner = Shared()
    again = copy.deepcopy(TimedVictim(inner))  # not the victim's __deepcopy__: a copied timer
    assert type(again) is TimedVictim and again.victim is inner
