"""``python -m train.seq2seq direction=g2p|p2g lexicon=cmudict|combilex [overrides]``

Trains one direction, tests the best checkpoint (by ``val/wer``) on the held-out split, writes
``metrics.json`` next to the checkpoints and exports the model to ``artifacts/phonetic/seq2seq``.
``ckpt_path=.../last.ckpt`` resumes; ``export_only=true ckpt_path=...`` re-tests and re-exports.

``members=N`` trains N models at once, one process each (seeds ``seed``, ``seed+1``, …, runs in
``member<i>/``), and tests and exports them as one ensemble: a CPU with N cores trains N
one-thread models in the time of one, while one model on N threads gains far less (the GRU's
small sequential steps do not parallelise well). With ``bidirectional=true`` every second member
writes its output right to left, and the ensemble ranks both orders' proposals together
(``zeroe_assets.phonetic.seq2seq.decode``). With members, ``ckpt_path`` is a list, one checkpoint
per member, to resume from or to export.
"""
from __future__ import annotations

import csv
import json
import multiprocessing
import os
import time
from pathlib import Path

import hydra
import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, ListConfig, OmegaConf
from pytorch_lightning.callbacks import EMAWeightAveraging, LearningRateMonitor, ModelCheckpoint

from train import CONF
from train.distributed import bucket_trainer, one_device_trainer
from train.phonetic.lexicon import filter_lexicon
from train.phonetic.seq2seq import export_model
from zeroe_assets.phonetic.seq2seq import Ensemble, Seq2SeqNet


def _data(cfg: DictConfig):
    lexicon = filter_lexicon(instantiate(cfg.lexicon.reader), **cfg.lexicon.filter)
    # a partial: instantiate would turn the Lexicon dataclass into a config node
    data = instantiate(cfg.data, _partial_=True)(lexicon=lexicon, direction=cfg.direction,
                                                 seed=cfg.seed)
    data.setup()
    module = instantiate(cfg.model, src_vocab=list(data.src_vocab.symbols),
                         tgt_vocab=list(data.tgt_vocab.symbols), direction=cfg.direction,
                         silent=sorted(lexicon.silent), _convert_="all")
    return lexicon, data, module


def fit(cfg: DictConfig):
    """Train one model into ``cfg.out_dir``; returns its best checkpoint (None on DDP ranks other
    than 0, whose work ends here) and what ``_data`` built, so that testing it need not read the
    lexicon again."""
    torch.set_num_threads(cfg.threads)
    pl.seed_everything(cfg.seed, workers=True)
    out = Path(cfg.out_dir)
    built = _data(cfg)
    _, data, module = built
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
    trainer = bucket_trainer(cfg.trainer, out, callbacks)
    trainer.fit(module, data, ckpt_path=cfg.ckpt_path)
    if not trainer.is_global_zero:
        return None, built
    return checkpoint.best_model_path or last.best_model_path, built


def _member_cfg(cfg: DictConfig, i: int) -> dict:
    member = OmegaConf.to_container(cfg, resolve=True)
    resume = cfg.ckpt_path[i] if cfg.ckpt_path else None
    member.update(members=1, seed=cfg.seed + i, out_dir=str(Path(cfg.out_dir) / f"member{i}"),
                  ckpt_path=resume, export_artifacts=False)
    member["model"]["net"]["reverse"] = bool(cfg.bidirectional and i % 2)
    member["trainer"]["enable_progress_bar"] = False  # N bars on one terminal are unreadable
    return member


