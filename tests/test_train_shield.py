"""``python -m train.shield``: rows from the toolkit's own perturbations, the ranker's fit, the
threshold under the clean-token bound, the export the runtime loads; on sentences written here."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

import train.shield.data as shield_data
from tests.conftest import CONF, DATA, compose, needs_data
from train.shield.__main__ import train
from train.shield.data import CLEAN, plan, read_sentences
from train.shield.families import FAMILIES
from train.shield.module import RankerModule
from train.shield.threshold import applied, pick_threshold
from zeroe_assets.assets.store import read_manifest
from zeroe_assets.shield import Shield, get_shield
from zeroe_assets.shield.features import FEATURES
from zeroe_assets.shield.ranker import load_ranker
from zeroe_assets.spec import available_names

SENTENCES = [
    "The old man walked slowly along the river to the market.",
    "She bought fresh bread and milk for the children this morning.",
    "We should finish the report before the meeting on Friday.",
    "His brother plays the guitar in a small band downtown.",
    "It was raining all night, so the streets were still wet.",
    "Please send me the pictures from your holiday in Spain.",
    "A young woman is reading a book under a large tree.",
    "Two dogs are running across the green field together.",
    "The teacher asked the students to open their books.",
    "They could not find a good place to park the car.",
    "Nobody knows why the light in the kitchen keeps turning off.",
    "I think this is the best pizza I have ever eaten.",
]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """The three training sources in the benchmark's layout, a handful of sentences each."""
    root = tmp_path_factory.mktemp("data")
    ewt, snli, olid = (root / "bench" / d for d in ("ud_ewt", "snli", "olid"))
    for folder in (ewt, snli, olid):
        folder.mkdir(parents=True)
    (ewt / "en_ewt-ud-train.conllu").write_text("".join(
        f"# sent_id = s{i}\n# text = {s}\n1\t{s.split()[0]}\t_\tX\t_\t_\t0\troot\t_\t_\n\n"
        for i, s in enumerate(SENTENCES[:4])), encoding="utf-8")
    (snli / "snli_dev.tsv").write_text("gold_label\tsentence1\tsentence2\n" + "".join(
        f"neutral\t{a}\t{b}\n" for a, b in zip(SENTENCES[4:8], SENTENCES[5:9])), encoding="utf-8")
    (olid / "olid-training-v1.0.tsv").write_text("id\ttweet\tsubtask_a\n" + "".join(
        f"{i}\t@USER {s}\tNOT\n" for i, s in enumerate(SENTENCES[8:])), encoding="utf-8")
    return root


def smoke_cfg(data_dir, out, extra=()):
    return compose("shield", ["experiment=shield_smoke", f"paths.data_dir={data_dir}",
                              f"out_dir={out}", *extra])


@pytest.fixture(scope="module")
def trained(data_dir, tmp_path_factory):
    """One smoke run, exported into its own artifact root."""
    base = tmp_path_factory.mktemp("shield")
    cfg = smoke_cfg(data_dir, base / "run", ["export_after=true", "export_to=artifacts",
                                            f"paths.artifacts_dir={base / 'artifacts'}"])
    return base, train(cfg)


def test_rows_cover_every_source_and_are_consistent(trained):
    base, metrics = trained
    summary = metrics["data"]
    assert {k: v["drawn"] for k, v in summary["sources"].items()} == {
        "ud_ewt": 4, "snli": 5, "olid": 4}  # SNLI: the distinct sentences of both columns
    with np.load(base / "run" / "rows.npz", allow_pickle=False) as rows:
        sizes = np.diff(rows["offsets"])
        assert rows["rows"].shape == (rows["offsets"][-1], len(FEATURES))
        assert (rows["rows"][rows["offsets"][:-1], FEATURES.index("keep")] == 1).all()
        assert ((rows["gold"] >= 0) & (rows["gold"] < sizes)).all()
        assert len(rows["val_examples"]) == summary["examples"] == 13
    assert 0 < summary["perturbed_tokens"] < summary["tokens"]
    assert summary["val_tokens"] + summary["train_tokens"] <= summary["tokens"]


