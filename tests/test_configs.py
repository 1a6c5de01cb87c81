"""Every job config composes with every trainer and each experiment that applies to it, and
what it names (data modules, models, callbacks, loggers, trainers) instantiates, without
training. The smoke tests of each pipeline run the entry points themselves."""
from __future__ import annotations

from pathlib import Path

import pytest
import pytorch_lightning as pl
from hydra.utils import instantiate
from omegaconf import OmegaConf

from tests.conftest import CONF, compose
from train.phonetic.lexicon import read_phones_tsv
from zeroe_assets.shield.features import FEATURES
from zeroe_assets.spec import available_names
from zeroe_assets.victims.pos_bilstm.vocab import TaggerVocab

JOBS = sorted(p.stem for p in CONF.glob("*.yaml"))
TRAINERS = sorted(p.stem for p in (CONF / "trainer").glob("*.yaml"))
LEXICONS = sorted(p.stem for p in (CONF / "lexicon").glob("*.yaml"))
EXPORTS = sorted(p.stem for p in (CONF / "export").glob("*.yaml"))
# the experiments of each training job, by name prefix (export has none)
EXPERIMENTS = {job: sorted(p.stem for p in (CONF / "experiment").glob(f"{prefix}_*.yaml"))
               for job, prefix in {"vaegan": "visual", "seq2seq": "seq2seq",
                                   "phonetic": "phonetic", "victim": "victim",
                                   "shield": "shield", "defend": "defend"}.items()}
EXPORTED = {"vaegan": "visual", "phonetic": "phonetic"}  # jobs that export when they end
# on a CPU-only machine: the settings of a GPU trainer, on the CPU (and two processes for DDP)
ON_CPU = {"cpu": [], "gpu": ["trainer.accelerator=cpu"],
          "ddp": ["trainer.accelerator=cpu", "trainer.devices=2"]}


def test_every_config_and_experiment_is_covered():
    assert set(JOBS) == {*EXPERIMENTS, "export"}
    assert sorted(e for names in EXPERIMENTS.values() for e in names) == sorted(
        p.stem for p in (CONF / "experiment").glob("*.yaml"))
    assert set(TRAINERS) == set(ON_CPU)


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory):
    """216 made-up words, enough that the default split ratios leave no split empty."""
    path = tmp_path_factory.mktemp("lexicon") / "tiny.tsv"
    words = [a + b + c for a in "abcdef" for b in "aeiouy" for c in "klmnpr"]
    path.write_text("".join(f"{w}\t{' '.join(w.upper())}\n" for w in words))
    return read_phones_tsv(path)


def fit_objects(cfg) -> pl.Trainer:
    """The job's callbacks, logger and Trainer, as ``train.distributed.fit_trainer`` builds them."""
    from train.distributed import fit_trainer

    trainer, callbacks = fit_trainer(cfg)
    assert list(callbacks) == [k for k, v in cfg.callbacks.items() if v is not None]
    assert isinstance(trainer.logger, pl.loggers.CSVLogger)
    assert Path(trainer.logger.save_dir) == Path(cfg.out_dir)
    return trainer


def job_objects(job: str, cfg, lexicon) -> None:
    """The data module and model each job builds from its config (vocabularies from tiny data)."""
    if job in ("seq2seq", "phonetic"):
        assert callable(instantiate(cfg.lexicon.reader, _partial_=True))
    if job == "vaegan":
        data, model = instantiate(cfg.data), instantiate(cfg.model)
        assert model.hparams.latent == cfg.model.latent and data.spec.size == cfg.data.glyphs.size
    elif job == "seq2seq":
        data = instantiate(cfg.data, _partial_=True)(lexicon=lexicon, direction=cfg.direction,
                                                     seed=cfg.seed)
        instantiate(cfg.model, src_vocab=list(data.src_vocab.symbols),
                    tgt_vocab=list(data.tgt_vocab.symbols), direction=cfg.direction,
                    _convert_="all")
    elif job == "phonetic":
        instantiate(cfg.data, _partial_=True)(lexicon=lexicon, seed=cfg.seed)  # pairs: on prepare()
        model = instantiate(cfg.model, vocab=list("abc"), class_counts=[1, 2, 3, 4],
                            _convert_="all")
        assert callable(model.optimizer)
    elif job == "defend":  # the fine-tune behind a defense, with the attack in the loop
        data = instantiate(cfg.data, seed=cfg.seed, defense=dict(cfg.defense),
                           run_dir=cfg.out_dir)
        assert data.rounds == cfg.defense.rounds and data.parts == ["encode", "adversarial"]
        assert data.tokenizer_dir == cfg.model.encoder
        assert callable(instantiate(cfg.model, _partial_=True, _convert_="all"))
    elif job == "victim" and cfg.model._target_.endswith("ClassifierModule"):
        # the fine-tune: the data module reads and tokenizes on setup(), the model loads its
        # encoder when built (tests/test_victim_minilm.py builds and fine-tunes it)
        data = instantiate(cfg.data, seed=cfg.seed)
        assert data.task.name in ("tc", "nli") and data.tokenizer_dir == cfg.model.encoder
        assert callable(instantiate(cfg.model, _partial_=True, _convert_="all"))
    elif job == "shield":  # the rows are built on setup()
        data = instantiate(cfg.data, seed=cfg.seed, _convert_="all")
        assert data.cache.parent == Path(cfg.out_dir) and data.attackers == available_names()
        instantiate(cfg.model, features=list(FEATURES), _convert_="all")
    elif job == "victim":
        instantiate(cfg.data, seed=cfg.seed)
        vocab = TaggerVocab.build([(["The", "cat"], ["DET", "NOUN"])], min_count=1)
        instantiate(cfg.model, _partial_=True, _convert_="all")(vocab=vocab.to_dict())


