"""Trainers that work the same on one device and under DDP (``trainer=ddp``).

Every DDP rank runs the whole entry point. After the fit, ranks other than 0 stop, and rank 0
tests with a one-process Trainer: with the fit's Trainer each rank would test only its own share
of the split, and each would write the results.
"""
from __future__ import annotations

import pytorch_lightning as pl
from hydra.utils import instantiate
from omegaconf import DictConfig


def fit_trainer(cfg: DictConfig, **settings) -> tuple[pl.Trainer, dict[str, pl.Callback]]:
    """The fit's Trainer, with the job's ``callbacks`` and ``logger`` from its config, writing
    into ``out_dir``; also the callbacks by config name (``callbacks.NAME=null`` drops one)."""
    callbacks = {name: instantiate(c) for name, c in cfg.callbacks.items() if c is not None}
    trainer = instantiate(cfg.trainer, default_root_dir=str(cfg.out_dir),
                          callbacks=list(callbacks.values()),
                          logger=instantiate(cfg.logger) if cfg.logger else False, **settings)
    return trainer, callbacks


def bucket_trainer(cfg: DictConfig) -> tuple[pl.Trainer, dict[str, pl.Callback]]:
    """``fit_trainer`` for a job batched by ``train.batching.BucketBatchSampler``, which shares
    its batches out over DDP ranks itself (so no distributed sampler)."""
    return fit_trainer(cfg, use_distributed_sampler=False)


def best_checkpoint(callbacks: dict[str, pl.Callback]) -> str:
    """The best checkpoint a fit wrote (the last one where nothing was monitored)."""
    chosen = callbacks["best"].best_model_path or callbacks["last"].best_model_path
    if not chosen:
        raise RuntimeError("training wrote no checkpoint: validation never ran (is "
                           "trainer.check_val_every_n_epoch larger than trainer.max_epochs?)")
    return chosen


def one_device_trainer(trainer_cfg: DictConfig) -> pl.Trainer:
    """A Trainer with the run's settings on one device, for testing; it logs and saves nothing
    (the scores go to the run's ``metrics.json``)."""
    return instantiate(trainer_cfg, devices=1, strategy="auto", logger=False,
                       enable_checkpointing=False)
