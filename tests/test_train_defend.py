"""``python -m train.defend``: the attack in the loop for the neural victims, for real on a tiny
BERT (training, attack rounds through the defended pipeline, resume, the exported folder)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="the hf extra is not installed")

from zeroe_assets.defend import load_defended  # noqa: E402
from zeroe_assets.victims import load_victim  # noqa: E402

from .conftest import compose  # noqa: E402
from .test_defend import FILLER, FRIENDLY, OFFENSIVE, _tweets  # noqa: E402
from .test_victims import tiny_bert  # noqa: E402

PROBE = ["You are a pathetic moron", "What a wonderful lovely morning", "the president is a liar",
         "thanks everyone for a great weekend"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("tdef")
    rows = _tweets(48, 1)
    train = root / "train.tsv"
    train.write_text("id\ttweet\tsubtask_a\n" + "".join(
        f"{i}\t{t}\t{y}\n" for i, (t, y) in enumerate(rows)), encoding="utf-8")
    test = root / "test.tsv"
    test.write_text("id\ttweet\tsubtask_a\n" + "".join(
        f"{i}\t{t}\t{y}\n" for i, (t, y) in enumerate(_tweets(12, 2))), encoding="utf-8")
    import transformers  # noqa: F401  (tiny_bert's words: the tweets' own)
    from . import test_victims

    words = sorted({w.lower() for w in OFFENSIVE + FRIENDLY + FILLER})
    saved, test_victims.WORDS = test_victims.WORDS, words
    try:
        bert = tiny_bert(root / "bert", ["NOT", "OFF"])
    finally:
        test_victims.WORDS = saved
    return {"train": train, "test": test, "bert": bert}


def run(files, out, *overrides):
    from train.defend import train

    return train(compose("defend", [
        "experiment=defend_smoke", f"model.encoder={files['bert']}",
        f"data.train_path={files['train']}", f"data.test_path={files['test']}",
        f"out_dir={out}",
        # on a vocabulary this small the encoding reads nearly every Zéroe perturbation back;
        # DeepWordBug's letters drawn from the whole alphabet still win examples to train on
        "defense.recipe=deepwordbug", "defense.per_round=12", *overrides]))


@pytest.fixture(scope="module")
def straight(files, tmp_path_factory):
    out = tmp_path_factory.mktemp("straight") / "run"
    return out, run(files, out)


def test_rounds_attack_the_model_and_export_a_defended_victim(straight, files):
    out, metrics = straight
    assert [r["round"] for r in metrics["rounds"]] == [1, 2] and metrics["epochs"] == 9
    assert sum(r["found"] for r in metrics["rounds"]) > 0  # the attack won some, through the defense
    for r in metrics["rounds"]:
        rows = [json.loads(line) for line in open(r["file"], encoding="utf-8")]
        assert len(rows) == r["found"] <= r["attacked"] == 12
        assert all(row["gold"] in (0, 1) and isinstance(row["input"], str) for row in rows)
    victim = load_victim(f"defended:{out / 'defended'}", task="tc")
    assert victim.name == "defended[encode+adv] hf"
    p = victim.predict(PROBE)
    assert len(p) == 4 and all(0 <= x <= 1 for x in p)
    assert victim.seen(["You are an iidot"]) == ["you are an idiot"]  # what the model sees
    meta = json.loads((out / "defended" / "defense.json").read_text())
    assert meta["victim"] == "hf" and meta["rounds"] == 2 and meta["task"] == "tc"
    assert meta["adversarial_found"] == sum(r["found"] for r in metrics["rounds"])
    assert meta["trained_on"]["rows"] == 36 + meta["adversarial_found"]  # 48 less 25% held out
    assert (out / "defended" / "vocabulary.txt").is_file()
    assert (out / "checkpoints" / "last.ckpt").is_file() and 0 <= metrics["test"]["roc_auc"] <= 1


def test_an_interrupted_run_resumes_without_attacking_again(straight, files, tmp_path,
                                                            monkeypatch):
    import train.defend as job

    out = tmp_path / "run"
    first = run(files, out, "trainer.max_epochs=6")  # stops after round 1's epochs
    assert first["stopped_early"] and [r["round"] for r in first["rounds"]] == [1]
    assert (out / "adversarial" / "round1.jsonl").is_file()
    calls = []

    def counted(*args, **kwargs):
        calls.append(args[5])  # the seed: round 2's only
        return attacked(*args, **kwargs)

    attacked = job.attacked
    monkeypatch.setattr(job, "attacked", counted)
    again = run(files, out)  # resume: the run folder's last.ckpt
    assert again["resumed_from"] == str(out / "checkpoints" / "last.ckpt")
    assert len(calls) == 1 and again["epochs"] == 9
    done, metrics = straight
    for k in (1, 2):  # the same finds, the same weights, the same predictions
        assert (out / "adversarial" / f"round{k}.jsonl").read_bytes() == \
            (done / "adversarial" / f"round{k}.jsonl").read_bytes()
    assert load_defended(out / "defended").predict(PROBE) == \
        load_defended(done / "defended").predict(PROBE)
    assert again["test"] == metrics["test"]


def test_the_shield_part_of_the_neural_job_records_its_guess_mode(files, tmp_path):
    from zeroe_assets.shield import get_shield

    out = tmp_path / "run"
    run(files, out, "defense.parts=[shield,encode]", "defense.shield_guess=true")
    meta = json.loads((out / "defended" / "defense.json").read_text())
    assert meta["parts"] == ["encode", "shield"] and meta["shield_guess"] is True
    assert meta["shield_trained"] is True
    assert load_defended(out / "defended").shield is get_shield(meta["shield"], guess=True)


def test_the_shield_added_to_a_neural_defense_queries_as_the_shield_in_front(straight,
                                                                            tmp_path):
    from zeroe_assets.defend import add_shield
    from zeroe_assets.shield import ShieldedVictim, get_shield

    trained = straight[0] / "defended"
    added = add_shield(trained, tmp_path / "added", guess=True, task="tc")
    meta = json.loads((tmp_path / "added" / "defense.json").read_text())
    assert meta["parts"] == ["encode", "shield", "adversarial"] and meta["model"] == "hf"
    assert meta["shield_trained"] is False and meta["shield_guess"] is True
    assert added.name == "defended[encode+shield+adv] hf"
    for weights in (trained / "hf").iterdir():  # linked: no second copy of the model
        assert os.path.samefile(weights, tmp_path / "added" / "hf" / weights.name)
    front = ShieldedVictim(load_defended(trained), "tc", get_shield(guess=True))
    probe = PROBE + ["You are a pathteic moorn", "thnaks everyone for a graet weekend"]
    assert added.predict(probe) == front.predict(probe)


def test_a_neural_defense_fails_like_every_victim(straight, tmp_path):
    out, _ = straight
    with pytest.raises(ValueError, match="a defense for tc, not nli"):
        load_victim(f"defended:{out / 'defended'}", task="nli")
    broken = tmp_path / "broken"
    shutil.copytree(out / "defended", broken)
    shutil.rmtree(broken / "hf")
    with pytest.raises(ValueError, match=r"cannot load the victim of .*hf: hf victim directory "
                                         "not found") as e:
        load_defended(broken)
    assert "\n" not in str(e.value)
    shutil.copytree(out / "defended" / "hf", broken / "hf")
    weights = next(broken.glob("hf/model.safetensors"))
    weights.write_bytes(b"\x00garbage")
    with pytest.raises(ValueError, match=r"cannot load the victim of .*hf") as e:
        load_defended(broken)
    assert "\n" not in str(e.value)
    (broken / "vocabulary.txt").unlink()
    shutil.rmtree(broken / "hf")
    shutil.copytree(out / "defended" / "hf", broken / "hf")
    with pytest.raises(ValueError, match="vocabulary.txt is missing"):
        load_defended(broken)
    (broken / "defense.json").write_text("{")
    with pytest.raises(ValueError, match="corrupt .*defense.json"):
        load_defended(broken)


def test_pairs_are_attacked_in_the_loop_and_load_as_an_nli_defense(files, tmp_path):
    """nli: (premise, hypothesis) pairs, both encoded; the rounds attack the hypothesis."""
    from . import test_victims

    saved, test_victims.WORDS = test_victims.WORDS, sorted(
        {w.lower() for w in OFFENSIVE + FRIENDLY + FILLER})
    try:
        bert = tiny_bert(tmp_path / "bert", ["x"], head=False)  # a bare encoder: a fresh head
    finally:
        test_victims.WORDS = saved
    rng = __import__("random").Random(3)
    rows = []
    for i in range(40):
        words = rng.sample(FILLER, 4)
        label = ["entailment", "neutral", "contradiction"][i % 3]
        cue = {"entailment": "lovely", "neutral": "today", "contradiction": "garbage"}[label]
        rows.append((label, " ".join(words), " ".join(words[:2] + [cue])))
    path = tmp_path / "snli.tsv"
    path.write_text("gold_label\tsentence1\tsentence2\n" + "".join(
        "\t".join(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    metrics = run({"bert": bert, "train": path, "test": path}, out, "data=snli",
                  "data.test_labels=null", "data.val_fraction=0.25", "data.batch_size=4",
                  "defense.rounds=1", "defense.per_round=4")
    assert [r["round"] for r in metrics["rounds"]] == [1]
    for line in (out / "adversarial" / "round1.jsonl").read_text().splitlines():
        assert len(json.loads(line)["input"]) == 2  # a pair
    victim = load_victim(f"defended:{out / 'defended'}", task="nli")
    assert set(victim.predict([r[1:] for r in rows[:6]])) <= {
        "entailment", "neutral", "contradiction"}
    with pytest.raises(ValueError, match="a defense for nli, not tc"):
        load_defended(out / "defended", "tc")


def test_a_bad_value_or_a_missing_file_is_one_line(files, tmp_path):
    # raised inside the data module Hydra builds (defense.rounds) and by the job (a missing file)
    import subprocess
    import sys

    from train import CONF

    for override, said in (("defense.rounds=-1", "defense.rounds must be >= 0"),
                           ("defense.shield_guess=true", "is a mode of the shield: add shield"),
                           (f"data.train_path={tmp_path / 'nope.tsv'}", "does not exist")):
        run = subprocess.run([sys.executable, "-m", "train.defend", "experiment=defend_smoke",
                              f"model.encoder={files['bert']}", override,
                              f"hydra.run.dir={tmp_path / 'run'}"],
                             cwd=Path(CONF).parent, capture_output=True, text=True,
                             env={k: v for k, v in os.environ.items() if k != "HYDRA_FULL_ERROR"})
        last = run.stderr.strip().splitlines()[-1]
        assert run.returncode == 2, run.stderr[-2000:]
        assert last.startswith("python -m train.defend: error: ") and said in last
        assert "Traceback" not in run.stderr and "Error executing job" not in run.stderr
