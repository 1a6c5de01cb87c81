"""``python -m train.phonetic [key=value ...]``: train the Siamese phonetic embedder (paper
appendix A.1) on labelled word pairs, test the best checkpoint on held-out words, draw the
confusion matrix, then export ``phonetic`` (index + perturbation table; where: ``train.publish``).

``ckpt_path=.../last.ckpt`` resumes; ``train(cfg)`` does the work (tests call it).
"""
from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path

import hydra
import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig

from train import CONF, one_line_errors
from zeroe_assets.phonetic.embedder import CLASSES

log = logging.getLogger("train.phonetic")  # not "__main__" under python -m


def train(cfg: DictConfig) -> dict:
    """Fit, test the best checkpoint (by ``val/macro_f1``), write ``metrics.json`` and the
    confusion matrix, export if ``export_after``; returns the metrics (empty on DDP ranks other
    than 0, which stop after the fit)."""
    from train.distributed import fit_trainer, one_device_trainer
    from train.phonetic.embed import load_checkpoint
    from train.phonetic.export import check_export, export_phonetic
    from train.phonetic.figures import confusion_figure
    from train.phonetic.lexicon import filter_lexicon
    from train.publish import Destination

    if cfg.export_after:
        check_export(cfg.export)
        dest = Destination.of(cfg)
    torch.set_num_threads(cfg.threads)
    pl.seed_everything(cfg.seed, workers=True)
    out = Path(cfg.out_dir)
    lexicon = filter_lexicon(instantiate(cfg.lexicon.reader), **cfg.lexicon.filter)
    data = instantiate(cfg.data, _partial_=True)(lexicon=lexicon, seed=cfg.seed)
    pairs = data.prepare()
    log.info("pairs: %s", json.dumps(pairs.summary()))
    module = instantiate(cfg.model, vocab=list(data.vocab.symbols),
                         class_counts=data.class_counts(), _convert_="all")
    trainer, callbacks = fit_trainer(cfg)
    started = time.time()
    trainer.fit(module, data, ckpt_path=cfg.ckpt_path)
    fit_seconds = time.time() - started
    if not trainer.is_global_zero:
        return {}
    best = callbacks["best"].best_model_path or cfg.ckpt_path
    tested_module = load_checkpoint(best)
    one_device_trainer(cfg.trainer).test(tested_module, data, verbose=False)
    metrics = {"checkpoint": str(best), "fit_seconds": round(fit_seconds, 1),
               "lexicon": lexicon.source, "lexicon_sha256": lexicon.fingerprint(),
               "pairs": pairs.summary(),
               "test": {k: round(v, 4) for k, v in tested_module.test_scores.items()},
               "test_confusion": tested_module.last_confusion.tolist(), "classes": list(CLASSES)}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    test = metrics["test"]
    figure = confusion_figure(tested_module.last_confusion, out / "confusion.png",
                              f"phonetic embedder, held-out pairs: acc {test['acc']:.3f}, "
                              f"macro F1 {test['macro_f1']:.3f}")
    if cfg.figure:
        shutil.copyfile(figure, cfg.figure)
    log.info("test: %s", json.dumps(metrics["test"]))
    if cfg.export_after:
        metrics["export"] = export_phonetic(best, cfg.export, lexicon, dest)
    return metrics


@hydra.main(config_path=CONF, config_name="phonetic", version_base="1.3")
@one_line_errors
def main(cfg: DictConfig) -> None:
    metrics = train(cfg)
    if metrics:
        print(json.dumps({k: metrics["test"][k] for k in ("acc", "macro_f1")}))


if __name__ == "__main__":
    main()
