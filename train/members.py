"""``members=N``: train N models at once, one process each, for one ensemble (``train.seq2seq``).

A CPU with N cores trains N one-thread models in the time of one, while one model on N threads
gains far less (a GRU's small sequential steps do not parallelise well). Member ``i`` trains with
seed ``seed + i`` in ``out_dir/member<i>/`` (its output in ``train.log`` there); with
``bidirectional=true`` every second member writes its output right to left.
"""
from __future__ import annotations

import csv
import multiprocessing
import os
from pathlib import Path
from typing import Callable

from omegaconf import DictConfig, ListConfig, OmegaConf


def checkpoints(cfg: DictConfig) -> list[str]:
    """``ckpt_path`` as a list, one per member (empty: none), checked before any member starts,
    not in its log minutes later."""
    if cfg.members < 1:
        raise ValueError(f"members must be at least 1, got {cfg.members}")
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
    found = (list(cfg.ckpt_path) if listed else [cfg.ckpt_path]) if cfg.ckpt_path else []
    missing = [str(c) for c in found if not Path(c).is_file()]
    if missing:
        raise FileNotFoundError(f"ckpt_path: no checkpoint at {', '.join(missing)}")
    return found


def _member_cfg(cfg: DictConfig, i: int) -> dict:
    """Member ``i``'s config; unresolved, so that its paths follow its own ``out_dir``."""
    member = OmegaConf.to_container(cfg, resolve=False)
    resume = cfg.ckpt_path[i] if cfg.ckpt_path else None
    member.update(members=1, seed=cfg.seed + i, out_dir=str(Path(cfg.out_dir) / f"member{i}"),
                  ckpt_path=resume, export_after=False)
    member["model"]["net"]["reverse"] = bool(cfg.bidirectional and i % 2)
    member["trainer"]["enable_progress_bar"] = False  # N bars on one terminal are unreadable
    return member


def _fit_member(fit: Callable[[DictConfig], str], cfg: dict, result) -> None:
    """Child process: train one member, its log in its own folder, the best checkpoint on ``result``."""
    out = Path(cfg["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "train.log", "a") as log:
        os.dup2(log.fileno(), 1)  # at the descriptor level: Lightning's handlers hold the old streams
        os.dup2(log.fileno(), 2)
        result.put(fit(OmegaConf.create(cfg)))


def _latest(out: Path, metric: str) -> str:
    """The last validation of a member run (in its newest log version), for the progress line."""
    logs = sorted(out.glob("logs/version_*/metrics.csv"),
                  key=lambda p: int(p.parent.name.split("_")[1]))
    if not logs:
        return "starting"
    try:
        with open(logs[-1]) as f:
            rows = [r for r in csv.DictReader(f) if r.get(metric)]
        return f"epoch {rows[-1]['epoch']} {metric} {float(rows[-1][metric]):.4f}" if rows else "no validation yet"
    except (ValueError, csv.Error):  # a line the member is still writing; the next poll reads it whole
        return "…"


def _last_line(path: Path) -> str:
    """The last line of a member's log: the error that stopped it, when it failed."""
    lines = path.read_text(errors="replace").strip().splitlines() if path.exists() else []
    return lines[-1] if lines else "no output"


def fit_members(cfg: DictConfig, fit: Callable[[DictConfig], str]) -> list[str]:
    """Train ``cfg.members`` models with ``fit`` (a module-level function: each member process
    imports it) in parallel processes; their best checkpoints, in seed order."""
    if cfg.ckpt_path and len(cfg.ckpt_path) != cfg.members:
        raise ValueError(f"members={cfg.members} resumes from one checkpoint each; "
                         f"ckpt_path lists {len(cfg.ckpt_path)}")
    spawn = multiprocessing.get_context("spawn")
    members = [_member_cfg(cfg, i) for i in range(cfg.members)]
    results = [spawn.SimpleQueue() for _ in members]
    procs = [spawn.Process(target=_fit_member, args=(fit, m, q)) for m, q in zip(members, results)]
    for p in procs:
        p.start()
    print(f"training {len(procs)} members in parallel; logs in {cfg.out_dir}/member*/train.log",
          flush=True)
    metric, shown = cfg.callbacks.best.monitor, ""
    while any(p.is_alive() for p in procs):
        for p in procs:
            p.join(timeout=10 / len(procs))
        line = " | ".join(f"member{i}: {_latest(Path(m['out_dir']), metric)}"
                          for i, m in enumerate(members))
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
