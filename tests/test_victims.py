"""Victims that users have: ``scores`` on the built-in classifiers, ``hf:DIR`` models (a tiny
randomly initialised BERT saved here, never a download) and the MiniLM fine-tune job on tiny
data."""
from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from zeroe_assets.victims import Scorer, load_victim
from zeroe_assets.victims.sklearn import train_victim

WORDS = ("the a cat dog sat ran on mat good bad happy sad is are not very you idiot nice love "
         "hate stupid great day man woman sleeps outside people").split()
TEXTS = ["the cat sat on the mat", "a dog ran", "you are very good", "you idiot",
         "nice day", "I hate you stupid man", "people love a great day", "the woman sleeps"]
PAIRS = [("a man sleeps", "a man is sleeping"), ("the dog ran", "the cat sat"),
         ("people are happy", "people are not sad")]


def tiny_bert(path, labels, seed: int = 0, head: bool = True):
    """A 2-layer BERT (hidden 32, random weights) and a WordPiece tokenizer over a small
    vocabulary, saved to ``path``; ``head=False`` saves the bare encoder (a ``BertModel``)."""
    import torch
    from transformers import (BertConfig, BertForSequenceClassification, BertModel,
                              BertTokenizerFast)

    path.mkdir(parents=True, exist_ok=True)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = list(dict.fromkeys(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *letters,
                                *(f"##{c}" for c in letters), ".", ",", "!", "?"]))
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=40,
                        num_labels=len(labels), id2label=dict(enumerate(labels)),
                        label2id={name: i for i, name in enumerate(labels)})
    torch.manual_seed(seed)
    model = (BertForSequenceClassification if head else BertModel)(config)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def bert_dirs(tmp_path_factory):
    pytest.importorskip("transformers", reason="the hf extra is not installed")
    root = tmp_path_factory.mktemp("hf")
    return {"generic": tiny_bert(root / "generic", ["neg", "pos"]),
            "nli": tiny_bert(root / "nli", ["entailment", "neutral", "contradiction"]),
            "tc": tiny_bert(root / "tc", ["NOT", "OFF"])}


def check_scores(victim, batch):
    """``scores`` are distributions over ``labels`` whose argmax is what ``predict`` says."""
    rows, predicted = victim.scores(batch), victim.predict(batch)
    assert isinstance(victim, Scorer) and len(rows) == len(predicted) == len(batch)
    for row, label in zip(rows, predicted):
        assert len(row) == len(victim.labels) and math.isclose(sum(row), 1.0, abs_tol=1e-5)
        assert all(0.0 <= p <= 1.0 for p in row) and all(type(p) is float for p in row)
        assert victim.labels[row.index(max(row))] == label
    assert victim.scores([]) == [] and victim.predict([]) == []


# --- scores on the built-in scikit-learn victims ----------------------------------------------

def test_builtin_label_victims_give_scores_that_survive_pickling():
    generic = train_victim("generic-tfidf", TEXTS * 3, ["neg", "pos"] * 12)
    nli = train_victim("nli-tfidf", PAIRS * 4, ["entailment", "neutral", "contradiction"] * 4)
    for victim, batch in ((generic, TEXTS), (nli, PAIRS)):
        assert set(victim.labels) == set(victim.predict(batch * 4))
        check_scores(victim, batch)
        again = pickle.loads(pickle.dumps(victim))
        assert again.labels == victim.labels and again.scores(batch) == victim.scores(batch)
    assert nli.labels == ("contradiction", "entailment", "neutral")


@pytest.mark.parametrize("old", ["zeroe_assets.baselines", "zeroe_assets.bench.victims"])
def test_victims_saved_under_an_old_module_path_still_load(old, tmp_path, monkeypatch):
    import joblib

    from zeroe_assets.victims import sklearn

    victim = train_victim("generic-tfidf", TEXTS * 3, ["neg", "pos"] * 12)
    path = tmp_path / "old.joblib"
    with monkeypatch.context() as m:  # pickled as the class was named before the move
        m.setattr(sklearn.TextClassifier, "__module__", old)
        m.setitem(sys.modules, old, sklearn)
        joblib.dump(victim, path)
    assert old.encode() in path.read_bytes() and old not in sys.modules
    again = load_victim("generic-tfidf", path, task="generic")
    assert type(again) is sklearn.TextClassifier and again.predict(TEXTS) == victim.predict(TEXTS)
    assert old not in sys.modules  # aliased for the load only


