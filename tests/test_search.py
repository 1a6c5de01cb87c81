"""The search core against real victims trained here on small synthetic corpora: goals met
and re-checked, queries counted and never over budget, constraints kept, determinism, every
recipe, and the bad inputs of issue #23."""
from __future__ import annotations

import math
import queue
import random
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from zeroe_assets import tokenize
from zeroe_assets.constraints import MaxPerturbed, NoRepeat, Protected, Stopwords, check_all
from zeroe_assets.search import (AttackedText, Beam, Classification, Greedy, NgramSurrogate,
                                 RandomProtocol, SearchAttack, Tagging, get_recipe,
                                 get_transformations, recipe_names, summarize)
from zeroe_assets.search.transformations import AnyCharacter
from zeroe_assets.search.results import (EXHAUSTED, MISCLASSIFIED, NOTHING_TO_ATTACK, SKIPPED,
                                         SUCCESSFUL)
from zeroe_assets.victims.sklearn import train_victim
from zeroe_assets.victims.wrapper import Gather

BAD = ["idiot", "stupid", "moron", "loser", "trash", "garbage", "pathetic", "disgusting"]
GOOD = ["lovely", "great", "wonderful", "kind", "helpful", "amazing", "sunny", "pleasant"]
NOUNS = ["day", "people", "team", "movie", "game", "weather", "city", "song", "coach", "show"]
SAFE = ["keyboard-typo", "truncate", "disemvowel", "inner-shuffle"]  # keep the toolkit's words


def _tweets(n: int, seed: int = 0):
    """Tweets of two adjectives: toxic ones have one offensive adjective, the others none."""
    rng = random.Random(seed)
    texts, labels = [], []
    for _ in range(n):
        adjectives = [rng.choice(GOOD), rng.choice(GOOD)]
        bad = rng.random() < 0.5
        if bad:
            adjectives[rng.randrange(2)] = rng.choice(BAD)
        texts.append(f"@USER the {rng.choice(NOUNS)} is {adjectives[0]} and the "
                     f"{rng.choice(NOUNS)} was {adjectives[1]} today URL")
        labels.append(int(bad))
    return texts, labels


class Counting:
    """A real victim, with every text it is sent recorded (batches kept apart)."""

    def __init__(self, victim):
        self.victim, self.batches = victim, []
        self.task = getattr(victim, "task", None)

    def predict(self, batch):
        self.batches.append(list(batch))
        return self.victim.predict(batch)

    @property
    def sent(self):
        return [t for b in self.batches for t in b]


class Scored:
    """A scikit-learn text classifier with class probabilities (``scores``/``labels``)."""

    def __init__(self, victim):
        self.victim = victim
        self.labels = [str(c) for c in victim.model.classes_]

    def predict(self, batch):
        return self.victim.predict(batch)

    def scores(self, batch):
        return self.victim.model.predict_proba(self.victim.features.transform(list(batch))
                                               ).tolist()


@pytest.fixture(scope="module")
def tc():
    texts, labels = _tweets(300)
    return train_victim("tc-tfidf", texts, labels)


@pytest.fixture(scope="module")
def examples(tc):
    texts, labels = _tweets(24, seed=1)
    return [(t, y) for t, y in zip(texts, labels)]


@pytest.fixture(scope="module")
def generic():
    texts, labels = _tweets(300)
    return train_victim("generic-tfidf", texts, ["toxic" if y else "fine" for y in labels])


def _attack(method=None, names=SAFE, constraints=None, **options):
    return SearchAttack(get_transformations(names), constraints if constraints is not None
                        else [NoRepeat(), Stopwords(), Protected(), MaxPerturbed(0.3)],
                        Classification("tc", options.pop("target", None)),
                        method or Greedy("delete"), **options)


def _label(tc, text):
    return int(tc.predict([text])[0] >= 0.5)


