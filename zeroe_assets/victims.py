"""Victims: anything with ``predict(batch) -> list``, loaded by name or ``package.module:object``.

A batch holds the task's inputs and ``predict`` returns one output per item, as the task names
them (``Task.inputs``/``Task.outputs``): ``pos`` token lists → tag lists; ``nli`` (premise,
hypothesis) → labels; ``tc`` texts → scores of the positive class (a list of scores per item for
multi-label); ``generic`` texts → labels. ``object`` is either such a victim or a factory
``object(path)`` that loads one from the model path the user gives. A victim may name its task in
``task``; it is then refused for other tasks.

Built-in victims: the scikit-learn baselines of :mod:`zeroe_assets.baselines` (trained with
``zeroe bench train-victim``, saved with joblib: load only files you made yourself) and
``pos-bilstm``, the character-aware BiLSTM tagger trained with ``python -m train.victim``
(a bundle of :mod:`zeroe_assets.assets.victim`, run by :mod:`zeroe_assets.tagger`).
"""
from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

from .tasks import TASKS

BUILTIN_TRAINABLE = ("pos-features", "nli-tfidf", "tc-tfidf", "generic-tfidf", "tc-minilm",
                     "nli-minilm", "generic-minilm")
BUILTIN = {**{name: f"{__name__}:load_sklearn" for name in BUILTIN_TRAINABLE},
           "pos-bilstm": f"{__name__}:load_pos_bilstm"}


@runtime_checkable
class Victim(Protocol):
    """What the benchmark queries: one prediction per batch item."""

    def predict(self, batch: Sequence) -> list: ...


def load_victim(spec: str, path: str | Path | None = None) -> Victim:
    """A victim from a built-in name or ``package.module:object`` (called with ``path`` when it
    is a factory)."""
    target = BUILTIN.get(spec, spec)
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"victim must be one of {', '.join(BUILTIN)} or package.module:object, "
                         f"got {spec!r}")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"cannot load victim {spec!r}: {e}") from None
    if hasattr(obj, "predict") and not isinstance(obj, type):
        return obj
    if not callable(obj):
        raise ValueError(f"victim {spec!r} has no predict() and is not a factory")
    arg = str(path) if path is not None else None
    try:
        inspect.signature(obj).bind(arg)
    except TypeError:
        raise ValueError(f"victim {spec!r} is neither an object with predict() nor a factory "
                         "taking the model path (--victim-path) as its one argument") from None
    victim = obj(arg)
    if not hasattr(victim, "predict"):
        raise ValueError(f"victim factory {spec!r} returned an object without predict()")
    return victim


def load_sklearn(path: str | None):
    if path is None:
        raise ValueError("built-in scikit-learn victims need --victim-path (from "
                         "`zeroe bench train-victim`)")
    import joblib

    if not Path(path).is_file():
        raise ValueError(f"victim model not found: {path}")
    return joblib.load(path)


def load_pos_bilstm(path: str | None):
    """The ``pos-bilstm`` factory: a bundle written by ``python -m train.victim`` (torch is
    imported here, when one is loaded)."""
    if path is None:
        raise ValueError("the pos-bilstm victim needs a model directory (--victim-path DIR), "
                         "e.g. runs/victim/ud_ewt/model after `python -m train.victim`")
    from .tagger.predict import from_bundle

    return from_bundle(path)


def check_victim_task(own: str | None, task: str, name: str) -> None:
    """Refuse a victim made for another of our tasks up front: it would fail deep inside (an NLI
    victim unpacking POS token lists into pairs). A ``task`` that names none of them (a wrapped
    Hugging Face pipeline's "text-classification") is not ours to judge."""
    if own in TASKS and own != task:
        raise ValueError(f"victim {name!r} is for task {own}, not {task}")
