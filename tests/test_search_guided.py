"""zeroe-fast (issue #35): a surrogate the attacker trained on other tweets ranks candidates
without queries; against real victims trained here: success in a few queries, the victim's
answers checked, budgets exact and never exceeded, a wrong surrogate costing queries but not
success, and the same results for any number of processes; and ``Problem.prefer``, the order
its greedy part takes a word's candidates in."""
from __future__ import annotations

import math
import random

import pytest

from zeroe_assets.search import guided
from zeroe_assets.search import (AttackedText, Classification, NgramSurrogate, Outcome, Problem,
                                 get_recipe, get_transformations, summarize)
from zeroe_assets.search.results import EXHAUSTED, SKIPPED, SUCCESSFUL
from zeroe_assets.search.run import RunSettings, run
from zeroe_assets.victims.sklearn import save_victim, train_victim

from .test_search import BAD, GOOD, SAFE, Counting, _label, _tweets


@pytest.fixture(scope="module")
def tc():
    texts, labels = _tweets(300)
    return train_victim("tc-tfidf", texts, labels)


@pytest.fixture(scope="module")
def surrogate():
    """The attacker's own model: other tweets of the same kind (another seed)."""
    texts, labels = _tweets(300, seed=7)
    return NgramSurrogate.from_model(train_victim("tc-tfidf", texts, labels))


@pytest.fixture(scope="module")
def examples():
    texts, labels = _tweets(24, seed=1)
    return list(zip(texts, labels))


def _logit(p):
    return math.log(p / (1 - p))


def test_the_surrogate_predicts_its_model(tc):
    """A word swapped for another: the surrogate's logit change against the model's."""
    surrogate = NgramSurrogate.from_model(tc)
    text = "@USER the team is lovely and the game was great today URL"
    norms = surrogate.norms(text)
    before = _logit(tc.predict([text])[0])
    predicted, actual = [], []
    for new in BAD + GOOD[2:]:
        changed = text.replace("lovely", new)
        actual.append(_logit(tc.predict([changed])[0]) - before)
        predicted.append(surrogate.score(new, norms) - surrogate.score("lovely", norms))
    n = len(actual)
    mp, ma = sum(predicted) / n, sum(actual) / n
    cov = sum((p - mp) * (a - ma) for p, a in zip(predicted, actual))
    r = cov / math.sqrt(sum((p - mp) ** 2 for p in predicted) * sum((a - ma) ** 2
                                                                  for a in actual))
    assert r > 0.95, (r, predicted, actual)
    assert all(p > 0 for p in predicted[:len(BAD)])  # offensive words raise the logit


def test_the_sums_are_scikit_learn_s_n_grams_added_in_order(tc, surrogate):
    """The surrogate cuts a token as the victim's ``char_wb`` analyzer does (tokens too short
    for 3- and 4-grams included), and its sums add those n-grams' and the words' weights one
    by one in that order: the same floats as the plain loop, whatever shortcut computes them."""
    analyzer = dict(tc.features.transformer_list)["char"].build_analyzer()
    spans = ["a", "I", "id", "URL", "lovely", "İd1ot!", "you are a  b", "x y", "@USER hi"]
    for span in spans:
        assert [g for t in span.split() for g in guided.char_ngrams(t)] == analyzer(span)
        c = w = 0.0
        for g in analyzer(span):
            c += surrogate.chars.get(g, 0.0)
        for t in guided.WORD.findall(span.lower()):
            w += surrogate.words.get(t, 0.0)
        assert surrogate._sum(span) == (c, w)



def test_the_norms_are_the_tf_idf_norms_added_in_order(tc, surrogate):
    """A text's norms are its sublinear TF-IDF vectors' L2 norms, the terms added in the order
    the n-grams and words first occur: the same floats as the plain loop, with each token's
    n-grams and each (feature, count)'s term remembered, after other texts and after a pickle."""
    import pickle

    def plain(text):
        chars, words = {}, {}
        for t in text.split():
            for g in guided.char_ngrams(t):
                if g in surrogate.idf:
                    chars[g] = chars.get(g, 0) + 1
        for w in guided.WORD.findall(text.lower()):
            if "w:" + w in surrogate.idf:
                words["w:" + w] = words.get("w:" + w, 0) + 1
        return tuple(math.sqrt(sum((surrogate.idf[g] * (1 + math.log(c))) ** 2
                                   for g, c in counts.items())) or 1.0
                     for counts in (chars, words))

    texts = ["@USER the the the game game is lovely lovely URL", "lovely", "", "zzqx",
             "You are you ARE a lovely idiot , lovely", "@USER the game is lovely URL"]
    for warm in (surrogate, pickle.loads(pickle.dumps(surrogate))):
        for text in texts + texts:
            assert warm.norms(text) == plain(text)