def test_success_flips_the_victim_and_queries_are_counted_exactly(tc, examples):
    attack = _attack(queries_per_word=50)
    results = []
    for i, example in enumerate(examples):
        victim = Counting(tc)
        r = attack.run(example, victim, i)
        results.append(r)
        assert r.queries == len(victim.sent)  # every text sent is counted …
        assert len(set(victim.sent)) == len(victim.sent)  # … and none is sent twice
        assert r.queries <= 50 * r.words
        if r.status == SUCCESSFUL:
            assert _label(tc, r.adversarial) != example[1] == _label(tc, r.original)
            assert r.perturbed <= math.ceil(0.3 * r.words)
            assert 0 < r.edit_distance < 1
    summary = summarize(results)
    assert summary["counts"][SUCCESSFUL] >= 20, summary


def test_a_step_is_one_victim_call(tc, examples):
    victim = Counting(tc)
    _attack(Greedy("delete"), candidates=20).run(examples[0], victim)
    # the original, the deletion ranking, then one batch per word tried
    assert len(victim.batches[0]) == 1
    words = tokenize.words(examples[0][0])
    assert len(victim.batches[1]) == len(set(victim.batches[1])) <= len(words)


@pytest.mark.parametrize("budget", [1, 2, 7, 30])
def test_never_over_budget(tc, examples, budget):
    attack = _attack(max_queries=budget)
    for i, example in enumerate(examples[:10]):
        victim = Counting(tc)
        r = attack.run(example, victim, i)
        assert r.queries == len(victim.sent) <= budget
        if budget == 1 and r.status != SKIPPED:
            assert r.status == EXHAUSTED and r.queries == 1


def test_constraints_hold_in_the_adversarial_text(tc, examples):
    attack = _attack(Beam(2), max_queries=300)
    stop = Stopwords()
    for i, example in enumerate(examples[:15]):
        r = attack.run(example, tc, i)
        old, new = tokenize.words(r.original), tokenize.words(r.adversarial)
        assert len(old) == len(new)  # these transformations keep the toolkit's words
        changed = [j for j, (a, b) in enumerate(zip(old, new)) if a != b]
        assert len(changed) == r.perturbed <= math.ceil(0.3 * len(old))
        assert r.adversarial.startswith("@USER ") and r.adversarial.endswith(" URL")
        assert not any(a.lower() in stop.words for a in (old[j] for j in changed))


def test_segment_and_intrude_count_original_words(tc):
    attack = _attack(Greedy("delete"), names=["segment", "intrude"], constraints=[NoRepeat()],
                     max_queries=500)
    text = "@USER the coach is pathetic and the team was great today URL"
    r = attack.run((text, 1), tc)
    assert r.status == SUCCESSFUL
    assert r.words == len(tokenize.words(text))  # intruded symbols do not add words
    assert r.perturbed <= r.words


def test_deterministic_for_seed_and_index_whatever_the_order(tc, examples):
    attack = _attack(Greedy("random"), names=SAFE + ["intrude"], seed=7, max_queries=200)
    forward = [attack.run(e, tc, i) for i, e in enumerate(examples[:6])]
    backward = [attack.run(e, tc, i) for i, e in reversed(list(enumerate(examples[:6])))]
    assert forward == backward[::-1]
    other = _attack(Greedy("random"), names=SAFE + ["intrude"], seed=8, max_queries=200)
    assert [other.run(e, tc, i) for i, e in enumerate(examples[:6])] != forward


def test_targeted_goal(tc, examples):
    attack = _attack(target=1, queries_per_word=50)
    clean = [e for e in examples if e[1] == 0][:8]
    results = [attack.run(e, tc, i) for i, e in enumerate(clean)]
    assert any(r.status == SUCCESSFUL for r in results)
    for r in results:
        if r.status == SUCCESSFUL:
            assert r.after == 1 == _label(tc, r.adversarial)
    toxic = next(e for e in examples if e[1] == 1 and _label(tc, e[0]) == 1)
    r = attack.run(toxic, tc)  # already the target
    assert (r.status, r.reason, r.queries) == (SKIPPED, MISCLASSIFIED, 1)


