"""The shield's context model (`zeroe_assets.shield.lm`, `train.shield.lm`): interpolated
Kneser–Ney over the training splits' clauses, a proper distribution for every history, exported
and read back as the same numbers, and the windows the shield asks it about."""
from __future__ import annotations

import math
import pickle
import threading

import numpy as np
import pytest

from train.shield.lm import SOURCES, clauses, count, estimate, held_out, kneser_ney
from zeroe_assets.assets import ArtifactError, component_available, json_bytes, read_manifest, \
    write_component
from zeroe_assets.shield.context import Context
from zeroe_assets.shield.lm import COMPONENT, END, REVIEWS, START, ContextModel, Mixture, \
    encode, load_context_model, write_context_model

TEXT = ["The cat sat on the mat.", "The dog sat on the log, and the cat ran!",
        "A cat sat on a dog", "@USER the cat is 3 years old URL", "I can't see the cat's mat"]


class Uniform:
    """A lexicon whose unigram is uniform over ``words``: the model's bottom then sums to one."""

    def __init__(self, words):
        self.words = set(words)

    def logfreq(self, word: str) -> float:
        return -math.log10(len(self.words)) if word in self.words else -99.0


def _model():
    vocab = {w for t in TEXT for c in clauses(t) for w in c} | {END}
    lexicon = Uniform(vocab)
    words, arrays, gamma, sizes = estimate(TEXT, lexicon)
    return ContextModel(words, arrays, gamma, lexicon), words, arrays, gamma, sizes


def test_clauses_stop_at_punctuation_numbers_and_placeholders():
    assert clauses("The dog sat on the log, and the cat ran!") == \
        [["the", "dog", "sat", "on", "the", "log"], ["and", "the", "cat", "ran"]]
    assert clauses("@USER the cat is 3 years old URL") == [["the", "cat", "is"], ["years", "old"]]
    assert clauses("I can't see the cat's mat") == \
        [["i", "ca", "n't", "see", "the", "cat", "'s", "mat"]]


@pytest.mark.parametrize("history", [(), ("the",), (START, "the"), ("sat", "on"),
                                     ("on", "the"), ("mat",), ("unseen", "words")])
def test_every_history_gives_a_distribution(history):
    model, words, *_ = _model()
    total = sum(10 ** model.logprob(w, history) for w in words if w != START)
    assert total == pytest.approx(1.0, abs=1e-4)


def test_seen_continuations_beat_unseen_ones():
    model, *_ = _model()
    assert model.logprob("sat", ("the", "cat")) > model.logprob("ran", ("the", "cat")) \
        > model.logprob("log", ("the", "cat"))
    # a word never seen (None) cuts the history: the bigram's estimate, not the trigram's
    assert model.logprob("sat", (None, "cat")) == model.logprob("sat", ("cat",))
    assert model.window((START, "the"), "cat", ("sat", "on")) > \
        model.window((START, "the"), "mat", ("sat", "on"))


def test_the_export_reads_back_the_same_numbers(empty_artifacts):
    model, words, arrays, gamma, sizes = _model()
    assert load_context_model(empty_artifacts) is None  # not exported: the shield's fallback
    write_context_model(words, arrays, gamma, sizes, empty_artifacts)
    assert component_available(COMPONENT, empty_artifacts)
    loaded = load_context_model(empty_artifacts)
    loaded.lexicon = model.lexicon  # the test's unigram, not the runtime lexicon's
    for history in [(), ("the",), ("sat", "on"), (START, "a")]:
        for w in ["cat", "mat", "n't", END]:
            assert loaded.logprob(w, history) == pytest.approx(model.logprob(w, history))


def test_windows_stop_at_clause_edges_and_unread_words():
    # "the cat's mat, a dog" with "mat" not read: unit 2 (mat) starts no clause, unit 3 does
    read = ["the", "cat", None, "a", "dog"]
    cuts = [True, False, False, True, False]
    tails = ["", "'s", "", "", ""]
    windows = Context.windows(read, cuts, tails)
    assert windows[0] == ((START,), ("cat", "'s"))
    assert windows[1] == ((START, "the"), ("'s", None))
    assert windows[2] == (("cat", "'s"), (END,))
    assert windows[3] == ((START,), ("dog", END))
    assert windows[4] == ((START, "a"), (END,))


