"""``python -m train.export export=visual|phonetic ckpt=PATH [key=value ...]``: regenerate the
exported artifacts of one pipeline from a checkpoint, without training. ``export=visual
ckpt=null`` only re-ranks the exported table's letters for reading (``export.rerank``).

The ``export`` group of ``conf/export.yaml`` picks the pipeline and brings its settings.
"""
from __future__ import annotations

import json

import hydra
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig

from train import CONF, one_line_errors
from train.publish import Destination


def visual(cfg: DictConfig) -> dict:
    from train.visual.export import export_visual, rerank_exported

    dest = Destination.of(cfg)
    if cfg.ckpt is None:  # no checkpoint: the shipped table's letters re-ranked for reading
        return rerank_exported(cfg.export, dest)
    return export_visual(cfg.ckpt, cfg.export, dest)


def phonetic(cfg: DictConfig) -> dict:
    from train.phonetic.export import export_phonetic, export_sound
    from train.phonetic.lexicon import filter_lexicon

    lexicon = filter_lexicon(instantiate(cfg.lexicon.reader), **cfg.lexicon.filter)
    if cfg.export.sound_only:
        meta = export_sound(cfg.export, lexicon, Destination.of(cfg))
        print(json.dumps({k: meta[k] for k in ("words", "sound", "sound_seconds")}))
        return meta
    meta = export_phonetic(cfg.ckpt, cfg.export, lexicon, Destination.of(cfg))
    print(json.dumps({k: meta[k] for k in ("words", "table", "sound", "export_seconds",
                                            "seconds")}))
    return meta


PIPELINES = {"visual": visual, "phonetic": phonetic}


def export(cfg: DictConfig) -> dict:
    """Run the pipeline ``cfg.pipeline`` names; returns the exported component's metadata."""
    if cfg.pipeline not in PIPELINES:
        raise ValueError(f"export={cfg.pipeline}: the pipelines are {', '.join(PIPELINES)}")
    Destination.of(cfg)  # a bad export_to fails before the export's minutes
    torch.set_num_threads(cfg.threads)
    return PIPELINES[cfg.pipeline](cfg)


@hydra.main(config_path=CONF, config_name="export", version_base="1.3")
@one_line_errors
def main(cfg: DictConfig) -> None:
    export(cfg)


if __name__ == "__main__":
    main()