def test_scores_with_labels_and_labels_only(generic):
    text = "@USER the coach is pathetic and the team was great today URL"
    assert generic.predict([text]) == ["toxic"]
    for victim in (Scored(generic), generic):
        attack = SearchAttack(get_transformations(SAFE), [NoRepeat()],
                              Classification("generic"), Greedy("mask"), max_queries=400)
        r = attack.run((text, "toxic"), victim)
        assert r.status == SUCCESSFUL and generic.predict([r.adversarial]) == ["fine"]
    with pytest.raises(ValueError, match="target label 'rude'.*fine, toxic"):
        SearchAttack(get_transformations(SAFE), [], Classification("generic", target="rude"),
                     Greedy(), max_queries=10).run((text, "toxic"), Scored(generic))
    with pytest.raises(ValueError, match="gold label 'nice' is not one of"):
        SearchAttack(get_transformations(SAFE), [], Classification("generic"),
                     Greedy(), max_queries=10).run((text, "nice"), Scored(generic))


def _pairs(n, seed=0):
    rng = random.Random(seed)
    cues = {"entailment": "certainly", "neutral": "possibly", "contradiction": "refuses"}
    pairs, labels = [], []
    for _ in range(n):
        label = rng.choice(list(cues))
        noun = rng.choice(NOUNS)
        pairs.append((f"the {noun} is playing outside", f"the {noun} {cues[label]} plays"))
        labels.append(label)
    return pairs, labels


def test_nli_attacks_the_hypothesis_only_unless_asked():
    victim = train_victim("nli-tfidf", *_pairs(300))
    pairs, labels = _pairs(10, seed=2)
    for segments, premise_may_change in ((None, False), ((0, 1), True)):
        attack = SearchAttack(get_transformations(SAFE), [NoRepeat()], Classification("nli"),
                              Greedy("delete"), max_queries=300, segments=segments)
        results = [attack.run(e, victim, i) for i, e in enumerate(zip(pairs, labels))]
        assert any(r.status == SUCCESSFUL for r in results)
        for r, pair in zip(results, pairs):
            assert tuple(r.original) == pair
            if not premise_may_change:
                assert r.adversarial[0] == pair[0]
                assert r.words == len(tokenize.words(pair[1]))


VERBS = ["plays", "wins", "loses", "sings", "runs", "walks", "cooks", "reads"]


def _tagged(n, seed=0):
    """Sentences of nouns and verbs in any order: a tag is told by the word's form alone."""
    rng = random.Random(seed)
    sentences, tags = [], []
    for _ in range(n):
        words = [rng.choice(NOUNS) if rng.random() < 0.5 else rng.choice(VERBS)
                 for _ in range(5)]
        sentences.append(words + ["."])
        tags.append(["VERB" if w in VERBS else "NOUN" for w in words] + ["PUNCT"])
    return sentences, tags


def test_pos_tagging_goals():
    tagger = train_victim("pos-features", *_tagged(150))
    tests = list(zip(*_tagged(5, seed=3)))
    transformation = get_transformations(["keyboard-typo", "truncate", "intrude"],
                                         token_aligned=True)
    attack = SearchAttack(transformation, [NoRepeat()], Tagging(token=1), Greedy("mask"),
                          max_queries=300)
    results = [attack.run(e, tagger, i) for i, e in enumerate(tests)]
    assert any(r.status == SUCCESSFUL for r in results), results
    for r, (sentence, gold) in zip(results, tests):
        assert len(r.adversarial) == len(sentence) and r.adversarial[-1] == "."  # aligned
        if r.status == SUCCESSFUL:
            assert tagger.predict([r.adversarial])[0][1] != gold[1]
    sentence_goal = SearchAttack(transformation, [NoRepeat()], Tagging(max_accuracy=0.7),
                                 Greedy("mask"), max_queries=300)
    r = sentence_goal.run(tests[0], tagger)
    assert r.status == SUCCESSFUL, r
    wrong = sum(a != b for a, b in zip(tagger.predict([r.adversarial])[0], tests[0][1]))
    assert wrong / len(tests[0][1]) > 0.3
    with pytest.raises(ValueError, match="changes the number of tokens"):
        get_transformations(["segment"], token_aligned=True)
    with pytest.raises(ValueError, match="use ranking='mask' for pos"):
        SearchAttack(get_transformations(["truncate"]), [], Tagging(token=0), Greedy("delete"))


