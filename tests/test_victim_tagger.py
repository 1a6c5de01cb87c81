import json
import os
import subprocess
import sys

import pytest
import torch

from tests.conftest import CONF, compose
from train.victim.__main__ import train
from train.victim.conllu import read_conllu
from zeroe_assets.victims.pos_bilstm.vocab import TaggerVocab
from zeroe_assets.victims import load_pos_bilstm as load, load_victim

# (form, UPOS) per sentence; a multiword token and an empty node must be skipped by the reader
TINY = [
    [("The", "DET"), ("cat", "NOUN"), ("sleeps", "VERB"), (".", "PUNCT")],
    [("A", "DET"), ("dog", "NOUN"), ("barks", "VERB"), ("loudly", "ADV"), ("!", "PUNCT")],
    [("She", "PRON"), ("reads", "VERB"), ("old", "ADJ"), ("books", "NOUN"), (".", "PUNCT")],
    [("We", "PRON"), ("saw", "VERB"), ("Paris", "PROPN"), ("and", "CCONJ"), ("Rome", "PROPN")],
    [("Two", "NUM"), ("birds", "NOUN"), ("sing", "VERB"), ("in", "ADP"), ("trees", "NOUN")],
    [("He", "PRON"), ("did", "AUX"), ("n't", "PART"), ("go", "VERB"), ("home", "ADV")],
    [("Why", "ADV"), ("${x}", "SYM"), ("???", "PUNCT")],  # tokens that are OmegaConf syntax
]


def conllu_text(sentences) -> str:
    blocks = []
    for n, sentence in enumerate(sentences):
        lines = [f"# sent_id = s{n}", f"# text = {' '.join(f for f, _ in sentence)}"]
        for i, (form, tag) in enumerate(sentence, 1):
            if form == "did":
                lines.append(f"{i}-{i + 1}\tdidn't\t_\t_\t_\t_\t_\t_\t_\t_")
            lines.append(f"{i}\t{form}\t{form.lower()}\t{tag}\t_\t_\t0\tdep\t_\t_")
            if form == "sleeps":
                lines.append(f"{i}.1\tis\tbe\tAUX\t_\t_\t_\t_\t0:root\t_")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + "\n"


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("ud") / "tiny.conllu"
    path.write_text(conllu_text(TINY), encoding="utf-8")
    return path


def smoke_cfg(tiny_path, out, extra=()):
    return compose("victim", ["experiment=victim_smoke", f"data.train_path={tiny_path}",
                              f"data.val_path={tiny_path}", f"data.test_path={tiny_path}",
                              f"out_dir={out}", *extra])


@pytest.fixture(scope="module")
def trained(tiny_path, tmp_path_factory):
    out = tmp_path_factory.mktemp("victim")
    return out, train(smoke_cfg(tiny_path, out))


def test_reader_skips_comments_ranges_and_empty_nodes(tiny_path):
    sentences = read_conllu(tiny_path)
    assert sentences == [([f for f, _ in s], [t for _, t in s]) for s in TINY]


def test_reader_rejects_malformed_lines(tmp_path):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tcat\tNOUN\n")
    with pytest.raises(ValueError, match=r"bad.conllu:1: expected 10"):
        read_conllu(bad)


def test_vocab_round_trip_and_specials():
    vocab = TaggerVocab.build([(["<pad>", "the", "The", "x"], ["X", "DET", "DET", "X"])],
                              min_count=2, max_chars=6)
    assert vocab.words == ("the",) and TaggerVocab.from_dict(vocab.to_dict()) == vocab
    batch = vocab.encode([["<pad>", "the"], ["abcdefghij"]])
    assert batch["words"].tolist() == [[1, 2], [1, 0]]  # "<pad>" is a rare word, not padding
    assert batch["forms"].shape == (3, 8) and batch["form_lengths"].max() == 8  # 6 chars + 2 marks
    with pytest.raises(ValueError, match="not in the tagger's tag set"):
        vocab.tag_ids(["NOUN"])


def test_smoke_training_overfits_and_exports(trained):
    out, metrics = trained
    assert metrics["test"]["acc"] == 1.0 and metrics["exported"]["test_acc"] == 1.0
    tagger = load(out / "model")
    assert tagger.predict([[f for f, _ in s] for s in TINY]) == [[t for _, t in s] for s in TINY]
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["data"]["train"]["sentences"] == len(TINY)
    assert (out / "checkpoints" / "last.ckpt").is_file()
    assert "val/acc" in (out / "logs" / "version_0" / "metrics.csv").read_text().splitlines()[0]