def test_toxicity_victims_score_with_predict_only():
    tc = train_victim("tc-tfidf", TEXTS * 3, [0, 1] * 12)
    assert not hasattr(tc, "scores") and not isinstance(tc, Scorer)
    assert all(0.0 <= p <= 1.0 for p in tc.predict(TEXTS))


def test_encoder_victims_have_scores_unless_they_score_toxicity(monkeypatch):
    import numpy as np

    from zeroe_assets.victims.sklearn import EncoderClassifier

    # the frozen encoder replaced by letter counts: the head and its scores are what is tested
    def embed(self, texts):
        return np.array([[t.count(c) for c in "aeiou"] for t in texts], dtype=float)

    monkeypatch.setattr(EncoderClassifier, "_embed", embed)
    generic = EncoderClassifier("generic", encoder="unused").fit(TEXTS * 2, ["neg", "pos"] * 8)
    check_scores(generic, TEXTS)
    nli = EncoderClassifier("nli", encoder="unused").fit(PAIRS * 2, ["a", "b", "c"] * 2)
    check_scores(nli, PAIRS)
    tc = EncoderClassifier("tc", encoder="unused").fit(TEXTS * 2, [0, 1] * 8)
    assert not hasattr(tc, "scores") and not hasattr(tc, "labels") and not isinstance(tc, Scorer)
    assert isinstance(generic, Scorer) and isinstance(nli, Scorer)
    assert all(0.0 <= p <= 1.0 for p in tc.predict(TEXTS))


# --- hf: victims -----------------------------------------------------------------------------

def test_hf_generic_victim_predicts_label_names_with_scores(bert_dirs):
    victim = load_victim(f"hf:{bert_dirs['generic']}", task="generic", device="cpu")
    assert victim.labels == ("neg", "pos") and victim.task == "generic"
    check_scores(victim, TEXTS)


def test_hf_batching_and_order_do_not_change_outputs(bert_dirs):
    one = load_victim(f"hf:{bert_dirs['generic']}", task="generic", batch_size=1)
    many = load_victim(f"hf:{bert_dirs['generic']}", task="generic", batch_size=64)
    rows = one.scores(TEXTS)
    for got, want in zip(many.scores(TEXTS[::-1])[::-1], rows):
        assert got == pytest.approx(want, abs=1e-5)


def test_hf_truncates_to_the_model_maximum(bert_dirs):
    victim = load_victim(f"hf:{bert_dirs['generic']}", task="generic")
    assert victim.model.max_length == 40  # no limit in the tokenizer: the position embeddings'
    long = " ".join(["the cat sat on the mat"] * 50)
    check_scores(victim, [long, "", "😀 ǅ unknownwordzzz"])
    # what lies past the limit cannot change the prediction
    cut = victim.scores([long])[0]
    assert victim.scores([long + " you idiot"])[0] == pytest.approx(cut, abs=1e-6)


def test_hf_pair_task_sends_text_pairs(bert_dirs):
    victim = load_victim(f"hf:{bert_dirs['nli']}", task="nli")
    assert victim.labels == ("entailment", "neutral", "contradiction")
    check_scores(victim, PAIRS)
    tokenizer = victim.model.tokenizer
    assert tokenizer(*PAIRS[0])["token_type_ids"].count(1) > 0  # a pair, not one joined text
    swapped = victim.scores([(h, p) for p, h in PAIRS])
    assert any(a != pytest.approx(b, abs=1e-6) for a, b in zip(swapped, victim.scores(PAIRS)))
    with pytest.raises(ValueError, match=r"\(premise, hypothesis\) pairs"):
        victim.predict(["just one text"])


def test_hf_toxicity_victim_returns_the_positive_probability(bert_dirs):
    victim = load_victim(f"hf:{bert_dirs['tc']}", task="tc")
    assert victim.positive == "OFF" and not hasattr(victim, "scores")
    generic = load_victim(f"hf:{bert_dirs['tc']}", task="generic")
    for p, row in zip(victim.predict(TEXTS), generic.scores(TEXTS)):
        assert p == pytest.approx(row[1])