@pytest.mark.parametrize("name", recipe_names())
def test_every_recipe_runs(tc, examples, name):
    own = ("deepwordbug", "pruthi", "charmer", "bad-characters")  # their own transformations
    extra = {"surrogate": tc} if name == "zeroe-fast" else {}  # the victim as its own surrogate
    attack = get_recipe(name, "tc", transformations=None if name in own
                        else SAFE + ["segment", "intrude"], seed=1, **extra)
    results = [attack.run(e, tc, i) for i, e in enumerate(examples[:4])]
    assert all(r.queries >= 1 for r in results)
    assert any(r.status == SUCCESSFUL for r in results), results


def test_recipe_options(tc, examples):
    attack = get_recipe("textfooler-zeroe", "tc", transformations="truncate,keyboard-typo",
                        max_queries=12, max_perturbed=1, target=1)
    assert attack.max_queries == 12 and attack.queries_per_word is None
    assert attack.transformation.name == "truncate|keyboard-typo"
    r = attack.run(next(e for e in examples if e[1] == 0), tc)
    assert r.queries <= 12 and r.perturbed <= 1
    for bad, message in ((dict(name="textfoolr"), "unknown recipe 'textfoolr'; choose from "
                                                  "deepwordbug"),
                         (dict(transformations="visul"), "unknown transformation 'visul'"),
                         (dict(max_queries=0), "max_queries must be an integer at least 1"),
                         (dict(target=2), "tc labels are 0 and 1")):
        options = {"name": "textfooler-zeroe", **bad}
        with pytest.raises(ValueError, match=message):
            get_recipe(options.pop("name"), "tc", **options)


SENTENCE = "@USER the day is so lovely and The team was kind today URL"


def _changes(attack, text=SENTENCE):
    """(old word, new word) of every candidate the attack may send for ``text``: the changes of
    its attackable words that its constraints accept."""
    original = AttackedText.from_input("text", text)
    found = []
    for position in attack.attackable(original):
        candidates = attack.transformation.candidates(original, position, 2000,
                                                      random.Random(position))
        found += [(original.word(position), c.word(position))
                  for c in check_all(attack.constraints, original, candidates)]
    assert found
    return found


def _ends_changed(old, new):
    return old[0] != new[:1] or old[-1] != new[-1:]


def test_edit_ends_lets_first_and_last_letters_change(tc, examples):
    assert not any(_ends_changed(*pair) for pair in _changes(get_recipe("pruthi", "tc")))
    assert any(_ends_changed(*pair) for pair in _changes(get_recipe("pruthi", "tc",
                                                                    edit_ends=True)))
    # against a reader that takes words as Sakaguchi et al.'s scRNN does (first letter, the
    # inner letters as a bag, last letter), inner swaps never succeed and end swaps do
    reader = InnerBlind(tc)
    won = {}
    for edit_ends in (False, True):
        attack = get_recipe("pruthi", "tc", transformations="pruthi-swap", edit_ends=edit_ends)
        results = [attack.run(e, reader, i) for i, e in enumerate(examples[:12])]
        won[edit_ends] = [(old, new) for r in results if r.status == SUCCESSFUL
                          for old, new in zip(r.original.split(" "), r.adversarial.split(" "))
                          if old != new]
    assert not won[False] and won[True]
    assert all(_ends_changed(*pair) for pair in won[True])


class InnerBlind:
    """A victim behind the defense edit_ends ignores: every word read as its first letter, its
    inner letters sorted and its last letter, so that inner reorderings change nothing."""

    def __init__(self, victim):
        self.victim, self.task = victim, victim.task

    def predict(self, batch):
        return self.victim.predict([" ".join(w[:1] + "".join(sorted(w[1:-1])) + w[-1:]
                                             if len(w) > 2 else w for w in text.split(" "))
                                    for text in batch])


