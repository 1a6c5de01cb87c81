"""Victims: anything with ``predict(batch) -> list``, loaded by name, ``hf:DIR`` or
``package.module:object``; this package is their one home (the protocols and the loader here,
one wrapper base in :mod:`.wrapper`, the built-in victims in its modules).

A batch holds the task's inputs and ``predict`` returns one output per item, as the task names
them (``Task.inputs``/``Task.outputs``): ``pos`` token lists → tag lists; ``nli`` (premise,
hypothesis) → labels; ``tc`` texts → scores of the positive class (a list of scores per item for
multi-label); ``generic`` texts → labels. ``object`` is either such a victim or a factory
``object(path)`` that loads one from the model path the user gives. A victim may name its task in
``task``; it is then refused for other tasks.

A label victim may also give its class probabilities (:class:`Scorer`): ``scores(batch)``, one row
per item whose column j is the probability of ``labels[j]`` (the strings ``predict`` returns).
Targeted search attacks use them when present. A ``tc`` victim's ``predict`` already is a score.

Built-in victims: the scikit-learn baselines of :mod:`zeroe_assets.victims.sklearn` (trained
with ``zeroe bench train-victim``, saved with joblib: load only files you made yourself),
``pos-bilstm``, the character-aware BiLSTM tagger trained with ``python -m train.victim`` (a
bundle of :mod:`zeroe_assets.assets.victim`, run by :mod:`zeroe_assets.victims.pos_bilstm`), and
``hf:DIR``, a local Hugging Face sequence-classification model (:mod:`zeroe_assets.victims.hf`),
such as the MiniLM fine-tuned by ``python -m train.victim experiment=victim_minilm_olid``.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import sys
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

from ..tasks import TASKS, get_task

BUILTIN_TRAINABLE = ("pos-features", "nli-tfidf", "tc-tfidf", "generic-tfidf", "tc-monotone",
                     "tc-minilm", "nli-minilm", "generic-minilm")
BUILTIN = {**{name: f"{__name__}:load_sklearn" for name in BUILTIN_TRAINABLE},
           "pos-bilstm": f"{__name__}:load_pos_bilstm"}


HF_PREFIX = "hf:"
DEFENDED_PREFIX = "defended:"  # a folder from `zeroe defend` (zeroe_assets.defend, a layer above)


class VictimError(RuntimeError):
    """The victim raised while it was queried (its own failure, not bad input; the CLI exits 3)."""


def error_text(e: BaseException, limit: int = 200) -> str:
    """``Type: message`` of an exception a victim (or its file) raised, on one line and at most
    ``limit`` characters of message: unpickling random bytes quotes them all."""
    message = " ".join(str(e).split())
    return f"{type(e).__name__}: " + (message if len(message) <= limit
                                      else message[:limit - 1] + "…")


class _Answers(type(Protocol)):
    """``isinstance`` by what the object answers (``hasattr``), as Python did before 3.12 (which
    looks the protocol's members up statically): a `WrappedVictim` answers ``scores`` from
    ``__getattr__`` exactly when its victim does, and a ``tc-minilm`` victim's ``labels``
    property raises AttributeError, so it is no `Scorer`."""

    def __instancecheck__(cls, instance) -> bool:
        if not cls.__dict__.get("_is_protocol"):
            return super().__instancecheck__(instance)
        return all(hasattr(instance, name) for name in _members(cls))


@functools.cache
def _members(protocol) -> frozenset[str]:
    """The attributes and methods the victim protocols declare, their bases' included; once per
    protocol (a goal asks ``isinstance(victim, Scorer)`` several times a query)."""
    return frozenset(name for base in protocol.__mro__ if base.__module__ == __name__
                     for name in (*inspect.get_annotations(base),
                                  *(k for k, v in vars(base).items()
                                    if callable(v) and k[0] != "_")))


@runtime_checkable
class Victim(Protocol, metaclass=_Answers):
    """What the benchmark queries: one prediction per batch item."""

    def predict(self, batch: Sequence) -> list: ...


@runtime_checkable
class Scorer(Victim, Protocol):
    """A label victim that also gives class probabilities, column j for ``labels[j]``."""

    labels: tuple[str, ...]

    def scores(self, batch: Sequence) -> list[list[float]]: ...


def load_victim(spec: str, path: str | Path | None = None, *, task: str | None = None,
                batch_size: int = 32, device: str | None = None) -> Victim:
    """A victim from a built-in name, ``hf:DIR`` or ``package.module:object`` (called with
    ``path`` when it is a factory). ``task``, when given, is the task it must serve (an ``hf:``
    directory without ``zeroe_victim.json`` needs it); ``batch_size`` and ``device`` ("cpu",
    "cuda", None: a GPU when there is one) are for ``hf:`` models."""
    for prefix in (HF_PREFIX, DEFENDED_PREFIX):
        if spec.startswith(prefix) and spec[len(prefix):] and path is not None:
            raise ValueError(f"{spec} names its folder; --victim-path {path} would go unused: "
                             f"give one of them ({prefix}DIR, or {prefix} with --victim-path)")
    if spec.startswith(HF_PREFIX):
        return load_hf(spec[len(HF_PREFIX):] or path, task, batch_size, device)
    if spec.startswith(DEFENDED_PREFIX):  # by name: defend imports victims, not the reverse
        load = getattr(importlib.import_module("zeroe_assets.defend.victim"), "load_defended")
        return load(spec[len(DEFENDED_PREFIX):] or path, task)
    target = BUILTIN.get(spec, spec)
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"victim must be one of {', '.join(BUILTIN)}, hf:DIR or "
                         f"package.module:object, got {spec!r}")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"cannot load victim {spec!r}: {e}") from None
    if isinstance(obj, Victim) and not isinstance(obj, type):
        victim = obj
    else:
        victim = _from_factory(obj, spec, path)
    if task is not None:
        check_victim_task(getattr(victim, "task", None), get_task(task).name, spec)
    return victim


def _from_factory(obj, spec: str, path: str | Path | None) -> Victim:
    if not callable(obj):
        raise ValueError(f"victim {spec!r} has no predict() and is not a factory")
    arg = str(path) if path is not None else None
    try:
        inspect.signature(obj).bind(arg)
    except TypeError:
        raise ValueError(f"victim {spec!r} is neither an object with predict() nor a factory "
                         "taking the model path (--victim-path) as its one argument") from None
    victim = obj(arg)
    if not isinstance(victim, Victim):
        raise ValueError(f"victim factory {spec!r} returned an object without predict()")
    return victim


def load_hf(path: str | Path | None, task: str | None = None, batch_size: int = 32,
            device: str | None = None) -> Victim:
    """The ``hf:DIR`` victim (:func:`zeroe_assets.victims.hf.load_hf_victim`)."""
    if not path:
        raise ValueError("hf victims need their model directory: hf:DIR")
    from .hf import load_hf_victim

    return load_hf_victim(path, task, batch_size, device)


def load_sklearn(path: str | None):
    if path is None:
        raise ValueError("built-in scikit-learn victims need --victim-path (from "
                         "`zeroe bench train-victim`)")
    import joblib

    if not Path(path).is_file():
        raise ValueError(f"victim model not found: {path}")
    with _old_pickle_paths():
        try:
            return joblib.load(path)
        except Exception as e:  # noqa: BLE001 - unpickling garbage raises anything (KeyError: 233)
            raise ValueError(f"{path} is not a victim saved by `zeroe bench train-victim` "
                             f"(empty, truncated or another file: {error_text(e)})") from None


# where the scikit-learn victims lived when older files were pickled (joblib names the module)
OLD_SKLEARN_MODULES = ("zeroe_assets.baselines", "zeroe_assets.bench.victims")


@contextlib.contextmanager
def _old_pickle_paths():
    """Victims saved before they moved to :mod:`.sklearn` name their old module: while a file
    is unpickled (and only then), those names are that module."""
    from . import sklearn

    added = [name for name in OLD_SKLEARN_MODULES if name not in sys.modules]
    sys.modules.update(dict.fromkeys(added, sklearn))
    try:
        yield
    finally:
        for name in added:
            del sys.modules[name]


def load_pos_bilstm(path: str | None):
    """The ``pos-bilstm`` factory: a bundle written by ``python -m train.victim`` (torch is
    imported here, when one is loaded)."""
    if path is None:
        raise ValueError("the pos-bilstm victim needs a model directory (--victim-path DIR), "
                         "e.g. runs/victim/ud_ewt/model after `python -m train.victim`")
    from .pos_bilstm.predict import from_bundle

    return from_bundle(path)


def check_victim_task(own: str | None, task: str, name: str) -> None:
    """Refuse a victim made for another of our tasks up front: it would fail deep inside (an NLI
    victim unpacking POS token lists into pairs). A ``task`` that names none of them (a wrapped
    Hugging Face pipeline's "text-classification") is not ours to judge."""
    if own in TASKS and own != task:
        raise ValueError(f"victim {name!r} is for task {own}, not {task}")
