"""`ShieldedVictim` in front of real scikit-learn victims trained here: the same predictions on
clean text, predictions won back on attacked text, the victim's labels and scores kept for the
goals, token counts kept for POS, and clear errors. One shield for the module (SymSpell's index
is built once)."""
from __future__ import annotations

import pytest

import zeroe_assets as z
from zeroe_assets.formats import TOKEN_SEP
from zeroe_assets.search.goals import Classification, victim_name
from zeroe_assets.shield import ShieldedVictim, get_shield
from zeroe_assets.tasks import get_task
from zeroe_assets.victims.sklearn import train_victim

from .conftest import DATA, needs_data

SNLI = DATA / "bench" / "snli"
EWT = DATA / "bench" / "ud_ewt"
pytestmark = needs_data("bench/snli/snli_dev.tsv")


def examples(task: str, path, n: int):
    task = get_task(task)
    ex = task.examples(path, task.format_for(path))
    return ex.inputs[:n], ex.gold[:n]


def agreement(a: list, b: list) -> float:
    return sum(x == y for x, y in zip(a, b)) / len(a)


@pytest.fixture(scope="module")
def nli():
    """(nli-tfidf victim trained on 400 SNLI dev pairs, 100 SNLI test pairs, the victim behind
    the shield)."""
    pairs, gold = examples("nli", SNLI / "snli_dev.tsv", 400)
    victim = train_victim("nli-tfidf", pairs, gold, task="nli")
    test, _ = examples("nli", SNLI / "snli_test.tsv", 100)
    return victim, test, ShieldedVictim(victim, "nli", get_shield())


def test_clean_pairs_get_the_same_predictions(nli):
    victim, pairs, shielded = nli
    restored = shielded.seen(pairs)
    assert all(isinstance(p, tuple) and len(p) == 2 for p in restored)
    unchanged = sum(r == p for r, p in zip(restored, pairs)) / len(pairs)
    assert unchanged >= 0.9, "the shield changed clean SNLI pairs"
    assert agreement(shielded.predict(pairs), victim.predict(pairs)) >= 0.97


@pytest.mark.parametrize("attacker", ["intrude", "visual"])
def test_predictions_on_attacked_pairs_are_won_back(nli, attacker):
    victim, pairs, shielded = nli
    clean = victim.predict(pairs)
    # both sentences attacked: the shield restores every text field of an input
    attacked = [tuple(z.perturb(list(p), attacker, level="high", seed=i))
                for i, p in enumerate(pairs)]
    bare = agreement(victim.predict(attacked), clean)
    behind = agreement(shielded.predict(attacked), clean)
    assert behind >= max(0.7, bare + 0.15), (bare, behind)


def test_labels_and_scores_are_the_victims_for_the_goals(nli):
    victim, pairs, shielded = nli
    attacked = [(p, z.perturb(h, "intrude", level="high", seed=1)) for p, h in pairs[:20]]
    assert shielded.labels == victim.labels and shielded.task == "nli"
    assert shielded.scores(attacked) == victim.scores(shielded.seen(attacked))
    goal = Classification("nli")
    gold = victim.labels[0]
    assert goal.outcomes(shielded, attacked, gold) == \
        goal.outcomes(victim, shielded.seen(attacked), gold)
    assert victim_name(shielded) == "shielded PairClassifier"


@needs_data("bench/olid/olid-training-v1.0.tsv")
def test_a_victim_without_scores_has_none_behind_the_shield():
    texts, gold = examples("tc", DATA / "bench" / "olid" / "olid-training-v1.0.tsv", 300)
    victim = train_victim("tc-tfidf", texts, gold, task="tc")
    shielded = ShieldedVictim(victim, shield=get_shield(["visual", "intrude"]), name="tc-tfidf")
    assert not hasattr(shielded, "scores") and shielded.task == "tc"  # the victim's own task
    assert shielded.name == "shielded[visual,intrude] tc-tfidf"
    attacked = z.perturb(texts[:30], "intrude", level="high", seed=2)
    assert shielded.predict(attacked) == victim.predict(z.restore(attacked, ["visual", "intrude"]))


@needs_data("bench/ud_ewt/en_ewt-ud-dev.conllu")
def test_pos_token_lists_keep_their_count_and_tags_are_won_back():
    sentences, tags = examples("pos", EWT / "en_ewt-ud-dev.conllu", 120)
    victim = train_victim("pos-features", sentences[:60], tags[:60], task="pos")
    test, gold = sentences[60:], tags[60:]
    text_shield = get_shield(["intrude", "segment"])
    assert text_shield.restore("nearthe river") == "near the river"
    shielded = ShieldedVictim(victim, "pos", text_shield)
    # segment is left out for tokens: it would split a real token in two
    assert shielded.shield.mechanisms == ("intrude",)
    assert shielded.seen([["nearthe", "river"], []]) == [["nearthe", "river"], []]
    score = get_task("pos").score
    assert score(gold, shielded.predict(test)) >= score(gold, victim.predict(test)) - 0.01
    # token-aligned attack: one text per sentence, tokens joined by line breaks (as `formats`)
    attacked = [z.perturb(TOKEN_SEP.join(s), "intrude", level="high", seed=i).split(TOKEN_SEP)
                for i, s in enumerate(test)]
    restored = shielded.seen(attacked)
    assert [len(r) for r in restored] == [len(s) for s in test]
    bare, behind = score(gold, victim.predict(attacked)), score(gold, shielded.predict(attacked))
    assert behind >= bare + 0.05, (bare, behind)


class NoTask:
    def predict(self, batch):
        return ["x"] * len(batch)


def test_clear_errors(nli):
    victim, pairs, shielded = nli
    with pytest.raises(ValueError, match="name the task"):
        ShieldedVictim(NoTask())
    with pytest.raises(ValueError, match="for task nli, not pos"):
        ShieldedVictim(victim, "pos")
    with pytest.raises(ValueError, match="segment alone"):
        ShieldedVictim(NoTask(), "pos", get_shield(["segment"]))
    with pytest.raises(ValueError, match="pair"):
        shielded.predict(["a premise alone"])
    with pytest.raises(ValueError, match="unknown task"):
        ShieldedVictim(NoTask(), "nope")
    assert ShieldedVictim(NoTask(), "generic").predict(["Teh cat"]) == ["x"]


def test_a_hypothesis_is_read_against_its_restored_premise(nli):
    _, _, shielded = nli
    premise = "The boys are playing with Legos ."
    assert shielded.seen([(premise, "Bos are playing .")]) == [(premise, "Boys are playing .")]
    # the premise attacked too: its restored words anchor the hypothesis
    assert shielded.seen([("The byos are playing with Legos .", "Bos are playing .")]) \
        == [("The boys are playing with Legos .", "Boys are playing .")]


def test_a_defense_with_the_shield_part_reads_a_pair_as_the_shielded_victim_does(nli):
    from zeroe_assets.defend.victim import DefendedVictim

    victim, _, shielded = nli
    defended = DefendedVictim(victim, "nli", None, shielded.shield)
    pairs = [("The boys are playing with Legos .", "Bos are playing ."),
             ("The byos are playing with Legos .", "Bos are playing .")]
    assert defended.seen(pairs) == shielded.seen(pairs)
    assert defended.seen(pairs)[1][1] == "Boys are playing ."  # anchored: not *Bos* kept