def test_min_word_length_replaces_the_recipes(tc):
    def lengths(**options):
        return {len(old) for old, _ in _changes(get_recipe("pruthi", "tc", **options))}
    assert min(lengths()) == 4 and min(lengths(min_word_length=2)) < 4
    assert min(len(old) for old, _ in _changes(
        get_recipe("textfooler-zeroe", "tc", transformations=SAFE, min_word_length=6))) >= 6


def test_edit_capitals_and_any_unicode_widen_the_letters_drawn(tc):
    def capitals(word):
        return sum(c.isupper() for c in word)

    lower = SENTENCE.lower()  # Charmer's alphabet holds the text's own characters
    for name in ("deepwordbug", "charmer"):
        assert not any(capitals(new) > capitals(old) for old, new in _changes(
            get_recipe(name, "tc"), lower))
        assert any(capitals(new) > capitals(old) for old, new in _changes(
            get_recipe(name, "tc", edit_capitals=True), lower))
    assert all(new.isascii() for _, new in _changes(get_recipe("deepwordbug", "tc")))
    wide = _changes(get_recipe("deepwordbug", "tc", any_unicode=True))
    assert sum(not new.isascii() for _, new in wide) > len(wide) / 4
    # words outside ASCII change only when any Unicode is allowed
    text = "@USER the café is so lovely today"
    assert "café" not in {old for old, _ in _changes(get_recipe("deepwordbug", "tc"), text)}
    assert "café" in {old for old, _ in _changes(
        get_recipe("deepwordbug", "tc", any_unicode=True), text)}


@pytest.mark.parametrize("name, options, message", [
    ("textfooler-zeroe", dict(transformations="inner-shuffle,intrude", edit_ends=True),
     "edit_ends cannot apply to textfooler-zeroe with inner-shuffle|intrude: none of them "
     "changes a word's first or last character"),
    ("textfooler-zeroe", dict(edit_capitals=True), "edit_capitals cannot apply to "
                                                   "textfooler-zeroe with inner-shuffle"),
    ("bad-characters", dict(any_unicode=True), "any_unicode cannot apply to bad-characters"),
    ("charmer", dict(any_unicode=True), "any_unicode cannot apply to any-char"),
    ("pruthi", dict(min_word_length=0), "min_word_length must be an integer at least 1"),
])
def test_lifts_refused_where_they_cannot_apply(name, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        get_recipe(name, "tc", **options)


def test_gathered_queries_of_several_examples_give_the_results_of_one_at_a_time(tc, examples):
    """What an actor of ``zeroe search --engine ray --examples-per-worker 4`` does: four threads
    attack, each with its own copy of the recipe, and their queries reach the victim together."""
    def recipe():
        return get_recipe("textfooler-zeroe", "tc", transformations=SAFE, seed=2)

    alone = Counting(tc)
    expected = [recipe().run(e, alone, i) for i, e in enumerate(examples)]
    together = Counting(tc)
    gather, recipes = Gather(together), queue.SimpleQueue()
    for _ in range(4):
        recipes.put(recipe())

    def attack(job):
        attack = recipes.get()
        try:
            with gather.member() as victim:
                return attack.run(job[1], victim, job[0])
        finally:
            recipes.put(attack)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(attack, enumerate(examples)))
    assert [r.to_json() for r in results] == [r.to_json() for r in expected]
    assert sorted(together.sent) == sorted(alone.sent)
    assert len(together.batches) < len(alone.batches) / 2


class Broken:
    """A real victim whose outputs are spoilt in one way."""

    name = "broken-victim"

    def __init__(self, victim, spoil):
        self.victim, self.spoil = victim, spoil

    def predict(self, batch):
        return self.spoil(self.victim.predict(batch))


@pytest.mark.parametrize("spoil, message", [
    (lambda out: out[:-1] if len(out) > 1 else [], "returned 0 outputs for 1 inputs"),
    (lambda out: [float("nan")] * len(out), "NaN"),
    (lambda out: [p * 3 for p in out], r"outside \[0, 1\]"),
    (lambda out: [[p, 1 - p] for p in out], "multi-label"),
])
def test_bad_victim_outputs_name_the_victim(tc, examples, spoil, message):
    with pytest.raises(ValueError, match=f"victim broken-victim.*{message}|{message}"):
        _attack(max_queries=50).run(examples[0], Broken(tc, spoil))