def test_remembered_sums_are_the_sums_and_no_example_depends_on_another(tc, examples):
    """The surrogate remembers each span's sums across examples: the numbers are those
    computed afresh, an example's result is the same after others as alone, and a pickled
    surrogate leaves its memory behind."""
    import pickle

    texts, labels = _tweets(300, seed=7)
    model = train_victim("tc-tfidf", texts, labels)
    warm = NgramSurrogate.from_model(model)
    norms = warm.norms("@USER you are such a lovely idiot URL")
    spans = ["lovely", "idiot", "id1ot", "you are", "lovely", "Idiot"]
    assert [warm.score(s, norms) for s in spans] == \
        [NgramSurrogate.from_model(model).score(s, norms) for s in spans]
    attack = get_recipe("zeroe-fast", "tc", transformations=SAFE, surrogate=warm)
    after_others = [attack.run(e, tc, i) for i, e in enumerate(examples[:8])][-1]
    alone = get_recipe("zeroe-fast", "tc", transformations=SAFE,
                       surrogate=NgramSurrogate.from_model(model)).run(examples[7], tc, 7)
    assert after_others == alone
    assert warm._sums and not pickle.loads(pickle.dumps(warm))._sums


def test_a_word_s_candidates_come_from_its_own_stream(tc, surrogate, examples):
    """zeroe-fast draws a word's candidates from a stream of the seed and the word: the same
    in every sentence and at every example index, so a run draws each word once and an
    example's result does not depend on its index; another seed draws others."""
    attack = get_recipe("zeroe-fast", "tc", transformations=SAFE, surrogate=surrogate)

    def forms(sentence: str, index: int, run=attack) -> list[str]:
        text = AttackedText.from_input("text", sentence)
        problem = Problem(text, Outcome(0, 0.0, False), Classification("tc").session(tc, 0, 10),
                          run.transformation, [], list(range(len(text))), run.candidates,
                          random.Random(index), run.draws)
        where = [text.word(p) for p in range(len(text))].index("lovely")
        return [e.words[0][1] for e in problem.edits(where)]

    here = forms("@USER the movie was lovely today URL", 0)
    assert len(here) > 5
    assert forms("@USER so lovely and kind URL", 9) == here
    assert forms("@USER so lovely and kind URL", 9, get_recipe(
        "zeroe-fast", "tc", transformations=SAFE, surrogate=surrogate, seed=1)) != here
    joins = get_recipe("zeroe-fast", "tc", transformations=[*SAFE, "segment"],
                       surrogate=surrogate)  # segment's edits: drawn from the text's stream
    assert not joins.transformation.word_local
    for run in (attack, joins):
        for i, example in enumerate(examples[:8]):
            at_i, at_100 = run.run(example, tc, i), run.run(example, tc, 100 + i)
            assert (at_i.adversarial, at_i.queries) == (at_100.adversarial, at_100.queries)


def test_success_in_few_queries(tc, surrogate, examples):
    attack = get_recipe("zeroe-fast", "tc", transformations=SAFE, surrogate=surrogate)
    results = []
    for i, example in enumerate(examples):
        victim = Counting(tc)
        r = attack.run(example, victim, i)
        results.append(r)
        assert r.queries == len(victim.sent) == len(set(victim.sent))  # counted, none twice
        assert all(len(batch) == 1 for batch in victim.batches)  # one plan per query
        if r.status == SUCCESSFUL:
            assert _label(tc, r.adversarial) != example[1] == _label(tc, r.original)
            assert "@USER" in r.adversarial and r.adversarial.endswith("URL")  # protected
    summary = summarize(results)
    assert summary["success_rate"] == 100.0, summary
    assert summary["queries"] <= 4, summary  # the original, then a plan or two


def test_a_wrong_surrogate_costs_queries_not_success(tc, surrogate, examples):
    """Weights negated: every plan goes the wrong way, and the greedy search on the victim
    takes over."""
    wrong = NgramSurrogate({g: -w for g, w in surrogate.chars.items()},
                           {g: -w for g, w in surrogate.words.items()}, surrogate.idf)
    right = get_recipe("zeroe-fast", "tc", transformations=SAFE, surrogate=surrogate)
    astray = get_recipe("zeroe-fast", "tc", transformations=SAFE, surrogate=wrong)
    good = summarize([right.run(e, tc, i) for i, e in enumerate(examples)])
    bad = summarize([astray.run(e, tc, i) for i, e in enumerate(examples)])
    assert bad["success_rate"] >= 90, bad
    assert bad["queries"] > 2 * good["queries"], (good, bad)


