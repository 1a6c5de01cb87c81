"""``python -m train.shield [experiment=NAME] [key=value ...]``: learn how the shield ranks its
candidates, pick its threshold and export it (``shield/ranker.json``; ``train.publish`` says where).

Builds (or reads from the run folder's ``rows.npz``) the candidate rows of perturbed training
sentences, fits the ranker (best checkpoint by ``val/loss`` plus ``last.ckpt``; resume with
``ckpt_path=``), picks the threshold on the held-out rows so that at most ``max_clean_changed``
of the clean tokens change, reports the figures next to the hand-set ranker's, exports, and reads
the export back as the runtime will. ``export_only=true ckpt_path=...`` skips the fit.
"""
from __future__ import annotations

import json
import time

import hydra
import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from train import CONF, one_line_errors
from train.checks import load_module
from train.distributed import best_checkpoint, fit_trainer
from train.publish import Destination
from zeroe_assets.assets.store import library_versions
from zeroe_assets.shield.features import FEATURES
from zeroe_assets.shield.ranker import (COMPONENT, Ranker, hand_set_ranker, load_ranker,
                                        write_ranker)

from .module import RankerModule
from .threshold import decide, figures, pick_threshold


def evaluate(ranker: Ranker, data, max_clean_changed: float | None) -> dict:
    """``ranker``'s figures on the held-out tokens, at a threshold picked for them (``None``:
    at its own)."""
    tokens = data.tokens("val")
    best, prob = decide(ranker, data.arrays["rows"], data.arrays["offsets"], tokens["ids"])
    threshold, met = ranker.threshold, None
    if max_clean_changed is not None:
        threshold, met = pick_threshold(best, prob, tokens["gold"], max_clean_changed)
    return {**figures(best, prob, threshold, tokens),
            **({} if met is None else {"clean_bound_met": met})}


def train(cfg: DictConfig) -> dict:
    """Fit (unless ``export_only``), pick the threshold, export; returns the metrics (also in
    ``metrics.json``; empty on DDP ranks other than 0)."""
    if cfg.export_only and not cfg.ckpt_path:
        raise ValueError("export_only=true needs ckpt_path=PATH to a checkpoint")
    dest = Destination.of(cfg) if cfg.export_after else None
    torch.set_num_threads(cfg.threads)
    pl.seed_everything(cfg.seed, workers=True)
    data = instantiate(cfg.data, seed=cfg.seed, _convert_="all")
    data.setup()
    started, cpu_started = time.perf_counter(), time.process_time()
    if cfg.export_only:
        chosen = cfg.ckpt_path
    else:
        module = instantiate(cfg.model, features=list(FEATURES), _convert_="all")
        trainer, callbacks = fit_trainer(cfg)
        trainer.fit(module, data, ckpt_path=cfg.ckpt_path)
        if not trainer.is_global_zero:
            return {}
        chosen = best_checkpoint(callbacks)
    fit_seconds, fit_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    module, state = load_module(chosen, RankerModule,
                                "a shield ranker checkpoint (written by train.shield)",
                                optimizer=None)
    val = evaluate(Ranker(module.weights()), data, cfg.max_clean_changed)
    metrics = {"checkpoint": str(chosen), "epoch": state.get("epoch"),
               "global_step": state.get("global_step"), "fit_seconds": round(fit_seconds, 1),
               "fit_cpu_seconds": round(fit_cpu, 1), "val": val,
               "hand_set_val": evaluate(hand_set_ranker(), data, None),
               "weights": dict(zip(FEATURES, module.weights().round(4).tolist())),
               "data": data.summary()}
    if cfg.export_after:
        meta = {**{k: v for k, v in metrics.items() if k != "weights"},
                "config": OmegaConf.to_container(cfg, resolve=True),
                "libraries": library_versions("torch", "pytorch-lightning")}
        root = dest.admit(COMPONENT, meta)
        write_ranker(module.weights(), val["threshold"], meta, root)
        exported = load_ranker(root)
        again = evaluate(exported, data, None)
        if again != {k: v for k, v in val.items() if k != "clean_bound_met"}:
            raise RuntimeError("the exported ranker does not decide as the trained one did")
        metrics["exported"] = {"root": str(root), "threshold": exported.threshold}
    with open(f"{cfg.out_dir}/metrics.json", "w") as f:
        json.dump(metrics, f, indent=1)
    return metrics


@hydra.main(version_base="1.3", config_path=CONF, config_name="shield")
@one_line_errors
def main(cfg: DictConfig) -> None:
    metrics = train(cfg)
    if metrics:
        keys = ("threshold", "accuracy", "perturbed_accuracy", "clean_changed")
        print(json.dumps({"val": {k: metrics["val"][k] for k in keys},
                          "hand_set_val": {k: metrics["hand_set_val"][k] for k in keys}}))


if __name__ == "__main__":
    main()
