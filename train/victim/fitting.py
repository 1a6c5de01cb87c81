"""What the victim jobs share: the learning-rate schedule and timing the exported victim."""
from __future__ import annotations

import math
import time

import pytorch_lightning as pl
import torch


def warmup_cosine(opt, trainer: pl.Trainer, warmup_steps: int, min_lr_ratio: float,
                  total: int | None = None) -> dict:
    """Linear warm-up to the peak rate, then cosine decay to ``min_lr_ratio`` of it by the last
    planned step (``total``; default the trainer's estimate), so a short CPU budget still ends on
    a low learning rate."""
    total = max(int(total or trainer.estimated_stepping_batches), 1)
    warm, floor = min(warmup_steps, total - 1), min_lr_ratio

    def scale(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        done = min((step - warm) / max(total - warm, 1), 1.0)
        return floor + (1 - floor) * (1 + math.cos(math.pi * done)) / 2

    schedule = torch.optim.lr_scheduler.LambdaLR(opt, scale)
    return {"optimizer": opt, "lr_scheduler": {"scheduler": schedule, "interval": "step"}}


def timed_predict(victim, inputs: list, unit: str) -> tuple[list, dict]:
    """``victim.predict(inputs)`` and its speed in ``unit`` per wall and per CPU second (on a
    shared machine the CPU seconds say what one thread needs)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    predicted = victim.predict(inputs)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return predicted, {f"predict_{unit}_per_s": round(len(inputs) / max(seconds, 1e-9)),
                       f"predict_{unit}_per_cpu_s": round(len(inputs) / max(cpu, 1e-9))}