def _fit_member(cfg: dict, result) -> None:
    """Child process: train one member, its log in its own folder, the best checkpoint on ``result``."""
    out = Path(cfg["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "train.log", "a") as log:
        os.dup2(log.fileno(), 1)  # at the descriptor level: Lightning's handlers hold the old streams
        os.dup2(log.fileno(), 2)
        result.put(fit(OmegaConf.create(cfg))[0])


def _latest(out: Path) -> str:
    """The last validation of a member run (in its newest log version), for the progress line."""
    logs = sorted(out.glob("logs/version_*/metrics.csv"),
                  key=lambda p: int(p.parent.name.split("_")[1]))
    if not logs:
        return "starting"
    try:
        with open(logs[-1]) as f:
            rows = [r for r in csv.DictReader(f) if r.get("val/wer")]
        return f"epoch {rows[-1]['epoch']} val/wer {float(rows[-1]['val/wer']):.4f}" if rows else "no validation yet"
    except (ValueError, csv.Error):  # a line the member is still writing; the next poll reads it whole
        return "…"


def _last_line(path: Path) -> str:
    """The last line of a member's log: the error that stopped it, when it failed."""
    lines = path.read_text(errors="replace").strip().splitlines() if path.exists() else []
    return lines[-1] if lines else "no output"


def fit_members(cfg: DictConfig) -> list[str]:
    """Train ``cfg.members`` models in parallel processes; their best checkpoints, in seed order."""
    if cfg.ckpt_path and len(cfg.ckpt_path) != cfg.members:
        raise ValueError(f"members={cfg.members} resumes from one checkpoint each; "
                         f"ckpt_path lists {len(cfg.ckpt_path)}")
    spawn = multiprocessing.get_context("spawn")
    members = [_member_cfg(cfg, i) for i in range(cfg.members)]
    results = [spawn.SimpleQueue() for _ in members]
    procs = [spawn.Process(target=_fit_member, args=(m, q)) for m, q in zip(members, results)]
    for p in procs:
        p.start()
    print(f"training {len(procs)} members in parallel; logs in {cfg.out_dir}/member*/train.log",
          flush=True)
    shown = ""
    while any(p.is_alive() for p in procs):
        for p in procs:
            p.join(timeout=10 / len(procs))
        line = " | ".join(f"member{i}: {_latest(Path(m['out_dir']))}" for i, m in enumerate(members))
        if line != shown:
            print(line, flush=True)
            shown = line
    failed = [i for i, p in enumerate(procs) if p.exitcode != 0]
    if failed:
        reasons = "; ".join(f"member{i}: {_last_line(Path(members[i]['out_dir']) / 'train.log')}"
                            for i in failed)
        raise RuntimeError(f"member(s) {failed} failed ({reasons}); "
                           f"see {cfg.out_dir}/member<i>/train.log")
    return [q.get() for q in results]


def evaluate(cfg: DictConfig, checkpoints: list[str], fit_seconds: float | None,
             built=None) -> dict:
    """Test the checkpoint(s), one model or an ensemble; write metrics.json; export.
    ``built``: the lexicon, data and module a fit in this process already made."""
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lexicon, data, module = built or _data(cfg)
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
    if cfg.export_artifacts:
        info = {**metrics, "config": OmegaConf.to_container(cfg, resolve=True)}
        path = export_model(module.transliterator({"lexicon": cfg.lexicon.name}), info,
                            cfg.artifacts_root)
        print(f"exported {cfg.direction} to {path}")
    return metrics


def train(cfg: DictConfig) -> dict:
    """Fit (unless ``export_only``), test the best checkpoint(s), export; returns the metrics."""
    if cfg.members < 1:
        raise ValueError(f"members must be at least 1, got {cfg.members}")
    torch.set_num_threads(cfg.threads)
    trainer = cfg.trainer
    if cfg.members > 1 and ("ddp" in str(trainer.get("strategy"))
                            or trainer.get("devices") not in (1, "1")):  # auto: every GPU
        # a DDP launcher inside a member process would start the whole job again
        raise ValueError(f"members={cfg.members} trains one process per member; to train on "
                         f"several devices (trainer.devices={trainer.get('devices')}, "
                         f"trainer.strategy={trainer.get('strategy')}) set members=1")
    listed = isinstance(cfg.ckpt_path, (list, ListConfig))
    if listed != (cfg.members > 1) and cfg.ckpt_path:
        raise ValueError(f"with members={cfg.members}, ckpt_path must be "
                         f"{'a list, one per member' if cfg.members > 1 else 'one path'}")
    checkpoints = (list(cfg.ckpt_path) if listed else [cfg.ckpt_path]) if cfg.ckpt_path else []
    missing = [str(c) for c in checkpoints if not Path(c).is_file()]
    if missing:  # before any member starts, not in its log minutes later
        raise FileNotFoundError(f"ckpt_path: no checkpoint at {', '.join(missing)}")
    if cfg.export_only:
        if not checkpoints:
            raise ValueError("export_only=true needs ckpt_path=PATH to a checkpoint "
                             "(with members: ckpt_path=[PATH,...])")
        return evaluate(cfg, checkpoints, None)
    started = time.time()
    if cfg.members > 1:
        return evaluate(cfg, fit_members(cfg), time.time() - started)
    best, built = fit(cfg)
    if best is None:
        return {}  # a DDP rank other than 0: rank 0 tests and exports
    return evaluate(cfg, [best], time.time() - started, built)


@hydra.main(version_base="1.3", config_path=CONF, config_name="seq2seq")
def main(cfg: DictConfig) -> None:
    metrics = train(cfg)
    if metrics:
        print(json.dumps(metrics["test"]))


if __name__ == "__main__":
    main()