@pytest.mark.parametrize("labels,positive", [(["LABEL_0", "LABEL_1"], 1), (["toxic", "ok"], 0),
                                             (["0", "1"], 1), (["NOT", "OFF", "other"], 1)])
def test_positive_label_rule(labels, positive):
    from zeroe_assets.victims.hf import positive_index

    assert positive_index(labels) == positive


@pytest.mark.parametrize("labels,message", [(["toxic", "offensive"], "several positive names"),
                                            (["a", "b", "c"], "3 labels and none named")])
def test_positive_label_rule_refuses_to_guess(labels, message):
    from zeroe_assets.victims.hf import positive_index

    with pytest.raises(ValueError, match=message):
        positive_index(labels)


def test_hf_task_file_names_task_and_positive(bert_dirs, tmp_path):
    import shutil

    from zeroe_assets.victims.hf import TASK_FILE

    root = tmp_path / "m"
    shutil.copytree(bert_dirs["tc"], root)
    record = {"format": "zeroe-hf-victim", "version": 1, "task": "tc", "positive": "NOT"}
    (root / TASK_FILE).write_text(json.dumps(record))
    victim = load_victim(f"hf:{root}")  # the task comes from the directory
    assert victim.positive == "NOT"
    with pytest.raises(ValueError, match="is for task tc, not nli"):
        load_victim(f"hf:{root}", task="nli")
    (root / TASK_FILE).write_text(json.dumps({**record, "positive": "MAYBE"}))
    with pytest.raises(ValueError, match="'MAYBE' is not one of"):
        load_victim(f"hf:{root}")
    (root / TASK_FILE).write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_victim(f"hf:{root}")


def test_a_folder_named_twice_is_refused_not_half_ignored(tmp_path):
    # hf:DIR and defended:DIR name their folder; a --victim-path besides would go unused
    for spec in (f"hf:{tmp_path}", f"defended:{tmp_path}"):
        with pytest.raises(ValueError, match="--victim-path .* would go unused"):
            load_victim(spec, tmp_path / "other", task="tc")


def test_hf_errors_are_clear(bert_dirs, tmp_path):
    with pytest.raises(ValueError, match="directory not found"):
        load_victim(f"hf:{tmp_path / 'nope'}", task="tc")
    with pytest.raises(ValueError, match="no config.json"):
        load_victim(f"hf:{tmp_path}", task="tc")
    with pytest.raises(ValueError, match="need their model directory"):
        load_victim("hf:")
    with pytest.raises(ValueError, match="does not say its task"):
        load_victim(f"hf:{bert_dirs['generic']}")
    with pytest.raises(ValueError, match="classify sequences"):
        load_victim(f"hf:{bert_dirs['generic']}", task="pos")
    with pytest.raises(ValueError, match="unknown task"):
        load_victim(f"hf:{bert_dirs['generic']}", task="sentiment")
    with pytest.raises(ValueError, match="batch size must be an integer at least 1"):
        load_victim(f"hf:{bert_dirs['generic']}", task="generic", batch_size=0)
    with pytest.raises(ValueError, match="BertModel, not a sequence-classification model"):
        load_victim(f"hf:{tiny_bert(tmp_path / 'bare', ['a', 'b'], head=False)}", task="tc")
    with pytest.raises(ValueError, match="device 'nodevice'"):
        load_victim(f"hf:{bert_dirs['generic']}", task="generic", device="nodevice")
    bare = tmp_path / "no-tokenizer"
    bare.mkdir()
    for name in ("config.json", "model.safetensors"):
        (bare / name).write_bytes((bert_dirs["generic"] / name).read_bytes())
    with pytest.raises(ValueError, match="no usable tokenizer files"):
        load_victim(f"hf:{bare}", task="generic")


def test_hf_without_transformers_names_the_extra(bert_dirs, tmp_path):
    blocker = tmp_path / "transformers.py"  # shadows the package: importing it fails
    blocker.write_text("raise ImportError('no transformers here')\n")
    code = ("import sys; from zeroe_assets.victims import load_victim\n"
            f"try: load_victim('hf:{bert_dirs['tc']}', task='tc')\n"
            "except ValueError as e: print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": f"{tmp_path}:{ROOT}"})
    assert "pip install 'zeroe[hf]'" in out.stdout


