"""``python -m train.seq2seq direction=g2p|p2g lexicon=cmudict|combilex [key=value ...]``

Trains one direction, tests the best checkpoint (by ``val/wer``) on the held-out split, writes
``metrics.json`` next to the checkpoints and exports the model as ``phonetic/seq2seq`` (into the
run folder; ``export_to=artifacts``: over the shipped one, ``train.publish``).
``ckpt_path=.../last.ckpt`` resumes; ``export_only=true ckpt_path=...`` re-tests and re-exports.

``members=N`` trains N models at once and tests and exports them as one ensemble
(``train.members``); with ``bidirectional=true`` the ensemble ranks both reading orders'
proposals together (``zeroe_assets.phonetic.seq2seq.decode``). With members, ``ckpt_path`` is a
list, one checkpoint per member, to resume from or to export.
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

from train import CONF, one_line_errors
from train.distributed import bucket_trainer, one_device_trainer
from train.members import checkpoints, fit_members
from train.phonetic.lexicon import filter_lexicon
from train.phonetic.seq2seq import export_model
from train.publish import Destination
from zeroe_assets.phonetic.seq2seq import Ensemble, Seq2SeqNet


def build(cfg: DictConfig):
    """The lexicon, the data module (set up) and a fresh model for ``cfg.direction``, seeded."""
    pl.seed_everything(cfg.seed, workers=True)
    lexicon = filter_lexicon(instantiate(cfg.lexicon.reader), **cfg.lexicon.filter)
    # a partial: instantiate would turn the Lexicon dataclass into a config node
    data = instantiate(cfg.data, _partial_=True)(lexicon=lexicon, direction=cfg.direction,
                                                 seed=cfg.seed)
    data.setup()
    module = instantiate(cfg.model, src_vocab=list(data.src_vocab.symbols),
                         tgt_vocab=list(data.tgt_vocab.symbols), direction=cfg.direction,
                         silent=sorted(lexicon.silent), _convert_="all")
    return lexicon, data, module


def fit(cfg: DictConfig, built=None) -> str | None:
    """Train one model into ``cfg.out_dir``; its best checkpoint (None on DDP ranks other than
    0, whose work ends here). ``built``: what ``build`` made, when the caller has it."""
    torch.set_num_threads(cfg.threads)
    _, data, module = built or build(cfg)
    trainer, callbacks = bucket_trainer(cfg)
    trainer.fit(module, data, ckpt_path=cfg.ckpt_path)
    if not trainer.is_global_zero:
        return None
    return callbacks["best"].best_model_path or callbacks["last"].best_model_path


def evaluate(cfg: DictConfig, checkpoints: list[str], fit_seconds: float | None,
             built=None) -> dict:
    """Test the checkpoint(s), one model or an ensemble; write metrics.json; export.
    ``built``: the lexicon, data and module a fit in this process already made."""
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lexicon, data, module = built or build(cfg)
    states = [torch.load(c, map_location="cpu", weights_only=True) for c in checkpoints]
    for path, state in zip(checkpoints, states):
        if not isinstance(state, dict) or "net" not in state.get("hyper_parameters", {}):
            raise ValueError(f"{path} is not a G2P/P2G checkpoint (written by train.seq2seq)")
    nets = []
    for state in states:  # each member as its checkpoint describes it (its size, its order)
        module.net = Seq2SeqNet(len(module.src_vocab), len(module.tgt_vocab),
                                **state["hyper_parameters"]["net"])
        module.load_state_dict(state["state_dict"])
        nets.append(module.net)
    module.net = nets[0] if len(nets) == 1 else Ensemble(nets)
    tested = one_device_trainer(cfg.trainer).test(module, data, verbose=False)[0]
    one = len(states) == 1
    metrics = {
        "direction": cfg.direction, "lexicon": lexicon.source, "lexicon_sha256": lexicon.fingerprint(),
        "stress": lexicon.stress, "members": len(states),
        "checkpoint": str(checkpoints[0]) if one else [str(c) for c in checkpoints],
        "epoch": states[0].get("epoch") if one else [s.get("epoch") for s in states],
        "global_step": states[0].get("global_step") if one else [s.get("global_step") for s in states],
        "threads": cfg.threads, "fit_seconds": None if fit_seconds is None else round(fit_seconds, 1),
        "test": {k.split("/", 1)[1]: round(float(v), 5) for k, v in tested.items()},
        "split": data.summary(),
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    if cfg.export_after:
        info = {**metrics, "config": OmegaConf.to_container(cfg, resolve=True)}
        path = export_model(module.transliterator({"lexicon": cfg.lexicon.name}), info,
                            Destination.of(cfg))
        print(f"exported {cfg.direction} to {path}")
    return metrics


def train(cfg: DictConfig) -> dict:
    """Fit (unless ``export_only``), test the best checkpoint(s), export; returns the metrics."""
    if cfg.export_after:
        Destination.of(cfg)  # a bad export_to fails before the fit
    torch.set_num_threads(cfg.threads)
    resume = checkpoints(cfg)
    if cfg.export_only:
        if not resume:
            raise ValueError("export_only=true needs ckpt_path=PATH to a checkpoint "
                             "(with members: ckpt_path=[PATH,...])")
        return evaluate(cfg, resume, None)
    started = time.time()
    if cfg.members > 1:
        return evaluate(cfg, fit_members(cfg, fit), time.time() - started)
    built = build(cfg)
    best = fit(cfg, built)
    if best is None:
        return {}  # a DDP rank other than 0: rank 0 tests and exports
    return evaluate(cfg, [best], time.time() - started, built)


@hydra.main(version_base="1.3", config_path=CONF, config_name="seq2seq")
@one_line_errors
def main(cfg: DictConfig) -> None:
    metrics = train(cfg)
    if metrics:
        print(json.dumps(metrics["test"]))


if __name__ == "__main__":
    main()