def test_the_shipped_model_counts_training_splits_only():
    meta = read_manifest()["components"][COMPONENT]["meta"]
    paths = [source["path"] for source in meta["sources"].values()]
    assert paths == [rel for rel, _ in SOURCES.values()]
    assert not any("test" in p for p in paths)  # the benchmarks score on the test splits
    assert held_out(list(range(25))) == [0, 10, 20]


@pytest.mark.parametrize("half", [False, True])
@pytest.mark.parametrize("size", [100, 70000])  # 16-bit word ids, and 32-bit past 65,536 words
def test_the_trie_reads_back_every_ngram(size, half):
    rng = np.random.default_rng(0)
    ids = rng.choice(size, 60, replace=False).tolist()
    bigrams = {(int(v), int(w)): (float(rng.uniform(-5, 0)), float(rng.uniform(-2, 0)))
               for v, w in rng.choice(ids, (80, 2))}
    trigrams = {(u, v, int(w)): float(rng.uniform(-5, 0))
                for (u, v) in list(bigrams)[:30] for w in rng.choice(ids, 3)}
    trigrams[0, 0, ids[0]] = -0.5  # a history no bigram is, as <s> <s>
    uni = rng.uniform(-6, -1, size)
    arrays = encode(uni, np.zeros(size), bigrams, trigrams, half)
    assert arrays["tri_word"].dtype == (np.uint16 if size <= 1 << 16 else np.uint32)
    model = ContextModel([str(i) for i in range(size)], arrays, -1.0, Uniform([]))
    tol = 2e-3 if half else 1e-6
    for (u, v, w), p in trigrams.items():
        assert model.logprob(str(w), (str(u), str(v))) == pytest.approx(p, abs=tol)
    for (v, w), (p, bow) in bigrams.items():
        assert model.logprob(str(w), (str(v),)) == pytest.approx(p, abs=tol)
        unseen = next(x for x in range(1, size) if (v, w, x) not in trigrams)  # 0: <s>
        if (w, unseen) not in bigrams:
            assert model.logprob(str(unseen), (str(v), str(w))) == \
                pytest.approx(bow + float(np.float32(uni[unseen])), abs=tol)


REVIEWS_TEXT = ["the film is remarkably dull", "a dull film with a dull script",
                "the script is dull and the acting is worse", "the film is a bore"]


def _pair():
    """A general model (the TEXT above) and a reviews model over one lexicon."""
    vocab = {w for t in TEXT + REVIEWS_TEXT for c in clauses(t) for w in c} | {END}
    lexicon = Uniform(vocab)
    models = [ContextModel(*estimate(text, lexicon)[:3], lexicon) for text in (TEXT, REVIEWS_TEXT)]
    return models, lexicon


def test_clauses_cut_at_words_the_vocabulary_lacks():
    assert clauses("the cat sat on the mat", keep={"the", "cat", "on", "mat"}) == \
        [["the", "cat"], ["on", "the", "mat"]]


PRUNED_TEXT = TEXT * 2 + ["The cat sat on a log", "A dog ran on the mat"]


def _pruning_lexicon():
    return Uniform({w for t in PRUNED_TEXT for c in clauses(t) for w in c} | {END})


@pytest.mark.parametrize("cut", [{"min_count": 2}, {"prune": 0.003}, {"prune": 0.03},
                                 {"min_count": 2, "prune": 0.003}])
@pytest.mark.parametrize("history", [(), ("the",), ("cat", "sat"), ("on", "the"), ("a", "dog")])
def test_a_pruned_model_is_still_a_distribution(history, cut):
    lexicon = _pruning_lexicon()  # counted twice, the cut-off keeps the first TEXT's n-grams
    full = estimate(PRUNED_TEXT, lexicon)
    words, arrays, gamma, sizes = estimate(PRUNED_TEXT, lexicon, **cut)
    assert sizes["trigrams"] < full[3]["trigrams"] and all(sizes[k] == v for k, v in cut.items())
    model = ContextModel(words, arrays, gamma, lexicon)
    total = sum(10 ** model.logprob(w, history) for w in words if w != START)
    assert total == pytest.approx(1.0, abs=1e-4)


def test_a_higher_entropy_threshold_keeps_fewer_ngrams():
    lexicon = _pruning_lexicon()
    tri, tokens = count(PRUNED_TEXT)
    sizes = [kneser_ney(tri, tokens, lexicon, prune=t)[3]
             for t in (0.0, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1.0)]
    kept = [(s["bigrams"], s["trigrams"]) for s in sizes]
    assert all(a >= b for pair in zip(kept, kept[1:]) for a, b in zip(*pair))
    assert kept[0][1] > kept[3][1] > kept[-1][1] == 0