def test_hf_victim_through_the_cli(bert_dirs, tmp_path):
    from zeroe_assets.cli import main

    # gold labels are the victim's own predictions, so its clean accuracy is 1
    gold = load_victim(f"hf:{bert_dirs['nli']}", task="nli").predict(PAIRS)
    data = tmp_path / "nli.tsv"
    data.write_text("gold_label\tsentence1\tsentence2\n" + "".join(
        f"{label}\t{p}\t{h}\n" for (p, h), label in zip(PAIRS, gold)))
    sets = tmp_path / "sets"
    assert main(["bench", "generate", "--task", "nli", "--input", f"test={data}", "--perturbers",
                 "truncate", "--levels", "high", "--out", str(sets)]) == 0
    evaluate = ["bench", "evaluate", "--task", "nli", "--sets", str(sets), "--out"]
    # a directory without zeroe_victim.json: its task comes from --task
    assert main([*evaluate, str(tmp_path / "out"), "--victim", f"hf:{bert_dirs['nli']}"]) == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["clean_score"] == 1.0
    assert main([*evaluate, str(tmp_path / "no"), "--victim", f"hf:{tmp_path / 'no'}"]) == 2


# --- the fine-tune job (python -m train.victim experiment=victim_hf_smoke) -------------------

OFFENSIVE = ("idiot", "stupid", "hate")


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory):
    """OLID-like files (test labels apart, joined by id) and SNLI-like pairs, plus the bare
    encoder the job fine-tunes."""
    pytest.importorskip("transformers", reason="the hf extra is not installed")
    root = tmp_path_factory.mktemp("finetune")
    texts = TEXTS * 4
    tweets = [(str(100 + i), t, "OFF" if any(w in t for w in OFFENSIVE) else "NOT")
              for i, t in enumerate(texts)]
    (root / "olid.tsv").write_text("id\ttweet\tsubtask_a\n" + "".join(
        f"{i}\t{t}\t{label}\n" for i, t, label in tweets), encoding="utf-8")
    (root / "test.tsv").write_text("id\ttweet\n" + "".join(f"{i}\t{t}\n" for i, t, _ in tweets))
    (root / "labels.csv").write_text("id,label\n" + "".join(f"{i},{label}\n"
                                                           for i, _, label in tweets))
    gold = ["entailment", "neutral", "contradiction"]
    (root / "snli.tsv").write_text("gold_label\tsentence1\tsentence2\n" + "".join(
        f"{label}\t{p}\t{h}\n" for (p, h), label in zip(PAIRS * 4, gold * 4)) + "-\ta\tb\n")
    return root, tiny_bert(root / "encoder", ["x", "y"], head=False)


def finetune_cfg(tiny_data, out, extra=()):
    from tests.conftest import compose

    root, encoder = tiny_data
    return compose("victim", ["experiment=victim_hf_smoke", f"model.encoder={encoder}",
                              f"data.train_path={root / 'olid.tsv'}",
                              f"data.test_path={root / 'test.tsv'}",
                              f"data.test_labels={root / 'labels.csv'}", "trainer.max_epochs=15",
                              f"out_dir={out}", *extra])


@pytest.fixture(scope="module")
def finetuned(tiny_data, tmp_path_factory):
    from train.victim.__main__ import train

    out = tmp_path_factory.mktemp("olid-run")
    return out, train(finetune_cfg(tiny_data, out))


def test_finetune_learns_and_exports_an_hf_victim(finetuned, tiny_data):
    out, metrics = finetuned
    assert metrics["data"]["test"]["examples"] == len(TEXTS) * 4  # labels joined by id
    assert metrics["exported"]["test_accuracy"] == metrics["test"]["acc"] == 1.0
    assert metrics["exported"]["test_roc_auc"] == 1.0
    victim = load_victim(f"hf:{out / 'hf'}")  # the task comes from zeroe_victim.json
    assert victim.task == "tc" and victim.positive == "OFF"
    p = victim.predict(["you idiot", "nice day"])
    assert p[0] > 0.5 > p[1]
    record = json.loads((out / "hf" / "zeroe_victim.json").read_text())
    assert record["labels"] == ["NOT", "OFF"] and record["metrics"]["test"]["acc"] == 1.0
    assert record["encoder"] == str(tiny_data[1])
    umask = os.umask(0)
    os.umask(umask)
    assert {f.stat().st_mode & 0o777 for f in (out / "hf").iterdir()} == {0o666 & ~umask}
    assert (out / "checkpoints" / "last.ckpt").is_file() and (out / "metrics.json").is_file()
    assert "val/acc" in (out / "logs" / "version_0" / "metrics.csv").read_text().splitlines()[0]