def test_scores_that_are_not_probabilities(generic):
    class Unnormalised(Scored):
        name = "unnormalised"

        def scores(self, batch):
            return [[2 * p for p in row] for row in super().scores(batch)]

    class Unknown:
        name = "renamed"

        def predict(self, batch):
            return ["nasty" for _ in generic.predict(batch)]

    text = "@USER the coach is pathetic today URL"
    goal = Classification("generic", labels=["fine", "toxic"])
    for victim, message in ((Unnormalised(generic), "victim unnormalised returned scores "
                                                    "outside"),
                            (Unknown(), "victim renamed returned unknown label 'nasty'")):
        with pytest.raises(ValueError, match=message):
            SearchAttack(get_transformations(SAFE), [], goal, Greedy(),
                         max_queries=9).run((text, "toxic"), victim)


@pytest.mark.parametrize("rows,message", [
    ([[0.2, 0.8], [0.6, 0.4]], None), ([[1, 0], [0.5, 0.5]], None),
    ([[float("nan"), 0.5], [0.5, 0.5]], "NaN scores"),
    ([[1.2, -0.2], [0.5, 0.5]], "outside \\[0, 1\\]"),
    ([[0.2, 0.2], [0.5, 0.5]], "do not sum to 1"), ([[0.2, 0.3, 0.5]] * 2, "shape \\(3,\\)"),
    ([["a", "b"], [0.5, 0.5]], "not rows of numbers"), ([[0.2, 0.8]], "1 outputs for 2")])
def test_probability_rows_are_checked_as_lists_and_as_arrays(rows, message):
    """A victim's probability rows, plain floats (the quick check) or not, a list or an array:
    the same rows back, or the same one-line error."""
    import numpy as np

    class Fixed:
        name, task, labels = "fixed", "generic", ("neg", "pos")

        def __init__(self, answer):
            self.answer = answer

        def predict(self, batch):
            return ["pos"] * len(batch)

        def scores(self, batch):
            return self.answer

    goal = Classification("generic")
    forms = [rows, [[np.float32(p) if isinstance(p, float) else p for p in row] for row in rows]]
    if message != "not rows of numbers":
        forms.append(np.array(rows, dtype=float))
    for answer in forms:
        if message is None:
            out = goal.outcomes(Fixed(answer), ["a", "b"], "neg")
            assert [o.score for o in out] == [1.0 - float(row[0]) for row in answer]
        else:
            with pytest.raises(ValueError, match=f"victim fixed .*{message}"):
                goal.outcomes(Fixed(answer), ["a", "b"], "neg")


def test_skipped_examples(tc):
    attack = _attack(max_queries=50)
    for text in ("", "the and of it is", "123 !!! 456"):
        victim = Counting(tc)
        r = attack.run((text, _label(tc, text)), victim)
        assert (r.status, r.reason, r.queries) == (SKIPPED, NOTHING_TO_ATTACK, 1)
        assert r.adversarial == text and r.perturbed == 0


def test_bad_input(tc):
    with pytest.raises(ValueError, match="max_queries must be an integer at least 1"):
        _attack(max_queries=0)
    with pytest.raises(ValueError, match="queries_per_word must be"):
        _attack(queries_per_word=-3)
    with pytest.raises(ValueError, match="needs a budget"):
        _attack(RandomProtocol())
    with pytest.raises(ValueError, match="multi-label toxicity data"):
        _attack(max_queries=5).run(("you idiot", [1, 0, 1]), tc)
    with pytest.raises(ValueError, match="a text example is a string"):
        _attack(max_queries=5).run((["you", "idiot"], 1), tc)
    with pytest.raises(ValueError, match="an example is"):
        _attack(max_queries=5).run("you idiot", tc)
    with pytest.raises(ValueError, match="the random Zéroe protocol needs Zéroe perturbers"):
        SearchAttack(get_transformations(["dwb-swap"]), [], Classification("tc"),
                     RandomProtocol(), max_queries=5).run(("you stupid idiot", 1), tc)