@pytest.mark.parametrize("trainer", TRAINERS)
@pytest.mark.parametrize("job,experiment", [(job, e) for job, names in EXPERIMENTS.items()
                                            for e in [None, *names]])
def test_training_jobs_instantiate(job, experiment, trainer, lexicon, tmp_path):
    overrides = [f"trainer={trainer}", *ON_CPU[trainer], f"out_dir={tmp_path}"]
    cfg = compose(job, overrides + ([f"experiment={experiment}"] if experiment else []))
    trainer_ = fit_objects(cfg)
    assert trainer_.world_size == (2 if trainer == "ddp" else 1)
    job_objects(job, cfg, lexicon)
    if job in EXPORTED:  # the export after training: its settings pass the pipeline's checks
        check_export(EXPORTED[job], cfg.export)


def check_export(pipeline: str, export_cfg) -> None:
    from train.phonetic.export import check_export as phonetic
    from train.visual.export import check_export as visual

    {"visual": visual, "phonetic": phonetic}[pipeline](export_cfg)


@pytest.mark.parametrize("lexicon_name", LEXICONS)
@pytest.mark.parametrize("job", ["seq2seq", "phonetic"])
def test_every_lexicon_composes(job, lexicon_name, tmp_path):
    cfg = compose(job, [f"lexicon={lexicon_name}", f"out_dir={tmp_path}"])
    reader = cfg.lexicon.reader
    assert callable(instantiate(reader, _partial_=True))
    if lexicon_name == "phones_tsv":
        assert OmegaConf.is_missing(reader, "path")
    elif "path" in reader:  # a dataset: found through paths.data_dir
        assert reader.path.startswith(f"{cfg.paths.data_dir}/")


@pytest.mark.parametrize("pipeline", EXPORTS)
@pytest.mark.parametrize("lexicon_name", LEXICONS)
def test_export_picks_its_pipeline_from_the_defaults_list(pipeline, lexicon_name):
    from train.export import PIPELINES

    # pipeline reads Hydra's choice of the export group, which compose() leaves unset
    cfg = compose("export", [f"export={pipeline}", f"lexicon={lexicon_name}", "ckpt=x.ckpt",
                             f"pipeline={pipeline}"])
    assert cfg.pipeline in PIPELINES and cfg.export_to == "run" and not cfg.export_force
    check_export(pipeline, cfg.export)
    assert OmegaConf.is_missing(compose("export", ["pipeline=visual"]), "ckpt")


def test_data_paths_come_from_paths_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("ZEROE_DATA", str(tmp_path))
    cfg = compose("victim", ["out_dir=x"])
    assert cfg.paths.data_dir == str(tmp_path)
    assert {Path(cfg.data[f"{s}_path"]).parent for s in ("train", "val", "test")} == {
        tmp_path / "bench" / "ud_ewt"}
    sources = compose("shield", ["out_dir=x"]).data.sources.values()
    assert {Path(s.path).name for s in sources} == {  # the training splits only
        "en_ewt-ud-train.conllu", "snli_dev.tsv", "olid-training-v1.0.tsv"}
    assert all(s.path.startswith(f"{tmp_path}/bench/") for s in sources)
    combilex = compose("seq2seq", ["lexicon=combilex", "out_dir=x"]).lexicon.reader.path
    assert combilex == f"{tmp_path}/combilex/combilex_en_ph.tsv"
    monkeypatch.delenv("ZEROE_DATA")
    assert compose("victim", ["out_dir=x"]).paths.data_dir == "data"


def test_ddp_keeps_unused_parameters_only_for_the_vaegan(tmp_path):
    """Each of the VAE-GAN's three optimisers' steps leaves the other nets without gradients; the
    other jobs keep plain DDP, which does not search the graph for unused parameters every step."""
    from train.distributed import fit_trainer
    from train.vaegan import vaegan_trainer

    ddp = ["trainer=ddp", *ON_CPU["ddp"], f"out_dir={tmp_path}"]
    trainer, _ = vaegan_trainer(compose("vaegan", ddp))
    assert trainer.strategy._ddp_kwargs.get("find_unused_parameters") is True
    other, _ = fit_trainer(compose("seq2seq", ddp))
    assert not other.strategy._ddp_kwargs.get("find_unused_parameters")