def test_predict_gives_one_tag_per_token_for_any_input(trained):
    tagger = load(trained[0] / "model")
    odd = [[], ["The"], ["😀", "ǅ", "\u200b", "caт", ""], ["x" * 500, "y"], ["the"] * 300]
    tags = tagger.predict(odd)
    assert [len(t) for t in tags] == [len(s) for s in odd]
    assert all(t in tagger.tags for sentence in tags for t in sentence)
    assert tagger.predict([]) == []
    # batching and order do not change a sentence's tags
    assert tagger.predict(odd[::-1]) == tags[::-1]
    with pytest.raises(TypeError, match="lists of tokens"):
        tagger.predict(["The cat sleeps ."])


def test_export_is_self_describing_and_checked(trained, tmp_path):
    model = trained[0] / "model"
    config = json.loads((model / "config.json").read_text())
    assert config["format"] == "zeroe-pos-tagger" and config["net"]["hidden"] == 32
    umask = os.umask(0)
    os.umask(umask)
    assert model.stat().st_mode & 0o777 == 0o777 & ~umask
    assert set(torch.load(model / "model.pt", weights_only=True)) >= {"out.weight", "words.weight"}
    with pytest.raises(ValueError, match="needs a model directory"):
        load(None)
    with pytest.raises(FileNotFoundError, match="not a tagger model directory"):
        load(tmp_path)
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("config.json", "vocab.json", "model.pt"):
        (copy / name).write_bytes((model / name).read_bytes())
    (copy / "vocab.json").write_text((model / "vocab.json").read_text().replace("\"DET\"", "\"XX\""))
    with pytest.raises(ValueError, match="checksum"):
        load(copy)


def test_command_line_entry_point(tiny_path, tmp_path):
    run = tmp_path / "run"
    subprocess.run([sys.executable, "-m", "train.victim", "experiment=victim_smoke",
                    f"data.train_path={tiny_path}", f"data.val_path={tiny_path}",
                    f"data.test_path={tiny_path}", "trainer.max_epochs=2",
                    "trainer.check_val_every_n_epoch=1", f"hydra.run.dir={run}"],
                   cwd=CONF.parent, check=True, capture_output=True)
    assert len(load(run / "model").predict([["A", "cat"]])[0]) == 2
    assert (run / "victim.log").is_file() and (run / "metrics.json").is_file()


def test_importing_the_factory_does_not_import_torch():
    code = ("import sys, zeroe_assets.victims, zeroe_assets.assets.victim, "
            "zeroe_assets.victims.pos_bilstm; "
            "print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_builtin_name_loads_the_bundle_with_the_trained_network(trained):
    from train.victim import module
    from zeroe_assets.victims.pos_bilstm.net import BiLSTMTagger

    tagger = load_victim("pos-bilstm", trained[0] / "model")
    assert type(tagger.net) is BiLSTMTagger is module.BiLSTMTagger  # one definition, trained here
    assert tagger.predict([[f for f, _ in TINY[0]]]) == [[t for _, t in TINY[0]]]


def test_resume_from_last_checkpoint(tiny_path, tmp_path):
    last = tmp_path / "checkpoints" / "last.ckpt"
    first = train(smoke_cfg(tiny_path, tmp_path, ["trainer.max_epochs=20"]))
    steps = torch.load(last, weights_only=True)["global_step"]
    assert first["epoch"] == 19 and steps > 0
    resumed = train(smoke_cfg(tiny_path, tmp_path, ["trainer.max_epochs=40", f"ckpt_path={last}"]))
    assert torch.load(last, weights_only=True)["global_step"] == 2 * steps
    assert resumed["test"]["acc"] == 1.0
    # the first run's metrics survive the resumed run, which logs beside them
    assert (tmp_path / "logs" / "version_0" / "metrics.csv").read_text().count("\n") > 2
    assert (tmp_path / "logs" / "version_1" / "metrics.csv").is_file()


@pytest.mark.parametrize("key,value", [("batch_size", -4), ("batch_size", 0), ("bucket", 0),
                                       ("eval_batch_size", 0)])
def test_non_positive_sizes_name_their_key(tiny_path, key, value):
    from train.victim.datamodule import TaggerDataModule

    with pytest.raises(ValueError, match=f"data.{key} must be an integer at least 1, got {value}"):
        TaggerDataModule(tiny_path, tiny_path, tiny_path, **{key: value})


@pytest.mark.slow
def test_ddp_on_two_cpu_processes_tests_and_exports_once(tiny_path, tmp_path):
    # ``python -m``: Lightning starts rank 1 by running the command line again
    run = subprocess.run([sys.executable, "-m", "train.victim", "experiment=victim_smoke",
                          f"data.train_path={tiny_path}", f"data.val_path={tiny_path}",
                          f"data.test_path={tiny_path}", "trainer=ddp", "trainer.accelerator=cpu",
                          "trainer.devices=2", f"hydra.run.dir={tmp_path}"],
                         cwd=CONF.parent, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.count("exported the tagger") == 1
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["exported"]["test_acc"] == metrics["test"]["acc"] > 0.5
    assert (tmp_path / "logs" / "version_0" / "metrics.csv").is_file()