def test_text_state_round_trips_and_edits():
    text = AttackedText.from_input("pair", ("A man sleeps.", "Nobody don't sleep, @USER!"))
    assert text.victim_input() == ("A man sleeps.", "Nobody don't sleep, @USER!")
    assert len(text) == 4 and text.word(1) == "don't" and text.locate(0) == (1, 0)
    assert text.without(2).key[1] == "Nobody don't, @USER!"
    assert text.without(2, "[UNK]").key[1] == "Nobody don't [UNK], @USER!"
    tokens = AttackedText.from_input("tokens", ["I", "ca", "n't", "."])
    assert tokens.victim_input() == ["I", "ca", "n't", "."] and len(tokens) == 4
    tf = get_transformations(["keyboard-typo"])
    for c in tf.candidates(text, 1, 5, random.Random(0)):
        assert c.word(1).endswith("n't") and c.word(1) != "don't" and c.modified == {1}



@pytest.mark.parametrize("names", [
    ["keyboard-typo", "full-shuffle", "intrude", "natural-typo", "inner-shuffle", "phonetic"],
    ["truncate"], ["dwb-swap", "dwb-insert"], ["pruthi-keyboard"], ["bad-homoglyph"]])
def test_a_word_s_spellings_are_what_its_edits_put_there(names):
    """``spellings`` (what `methods.WordDraws` keeps of a word's draws) are the words its
    ``edits`` put at the position, drawn the same from the same stream, a union's interleaved
    alike; any-char with a fixed alphabet too."""
    text = AttackedText.from_input("pair", ("A man sleeps.", "Nobody don't sleep, lovely cat!"))
    for tf in (get_transformations(names), AnyCharacter("xyz")):
        for p in range(len(text)):
            edits = tf.edits(text, p, 7, random.Random(p))
            s, i = text.locate(p)
            assert tf.spellings(text, p, 7, random.Random(p)) == [e.words[0][1] for e in edits]
            assert all(e == (s, ((i, e.words[0][1]),), (), (p,)) for e in edits)

def test_recipes_for_pos_and_nli():
    pos = get_recipe("textfooler-zeroe", "pos")
    assert pos.method.ranking == "mask" and "segment" not in pos.transformation.name
    assert get_recipe("textfooler-zeroe", "nli").method.ranking == "delete"
    for name in recipe_names():
        if name == "zeroe-fast":  # a surrogate of a binary victim: tc or generic
            with pytest.raises(ValueError, match="it takes task tc or generic, not pos"):
                get_recipe(name, "pos", surrogate=NgramSurrogate({}, {}, {}))
            continue
        assert get_recipe(name, "pos").goal.task.name == "pos"
    with pytest.raises(ValueError, match="segment changes the number of tokens"):
        get_recipe("zeroe-beam", "pos", transformations=["segment", "truncate"])


def test_random_baseline_keeps_protected_words_and_joins_whole_words(tc, examples):
    attack = SearchAttack(get_transformations(["segment", "intrude", "truncate"]),
                          [NoRepeat(), Stopwords(), Protected(), MaxPerturbed(0.3)],
                          Classification("tc"), RandomProtocol(0.3, batch=8), max_queries=60)
    for i, example in enumerate(examples[:8]):
        victim = Counting(tc)
        r = attack.run(example, victim, i)
        assert r.queries == len(victim.sent) <= 60
        for sent in victim.sent[1:]:
            assert sent.startswith("@USER ") and sent.endswith(" URL")
            for stopword in (" the ", " is ", " and ", " was "):  # neither changed nor joined
                assert sent.count(stopword) == r.original.count(stopword)


def test_beam_without_no_repeat_ends_when_nothing_is_new(tc):
    attack = SearchAttack(get_transformations(["truncate", "disemvowel"]), [],
                          Classification("tc"), Beam(2), candidates=3)
    r = attack.run(("@USER the coach is great today URL", 0), tc)
    assert r.status in ("failed", SUCCESSFUL) and r.queries < 200
