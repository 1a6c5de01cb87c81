"""``python -m train.seq2seq direction=g2p|p2g lexicon=cmudict|combilex [overrides]``

Trains one direction, tests the best checkpoint (by ``val/wer``) on the held-out split, writes
``metrics.json`` next to the checkpoints and exports the model to ``artifacts/phonetic/seq2seq``.
``ckpt_path=.../last.ckpt`` resumes; ``export_only=true ckpt_path=...`` re-tests and re-exports.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import hydra
import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from pytorch_lightning.callbacks import EMAWeightAveraging, LearningRateMonitor, ModelCheckpoint
from pytorch_lightning.loggers import CSVLogger

from train.phonetic.lexicon import filter_lexicon
from train.phonetic.seq2seq import export_model


def train(cfg: DictConfig) -> dict:
    """Fit (unless ``export_only``), test the best checkpoint, export; returns the metrics."""
    torch.set_num_threads(cfg.threads)
    pl.seed_everything(cfg.seed, workers=True)
    out = Path(cfg.out_dir)
    lexicon = filter_lexicon(instantiate(cfg.lexicon.reader), **cfg.lexicon.filter)
    # a partial: instantiate would turn the Lexicon dataclass into a config node
    data = instantiate(cfg.data, _partial_=True)(lexicon=lexicon, direction=cfg.direction,
                                                 seed=cfg.seed)
    data.setup()
    module = instantiate(cfg.model, src_vocab=list(data.src_vocab.symbols),
                         tgt_vocab=list(data.tgt_vocab.symbols), direction=cfg.direction,
                         silent=sorted(lexicon.silent), _convert_="all")
    checkpoint = ModelCheckpoint(dirpath=out / "checkpoints", filename="best-epoch{epoch:03d}",
                                 monitor="val/wer", mode="min", auto_insert_metric_name=False)
    # Lightning's save_last only refreshes last.ckpt when val/wer improves; resume needs every epoch
    last = ModelCheckpoint(dirpath=out / "checkpoints", filename="last", enable_version_counter=False)
    callbacks = [checkpoint, last, LearningRateMonitor("step")]
    if cfg.ema_decay:
        # checkpoints then hold the averaged weights (the raw ones ride along for resuming); the
        # average starts after the warm-up, so that it does not carry the random initialisation
        callbacks.append(EMAWeightAveraging(decay=cfg.ema_decay,
                                            update_starting_at_step=cfg.model.warmup_steps))
    trainer = instantiate(cfg.trainer, default_root_dir=str(out), callbacks=callbacks,
                          logger=CSVLogger(str(out), name="", version="logs"))
    started = time.time()
    if cfg.export_only:
        if not cfg.ckpt_path:
            raise ValueError("export_only=true needs ckpt_path=PATH to a checkpoint")
        best = cfg.ckpt_path
    else:
        trainer.fit(module, data, ckpt_path=cfg.ckpt_path)
        best = checkpoint.best_model_path or last.best_model_path
    fit_seconds = time.time() - started
    state = torch.load(best, map_location="cpu", weights_only=True)
    module.load_state_dict(state["state_dict"])
    tested = trainer.test(module, data, verbose=False)[0]
    metrics = {
        "direction": cfg.direction, "lexicon": lexicon.source, "lexicon_sha256": lexicon.fingerprint(),
        "stress": lexicon.stress, "checkpoint": str(best), "epoch": state.get("epoch"),
        "global_step": state.get("global_step"), "threads": cfg.threads,
        "fit_seconds": None if cfg.export_only else round(fit_seconds, 1),
        "test": {k.split("/", 1)[1]: round(float(v), 5) for k, v in tested.items()},
        "split": data.summary(),
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    if cfg.export_artifacts:
        info = {**metrics, "config": OmegaConf.to_container(cfg, resolve=True)}
        path = export_model(module.transliterator({"lexicon": cfg.lexicon.name}), info,
                            cfg.artifacts_root)
        print(f"exported {cfg.direction} to {path}")
    return metrics


@hydra.main(version_base="1.3", config_path="../conf", config_name="seq2seq")
def main(cfg: DictConfig) -> None:
    print(json.dumps(train(cfg)["test"]))


if __name__ == "__main__":
    main()
