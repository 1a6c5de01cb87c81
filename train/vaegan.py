"""``python -m train.vaegan [key=value ...]``: train the visual VAE-GAN (paper §3.3), draw the
quality figures, export the neighbour assets. ``train(cfg)`` does the work; tests call it."""
from __future__ import annotations

import logging
from pathlib import Path

import hydra
import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig

from train import CONF, one_line_errors
from train.distributed import fit_trainer
from train.publish import Destination

log = logging.getLogger(__name__)


def vaegan_trainer(cfg: DictConfig) -> tuple[pl.Trainer, dict]:
    """The run's Trainer. The VAE-GAN steps three optimisers in turn (manual optimisation), so
    each backward leaves the other nets' parameters without gradients, which plain DDP rejects."""
    ddp = cfg.trainer.get("strategy") == "ddp"
    return fit_trainer(cfg, **{"strategy": "ddp_find_unused_parameters_true"} if ddp else {})


def train(cfg: DictConfig) -> dict:
    """Fit, draw the figures of the best checkpoint, export it if ``export_after``; returns the
    checkpoints, the last metrics, the figures and the export's metadata."""
    from train.visual.embed import encode, load_checkpoint
    from train.visual.export import check_export, export_visual
    from train.visual.figures import TSNE_LETTERS, distorted_views, reconstruction_grid, tsne_plot

    if cfg.export_after:
        check_export(cfg.export)
        dest = Destination.of(cfg)
    torch.set_num_threads(cfg.threads)
    pl.seed_everything(cfg.seed, workers=True)
    datamodule = instantiate(cfg.data)
    model = instantiate(cfg.model)
    trainer, callbacks = vaegan_trainer(cfg)
    trainer.fit(model, datamodule=datamodule, ckpt_path=cfg.ckpt_path)

    checkpoint = callbacks["checkpoint"]
    best = checkpoint.best_model_path or checkpoint.last_model_path
    result = {"best": best, "last": checkpoint.last_model_path,
              "metrics": {k: float(v) for k, v in trainer.callback_metrics.items()}}
    if not trainer.is_global_zero or not best:
        return result
    out = Path(cfg.out_dir)
    glyphs = datamodule.glyph_set
    best_model, _, _ = load_checkpoint(best)
    augment = datamodule.augment
    extra = distorted_views(best_model, glyphs, augment, TSNE_LETTERS) if augment else None
    figures = [reconstruction_grid(best_model, glyphs, out / "reconstructions.png", augment),
               tsne_plot(encode(best_model, glyphs.images), glyphs, out / "tsne.png", extra=extra)]
    result["figures"] = [f for f in figures if f is not None]
    if cfg.export_after:
        result["export"] = export_visual(best, cfg.export, dest, glyphs=glyphs)
    log.info("best checkpoint %s; figures in %s", best, out)
    return result


@hydra.main(config_path=CONF, config_name="vaegan", version_base="1.3")
@one_line_errors
def main(cfg: DictConfig) -> None:
    train(cfg)


if __name__ == "__main__":
    main()