def test_threshold_keeps_clean_tokens_and_the_export_decides_alike(trained, monkeypatch):
    base, metrics = trained
    val = metrics["val"]
    assert val["clean_bound_met"] and val["clean_changed"] <= 0.005
    assert set(val["by_attack"]) <= {*available_names(), *FAMILIES, CLEAN, "chain of two"}
    with monkeypatch.context() as env:  # the run's root only: the restorers read the shipped one
        env.setenv("ZEROE_ARTIFACTS", str(base / "artifacts"))
        ranker, meta = load_ranker(), read_manifest()["components"]["shield"]["meta"]
    assert ranker.learned and ranker.threshold == val["threshold"]
    assert np.allclose(ranker.weights, list(metrics["weights"].values()), atol=1e-4)
    assert meta["data"]["rows_key"] == metrics["data"]["rows_key"]
    assert meta["config"]["data"]["sentences"] == 12 and "torch" in meta["libraries"]
    assert meta["val"] == val
    shield = Shield(ranker=ranker)
    assert shield.learned and "learned ranker" in shield.describe()
    assert shield.restore(SENTENCES[0]) == SENTENCES[0]


def test_rerun_reads_the_cache_and_other_settings_rebuild_it(trained, data_dir, monkeypatch):
    base, _ = trained

    def rebuilt(*args):
        raise AssertionError("rows rebuilt")

    monkeypatch.setattr(shield_data, "build_rows", rebuilt)
    again = train(smoke_cfg(data_dir, base / "run", ["trainer.max_epochs=1"]))
    assert again["data"]["rows_key"] == trained[1]["data"]["rows_key"]
    with pytest.raises(AssertionError, match="rows rebuilt"):
        train(smoke_cfg(data_dir, base / "run", ["data.clean_share=0.5"]))


def test_exclude_leaves_an_attack_out_of_the_fit_only(trained, data_dir, tmp_path):
    """Leave-one-family-out on the same rows: the excluded attack's tokens (chains with it
    included) are not fit on but still held out and reported; an unknown name is an error."""
    out = tmp_path / "run"
    out.mkdir()
    shutil.copy(trained[0] / "run" / "rows.npz", out)
    data = compose("shield", ["experiment=shield_smoke", f"paths.data_dir={data_dir}",
                              f"out_dir={out}"]).data
    from hydra.utils import instantiate

    full = instantiate(data, seed=1234, _convert_="all")
    full.setup()
    names = full.arrays["attack_names"]
    attack = next(n for n in names if n != CLEAN and "+" not in n
                  and (np.array([names[a] for a in full.arrays["attack"][full.ids["train"]]])
                       == n).any())
    left = instantiate(data, seed=1234, exclude=[attack], _convert_="all")
    left.setup()
    trained_on = {names[a] for a in left.arrays["attack"][left.ids["train"]]}
    assert not any(attack in n.split("+") for n in trained_on)
    assert np.array_equal(left.ids["val"], full.ids["val"])
    assert set(full.ids["train"]) > set(left.ids["train"])
    with pytest.raises(ValueError, match="no rows of nope"):
        instantiate(data, seed=1234, exclude=["nope"], _convert_="all").setup()