def test_finetune_resumes_from_the_last_checkpoint(finetuned, tiny_data, tmp_path):
    import torch

    from train.victim.__main__ import train

    last = finetuned[0] / "checkpoints" / "last.ckpt"
    steps = torch.load(last, weights_only=True)["global_step"]
    train(finetune_cfg(tiny_data, tmp_path, ["trainer.max_epochs=30", f"ckpt_path={last}"]))
    assert torch.load(tmp_path / "checkpoints" / "last.ckpt",
                      weights_only=True)["global_step"] == 2 * steps


def test_finetune_on_pairs_from_the_command_line(tiny_data, tmp_path):
    root, encoder = tiny_data
    run = subprocess.run([sys.executable, "-m", "train.victim", "experiment=victim_hf_smoke",
                          "data=snli", f"model.encoder={encoder}",
                          f"data.train_path={root / 'snli.tsv'}",
                          f"data.test_path={root / 'snli.tsv'}", "trainer.max_epochs=3",
                          f"hydra.run.dir={tmp_path}"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    victim = load_victim(f"hf:{tmp_path / 'hf'}")
    assert victim.task == "nli" and victim.labels == ("entailment", "neutral", "contradiction")
    check_scores(victim, PAIRS)
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["data"]["test"]["examples"] == 12  # the "-" pair is skipped
    assert metrics["exported"]["test_accuracy"] == pytest.approx(metrics["test"]["acc"])


def test_finetune_data_errors(tiny_data, tmp_path):
    from train.victim.texts import TextsDataModule

    root, encoder = tiny_data
    (tmp_path / "labels.csv").write_text("id,label\n100,OFF\n")
    data = TextsDataModule("tc", root / "olid.tsv", root / "test.tsv", tokenizer=str(encoder),
                           test_labels=tmp_path / "labels.csv", test_label_column="subtask_a")
    with pytest.raises(ValueError, match="id 101 has no label"):
        data.setup()
    with pytest.raises(ValueError, match="not pos"):
        TextsDataModule("pos", root / "olid.tsv", root / "test.tsv")
    data = TextsDataModule("nli", root / "snli.tsv", root / "snli.tsv", tokenizer=str(encoder),
                           labels=["entailment", "neutral"])
    with pytest.raises(ValueError, match=r"gold labels \['contradiction'\] are not in"):
        data.setup()


def test_monotone_victim_never_scores_higher_with_a_word_hidden():
    import random

    rng = random.Random(0)
    cues = {"1": ["idiot", "moron", "liar", "pathetic"], "0": ["lovely", "thanks", "great"]}
    filler = ["the", "people", "today", "really", "about", "this", "weekend", "country"]
    texts, labels = [], []
    for i in range(200):
        label = str(i % 2)
        words = rng.sample(filler, 4) + [rng.choice(cues[label])]
        rng.shuffle(words)
        texts.append(" ".join(words))
        labels.append(label)
    victim = train_victim("tc-monotone", texts, labels, task="tc")
    assert min(victim.weights) >= 0.0
    right = sum((p >= 0.5) == (y == "1") for p, y in zip(victim.predict(texts), labels))
    assert right >= 190
    for text in texts[:40]:
        words = text.split()
        score = victim.predict([text])[0]
        for i in range(len(words)):  # hidden: dropped, or garbled into an unseen word
            for hidden in (words[:i] + words[i + 1:], words[:i] + ["qxzv"] + words[i + 1:]):
                assert victim.predict([" ".join(hidden)])[0] <= score + 1e-12
    with pytest.raises(ValueError, match="one label per text"):
        train_victim("tc-monotone", ["a b"], [[0, 1]], task="tc")