def test_an_example_already_misclassified_is_skipped_before_its_words_are_checked(
        tc, surrogate, examples):
    """The original's query comes first: an example whose goal is already met is skipped
    without its words prepared or checked."""
    attack = get_recipe("zeroe-fast", "tc", transformations=SAFE, surrogate=surrogate)
    checked = []
    attack.attackable = lambda text: checked.append(text) or [0]
    text = examples[0][0]
    r = attack.run((text, 1 - _label(tc, text)), tc, 0)
    assert (r.status, r.reason, r.queries, checked) == (SKIPPED, "goal already met", 1, [])


@pytest.mark.parametrize("budget", [1, 2, 3, 5, 9])
def test_never_over_budget(tc, surrogate, examples, budget):
    wrong = NgramSurrogate({g: -w for g, w in surrogate.chars.items()}, {}, surrogate.idf)
    for s in (surrogate, wrong):  # the plans alone, and the greedy search after them
        attack = get_recipe("zeroe-fast", "tc", transformations=SAFE, surrogate=s,
                            max_queries=budget)
        for i, example in enumerate(examples[:12]):
            victim = Counting(tc)
            r = attack.run(example, victim, i)
            assert r.queries == len(victim.sent) <= budget
            if r.status not in (SUCCESSFUL, SKIPPED):
                assert r.status == EXHAUSTED and r.queries == budget, r


@pytest.mark.parametrize("recipe,task", [("zeroe-fast", "tc"), ("charmer", "tc"),
                                         ("zeroe-fast", "generic")])
def test_the_same_results_for_any_number_of_processes(tc, tmp_path, recipe, task):
    texts, labels = _tweets(16, seed=3)
    data = tmp_path / "tweets.tsv"
    other, other_labels = _tweets(300, seed=7)
    name = f"{task}-tfidf"
    if task == "tc":
        data.write_text("id\ttweet\tsubtask_a\n" + "".join(
            f"{i}\t{t}\t{'OFF' if y else 'NOT'}\n"
            for i, (t, y) in enumerate(zip(texts, labels))), encoding="utf-8")
        save_victim(tc, tmp_path / "victim.joblib")
        save_victim(train_victim(name, other, other_labels), tmp_path / "surrogate.joblib")
    else:  # label names: the surrogate a generic-tfidf model too
        data.write_text("text\tlabel\n" + "".join(
            f"{t}\t{NAMES[y]}\n" for t, y in zip(texts, labels)), encoding="utf-8")
        mine, my_labels = _tweets(300)  # the tc fixture's tweets, labels named
        save_victim(train_victim(name, mine, _named(my_labels)), tmp_path / "victim.joblib")
        save_victim(train_victim(name, other, _named(other_labels)),
                    tmp_path / "surrogate.joblib")
    options = {"surrogate": str(tmp_path / "surrogate.joblib")}  # charmer: words to write
    settings = RunSettings(task=task, victim=name, data=str(data), recipe=recipe,
                           victim_path=str(tmp_path / "victim.joblib"),
                           options={**options, "transformations": SAFE}
                           if recipe == "zeroe-fast" else options)
    lines = []
    for processes in (1, 2):
        summary = run(settings, tmp_path / f"j{processes}", processes, progress=False)
        assert summary["counts"][SUCCESSFUL] > 0
        lines.append((tmp_path / f"j{processes}" / "results.jsonl").read_bytes())
    assert lines[0] == lines[1]


def test_a_zeroe_fast_run_of_candidates_drawn_per_example_is_not_resumed(tc, tmp_path):
    """A zeroe-fast run folder from before its candidates were drawn per word (its fingerprint
    says nothing of the draws) holds other records: a rerun there is refused, not appended."""
    import dataclasses
    import json

    texts, labels = _tweets(4, seed=3)
    data = tmp_path / "tweets.tsv"
    data.write_text("id\ttweet\tsubtask_a\n" + "".join(
        f"{i}\t{t}\t{'OFF' if y else 'NOT'}\n" for i, (t, y) in enumerate(zip(texts, labels))),
        encoding="utf-8")
    save_victim(tc, tmp_path / "victim.joblib")
    other, other_labels = _tweets(300, seed=7)
    save_victim(train_victim("tc-tfidf", other, other_labels), tmp_path / "surrogate.joblib")
    settings = RunSettings(task="tc", victim="tc-tfidf", data=str(data), recipe="zeroe-fast",
                           victim_path=str(tmp_path / "victim.joblib"), limit=2,
                           options={"surrogate": str(tmp_path / "surrogate.joblib"),
                                    "transformations": SAFE})
    run(settings, tmp_path / "out", 1, progress=False)
    run_file = tmp_path / "out" / "run.json"
    before = json.loads(run_file.read_text(encoding="utf-8"))
    del before["fingerprint"]["draws"]
    run_file.write_text(json.dumps(before), encoding="utf-8")
    with pytest.raises(ValueError, match="other settings.*draws: None then, 'word' now"):
        run(dataclasses.replace(settings, limit=4), tmp_path / "out", 1, progress=False)