def test_resume_from_last_checkpoint(trained, data_dir, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    shutil.copy(trained[0] / "run" / "rows.npz", out)  # the same rows: read, not rebuilt
    train(smoke_cfg(data_dir, out, ["trainer.max_epochs=2"]))
    last = out / "checkpoints" / "last.ckpt"
    before = torch.load(last, weights_only=True)
    train(smoke_cfg(data_dir, out, ["trainer.max_epochs=4", f"ckpt_path={last}"]))
    after = torch.load(last, weights_only=True)
    assert after["epoch"] == before["epoch"] + 2
    assert after["global_step"] == 2 * before["global_step"] > 0
    assert not np.array_equal(after["state_dict"]["linear.weight"],
                              before["state_dict"]["linear.weight"])


def test_command_line_export_only(trained, data_dir, tmp_path):
    base, metrics = trained
    run = subprocess.run([sys.executable, "-m", "train.shield", "experiment=shield_smoke",
                          f"paths.data_dir={data_dir}", f"hydra.run.dir={base / 'run'}",
                          "export_only=true", f"ckpt_path={metrics['checkpoint']}",
                          "export_after=true", f"paths.artifacts_dir={tmp_path}"],
                         cwd=CONF.parent, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    printed = json.loads(run.stdout.strip().splitlines()[-1])
    assert printed["val"]["threshold"] == metrics["val"]["threshold"]
    # into the run folder; the shipped assets (paths.artifacts_dir) are left alone
    assert load_ranker(base / "run" / "artifacts").threshold == metrics["val"]["threshold"]
    assert not any(tmp_path.iterdir())
    assert (base / "run" / "shield.log").is_file()


def test_plan_draws_from_the_index_alone():
    names = available_names()
    sentences = [f"sentence {i}" for i in range(3000)]
    examples = plan(sentences, names, [0.1, 0.5], ["paper", "reference"], clean_share=0.15,
                    chain_share=0.1, val_share=0.1, seed=7)
    assert plan(sentences[:50], names, [0.1, 0.5], ["paper", "reference"], 0.15, 0.1, 0.1,
                7) == examples[:50]
    assert plan(sentences[:50], names, [0.1, 0.5], ["paper", "reference"], 0.15, 0.1, 0.1,
                8) != examples[:50]
    kinds = [0 if e.spec == CLEAN else len(e.spec.split("+")) for e in examples]
    assert abs(kinds.count(0) / 3000 - 0.15) < 0.03 and abs(kinds.count(2) / 3000 - 0.1) < 0.03
    assert abs(sum(e.val for e in examples) / 3000 - 0.1) < 0.03
    chains = [e.attack.split("+") for e in examples if "+" in e.spec]
    assert all(a != b for a, b in chains)
    singles = {e.attack for e in examples if e.spec != CLEAN and "+" not in e.spec}
    assert singles == set(names) and {e.protocol for e in examples} == {"paper", "reference"}
    assert {e.spec.split(":")[1] for e in examples if e.spec != CLEAN and "+" not in e.spec} == {
        "0.1", "0.5"}


def brute_force(best, prob, gold, bound):
    """The threshold pick_threshold should find, by trying every one."""
    clean = gold == 0
    found = None
    for t in sorted({1.0, *prob[best != 0].tolist()}, reverse=True):
        out = applied(best, prob, t)
        if (out[clean] != 0).sum() <= bound * clean.sum():
            right = (out == gold).sum()
            if found is None or right > found[1]:
                found = (t, right)
    return found


@pytest.mark.parametrize("seed", range(20))
def test_pick_threshold_is_the_best_one_under_the_bound(seed):
    rng = np.random.default_rng(seed)
    n = 300
    gold = np.where(rng.random(n) < 0.7, 0, rng.integers(1, 4, n))
    best = np.where(rng.random(n) < 0.6, gold, rng.integers(0, 4, n))
    prob = np.round(rng.random(n), 2)  # ties on purpose
    prob[rng.random(n) < 0.05] = 1.0
    for bound in (0.0, 0.005, 0.05, 0.3):
        threshold, met = pick_threshold(best, prob, gold, bound)
        expected = brute_force(best, prob, gold, bound)
        if expected is None:
            assert not met and threshold == prob[best != 0].max()
            continue
        assert met and threshold == expected[0]


def test_bad_settings_are_clear_errors(data_dir, tmp_path):
    from hydra.utils import instantiate

    for override, message in [("data.val_share=0", "val_share"),
                              ("data.attackers=[nope]", "unknown perturber"),
                              ("data.protocols=[other]", "data.protocols"),
                              ("data.sentences=0", "data.sentences"),
                              ("data.chain_share=0.9", "at most 1")]:
        with pytest.raises(ValueError, match=message):
            instantiate(smoke_cfg(data_dir, tmp_path, [override]).data, _partial_=True)(seed=0)
    missing = instantiate(smoke_cfg(tmp_path / "none", tmp_path).data, seed=0)
    with pytest.raises(FileNotFoundError, match="ZEROE_DATA"):
        missing.setup()
    with pytest.raises(ValueError, match="no val tokens"):
        train(smoke_cfg(data_dir, tmp_path, ["data.val_share=0.001"]))
    with pytest.raises(ValueError, match="ckpt_path"):
        train(smoke_cfg(data_dir, tmp_path, ["export_only=true"]))
    with pytest.raises(ValueError, match="train a new one"):
        RankerModule(features=["keep"], optimizer=None)


@needs_data("bench/snli/snli_dev.tsv")
def test_reads_the_benchmark_training_splits():
    bench = DATA / "bench"
    counts = {name: len(read_sentences(bench / path, fields)) for name, path, fields in [
        ("ud_ewt", "ud_ewt/en_ewt-ud-train.conllu", None),
        ("snli", "snli/snli_dev.tsv", ["sentence1", "sentence2"]),
        ("olid", "olid/olid-training-v1.0.tsv", ["tweet"])]}
    assert all(n > 5000 for n in counts.values()), counts


def test_rows_of_tokenized_text_with_lone_clitics():
    """SNLI and EWT split clitics off ("does n't", "man 's"): their stems are empty."""
    text = "It does n't look like the man 's hat ."
    rows = get_shield(learned=False).training_rows(text, text)
    assert rows and all(gold == 0 for _, gold, _ in rows)
