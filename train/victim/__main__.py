"""``python -m train.victim [experiment=NAME] [data.train_path=FILE] [key=value ...]``: the
neural victims.

By default trains the character-aware BiLSTM tagger on UD English-EWT (or on a perturbed CoNLL-U
file for adversarial training) and exports it to ``model_dir`` for the ``pos-bilstm`` victim;
``experiment=victim_minilm_olid`` / ``victim_minilm_snli`` fine-tune MiniLM into an ``hf:``
directory instead. Either way: the best checkpoint by ``val/acc`` plus ``last.ckpt`` (resume
with ``ckpt_path=``), the best one tested, exported, and reloaded as the benchmark will.
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
from train.distributed import best_checkpoint, bucket_trainer, one_device_trainer
from zeroe_assets.assets.store import library_versions


def train(cfg: DictConfig) -> dict:
    """Fit, test the best checkpoint, export it; returns the metrics (also in ``metrics.json``;
    empty on DDP ranks other than 0, which stop after the fit)."""
    torch.set_num_threads(cfg.threads)
    pl.seed_everything(cfg.seed, workers=True)
    data = instantiate(cfg.data, seed=cfg.seed)
    data.setup()
    # a partial: instantiate would read vocabulary entries such as "???" or "${x}" as OmegaConf syntax
    module = instantiate(cfg.model, _partial_=True, _convert_="all")(**data.model_inputs())
    trainer, callbacks = bucket_trainer(cfg)
    started, cpu_started = time.perf_counter(), time.process_time()
    trainer.fit(module, data, ckpt_path=cfg.ckpt_path)
    # CPU seconds too: on a shared machine they, not wall time, say what one thread needs
    fit_seconds, fit_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    if not trainer.is_global_zero:
        return {}
    chosen = best_checkpoint(callbacks)
    state = torch.load(chosen, map_location="cpu", weights_only=True)
    module.load_state_dict(state["state_dict"])
    tester = one_device_trainer(cfg.trainer)
    val = tester.validate(module, data, verbose=False)[0]
    test = tester.test(module, data, verbose=False)[0]
    metrics = {
        "checkpoint": chosen, "epoch": state.get("epoch"), "global_step": state.get("global_step"),
        "threads": cfg.threads,
        "fit_seconds": round(fit_seconds, 1), "fit_cpu_seconds": round(fit_cpu, 1),
        "val": {k.split("/", 1)[1]: round(v, 5) for k, v in val.items()},
        "test": {k.split("/", 1)[1]: round(v, 5) for k, v in test.items()},
        "data": data.summary(),
    }
    info = {"metrics": metrics, "config": OmegaConf.to_container(cfg, resolve=True),
            "libraries": library_versions("torch", "pytorch-lightning")}
    path = module.export(cfg.model_dir, info)
    metrics["exported"] = {"path": str(path), **module.check_export(path, data)}
    with open(f"{cfg.out_dir}/metrics.json", "w") as f:
        json.dump(metrics, f, indent=1)
    print(f"exported the {module.kind} to {path}")
    return metrics


@hydra.main(version_base="1.3", config_path=CONF, config_name="victim")
@one_line_errors
def main(cfg: DictConfig) -> None:
    metrics = train(cfg)
    if metrics:
        print(json.dumps({"val": metrics["val"], "test": metrics["test"]}))


if __name__ == "__main__":
    main()