def test_a_surrogate_is_needed_and_only_zeroe_fast_and_charmer_take_one(tc, surrogate):
    with pytest.raises(ValueError, match="zeroe-fast needs a surrogate"):
        get_recipe("zeroe-fast", "tc")
    with pytest.raises(ValueError, match="only zeroe-fast and charmer take a surrogate"):
        get_recipe("textfooler-zeroe", "tc", surrogate=surrogate)
    with pytest.raises(ValueError, match="it takes task tc or generic, not nli"):
        get_recipe("zeroe-fast", "nli", surrogate=surrogate)
    # a trained model is a surrogate too
    assert get_recipe("zeroe-fast", "tc", surrogate=tc).method.surrogate.chars


def test_prefer_orders_every_word_s_edits(tc):
    """Edits drawn before and after ``prefer`` come in the key's order, the same k of them."""
    text = AttackedText.from_input("text", "@USER the movie was lovely and kind today URL")
    start = Outcome(0, 0.0, False)
    problem = Problem(text, start, Classification("tc").session(tc, 0, 10), get_transformations(
        SAFE), [], list(range(1, len(text))), 8, random.Random(0))
    before = problem.edits(3)
    problem.prefer(lambda e: (len(e.words[0][1]), e.words[0][1]))
    assert sorted(before, key=lambda e: (len(e.words[0][1]), e.words[0][1])) == \
        problem.edits(3)
    for p in (4, 5):
        forms = [(len(e.words[0][1]), e.words[0][1]) for e in problem.edits(p)]
        assert forms == sorted(forms) and len(forms) == len(set(forms)) > 1
        assert [e.words for e in problem.edits(p, 2)] == [e.words for e in problem.edits(p)[:2]]


class CountingScorer(Counting):
    """A real label victim with its probabilities, every text it is sent recorded."""

    @property
    def labels(self):
        return self.victim.labels

    def scores(self, batch):
        self.batches.append(list(batch))
        return self.victim.scores(batch)


NAMES = ("clean", "toxic")  # a generic model's labels, in the order of 0 and 1


def _named(labels):
    return [NAMES[y] for y in labels]


def test_a_label_victim_s_surrogate_weighs_toward_its_second_label(surrogate):
    """A generic-tfidf model of two named labels is the tc-tfidf model of the same data with
    its labels named, and says which label its weights point to."""
    texts, labels = _tweets(300, seed=7)
    named = NgramSurrogate.from_model(train_victim("generic-tfidf", texts, _named(labels)))
    assert named.labels == NAMES and surrogate.labels == (0, 1)
    assert named.chars == surrogate.chars and named.words == surrogate.words
    assert named.direction("clean") == 1 and named.direction("toxic") == -1
    assert named.direction("clean", target="clean") == -1
    with pytest.raises(ValueError, match="gold label 'neutral' is not one of the surrogate's"):
        named.direction("neutral")
    three = train_victim("generic-tfidf", texts, [NAMES[y] if i % 5 else "neutral"
                                                 for i, y in enumerate(labels)])
    with pytest.raises(ValueError, match="a model of two labels; this one has 3"):
        NgramSurrogate.from_model(three)


@pytest.mark.parametrize("budget", [None, 1, 3])
def test_zeroe_fast_and_charmer_on_a_label_victim(tmp_path, examples, budget):
    """zeroe-fast and charmer --surrogate against a generic-tfidf victim with a generic-tfidf
    surrogate from its file: both labels flipped, in few queries, counted exactly, none sent
    twice, never over the budget."""
    texts, labels = _tweets(300)
    victim = train_victim("generic-tfidf", texts, _named(labels))
    other, other_labels = _tweets(300, seed=7)
    save_victim(train_victim("generic-tfidf", other, _named(other_labels)),
                tmp_path / "surrogate.joblib")
    cases = [("zeroe-fast", {"transformations": SAFE}), ("charmer", {})]
    for recipe, options in cases:
        attack = get_recipe(recipe, "generic", surrogate=tmp_path / "surrogate.joblib",
                            max_queries=budget, **options)
        results = []
        for i, (text, y) in enumerate(examples):
            counting = CountingScorer(victim)
            r = attack.run((text, NAMES[y]), counting, i)
            results.append(r)
            assert r.queries == len(counting.sent) == len(set(counting.sent))
            if budget is not None:
                assert r.queries <= budget
            if r.status == SUCCESSFUL:
                assert victim.predict([r.adversarial])[0] != NAMES[y] == r.before
        summary = summarize(results)
        if budget is None:
            assert summary["success_rate"] == 100.0, (recipe, summary)
            won = {r.gold for r in results if r.status == SUCCESSFUL}
            assert won == set(NAMES), won  # both directions
            if recipe == "zeroe-fast":
                assert summary["queries"] <= 4, summary