def test_entropy_pruning_drops_an_ngram_by_what_its_loss_costs():
    # the loss summed over the whole vocabulary: P(h) KL(P(. | h) || P'(. | h)), where P' backs
    # off for w alone and renormalises the back-off mass; kept just below it, dropped just above
    lexicon = _pruning_lexicon()
    tri, tokens = count(PRUNED_TEXT)
    words, arrays, gamma, _ = kneser_ney(tri, tokens, lexicon)
    model = ContextModel(words, arrays, gamma, lexicon)
    u, v, w = "the", "cat", "sat"
    seen = {x for (a, b, x) in tri if (a, b) == (u, v)}
    vocab = [x for x in words if x != START]
    p = {x: 10 ** model.logprob(x, (u, v)) for x in vocab}
    q = {x: 10 ** model.logprob(x, (v,)) for x in vocab}
    alpha = (1 - sum(p[x] for x in seen - {w})) / (1 - sum(q[x] for x in seen - {w}))
    dropped = {x: p[x] if x in seen - {w} else alpha * q[x] for x in vocab}
    assert sum(dropped.values()) == pytest.approx(1.0, abs=1e-6)
    share = sum(c for (a, b, _), c in tri.items() if (a, b) == (u, v)) / sum(tri.values())
    loss = share * sum(p[x] * math.log(p[x] / dropped[x]) for x in vocab)
    for threshold, kept in ((loss * 0.98, True), (loss * 1.02, False)):
        pruned = ContextModel(*kneser_ney(tri, tokens, lexicon, prune=threshold)[:3], lexicon)
        history = pruned._child(pruned.bi_start, pruned.bi_word, pruned.ids[u], pruned.ids[v])
        stored = pruned._child(pruned.tri_start, pruned.tri_word, history, pruned.ids[w])
        assert (stored >= 0) == kept


def test_a_mixture_reads_each_line_with_the_model_of_its_domain():
    (general, reviews), lexicon = _pair()
    mixed = Mixture(general, reviews)
    mixed.fit(["the", "film", "is", "remarkably", "dull"])
    assert mixed.weight < 0.01
    assert mixed.logprob("dull", ("remarkably",)) == \
        pytest.approx(reviews.logprob("dull", ("remarkably",)), abs=0.01)
    mixed.fit(["the", "cat", "sat", "on", "the", "mat"])
    assert mixed.weight > 0.99
    assert mixed.window((START, "the"), "cat", ("sat", "on")) == \
        pytest.approx(general.window((START, "the"), "cat", ("sat", "on")), abs=0.01)


def test_a_mixture_fitted_in_one_thread_leaves_another_threads_line_alone():
    (general, reviews), lexicon = _pair()
    mixed = Mixture(general, reviews)
    mixed.fit(["the", "film", "is", "remarkably", "dull"])
    other = threading.Thread(target=mixed.fit, args=(["the", "cat", "sat", "on", "the", "mat"],))
    other.start()
    other.join()
    assert mixed.weight < 0.01  # this thread's line is still the review
    copy = pickle.loads(pickle.dumps(mixed))  # as a shield is sent to workers and Ray actors
    assert copy.weight == 1.0 and copy.ids == mixed.ids


def test_the_reviews_model_is_exported_beside_the_general_one(empty_artifacts):
    (general, reviews), lexicon = _pair()
    for text, component in ((TEXT, COMPONENT), (REVIEWS_TEXT, REVIEWS)):
        words, arrays, gamma, sizes = estimate(text, lexicon)
        write_context_model(words, arrays, gamma, sizes, empty_artifacts, component)
    loaded = load_context_model(empty_artifacts)
    assert isinstance(loaded, Mixture)
    assert loaded.other.ids == reviews.ids and loaded.general.ids == general.ids


def test_a_model_in_the_packed_key_layout_names_its_rebuild(empty_artifacts):
    model, words, arrays, gamma, sizes = _model()
    write_component(COMPONENT, {"words.txt": ("\n".join(words) + "\n").encode("utf-8"),
                                "model.json": json_bytes({"order": 3, "bits": 21,
                                                          "gamma": gamma, "arrays": []})},
                    sizes, empty_artifacts)
    with pytest.raises(ArtifactError, match="trie layout; rebuild with `python -m train.shield"):
        load_context_model(empty_artifacts)
