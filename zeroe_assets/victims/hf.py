"""Hugging Face victims (``hf:DIR``): a local sequence-classification model directory.

``DIR`` is what ``save_pretrained`` writes for a model and its tokenizer (``config.json``, the
weights, the tokenizer files). The victim runs it in eval mode without gradients, in batches
(texts of similar length together), truncated to the model's maximum length, on a GPU when there
is one (or the ``device`` asked for). Nothing is ever downloaded: transformers is kept offline
and reads local files only.

Tasks: ``nli`` sends (premise, hypothesis) as a text pair, ``nli``/``generic`` ``predict`` the
label names of ``config.id2label`` and ``scores`` their softmax (``labels``: those names); ``tc``
``predict`` the positive class's probability. ``zeroe_victim.json`` next to ``config.json``
names the task (and the positive label); :func:`write_hf_victim` writes it, for a directory
without one the user names the task. torch and transformers are imported when a model is loaded.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

from ..assets.store import json_bytes
from ..assets.victim import staged_folder
from ..validate import check_int, require_torch
from ..tasks import get_task

TASK_FILE = "zeroe_victim.json"
FORMAT, VERSION = "zeroe-hf-victim", 1
EXTRA = "pip install 'zeroe[hf]'"
# label names taken as the positive class of a toxicity model, compared in lower case
POSITIVE_NAMES = ("off", "offensive", "toxic", "1", "positive")


def _transformers():
    """transformers, offline (the environment is read when huggingface_hub is first imported)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    require_torch("an hf: victim")
    try:
        import transformers
    except ImportError:
        raise ValueError(f"hf: victims need transformers: {EXTRA}") from None
    transformers.logging.set_verbosity_error()  # no hub hints or "you should train" banners
    return transformers


def positive_index(labels: Sequence[str], where: str = "the model") -> int:
    """The positive class of a toxicity model: the one label named OFF, offensive, toxic, 1 or
    positive (any case), else the second of two labels; several such names are ambiguous."""
    hits = [i for i, name in enumerate(labels) if str(name).strip().lower() in POSITIVE_NAMES]
    if len(hits) == 1:
        return hits[0]
    if not hits and len(labels) == 2:
        return 1
    found = f"several positive names ({', '.join(labels[i] for i in hits)})" if hits else \
        f"{len(labels)} labels and none named {'/'.join(POSITIVE_NAMES)}"
    raise ValueError(f"{where} has {found}: say which label is positive with \"positive\" in "
                     f"{TASK_FILE}")


def write_hf_victim(path: str | os.PathLike, model, tokenizer, task: str,
                    info: dict[str, Any] | None = None) -> Path:
    """Save ``model`` (a ``...ForSequenceClassification``) and ``tokenizer`` as an ``hf:``
    victim directory for ``task``, with ``info`` (the training record) in ``zeroe_victim.json``;
    staged and swapped in by rename, so an interrupted export leaves the old directory or none."""
    task = get_task(task).name
    labels = [model.config.id2label[i] for i in range(model.config.num_labels)]
    record = {"format": FORMAT, "version": VERSION, "task": task, "labels": labels}
    if task == "tc":
        record["positive"] = labels[positive_index(labels)]
    with staged_folder(path) as stage:
        model.save_pretrained(stage)
        tokenizer.save_pretrained(stage)
        (stage / TASK_FILE).write_bytes(json_bytes({**(info or {}), **record}))
        for file in stage.iterdir():  # safetensors writes its weights private (0600)
            file.chmod(stage.stat().st_mode & 0o666)
    return Path(path)


def read_task_file(root: Path) -> dict:
    """``zeroe_victim.json`` of an ``hf:`` directory, ``{}`` when there is none."""
    path = root / TASK_FILE
    if not path.is_file():
        return {}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"{path}: expected a {FORMAT} record")
    return record


def load_hf_victim(path: str | os.PathLike, task: str | None = None, batch_size: int = 32,
                   device: str | None = None):
    """The victim in the model directory ``path`` for ``task`` (default: the one its
    ``zeroe_victim.json`` names); ``device``: "cpu", "cuda", "cuda:1", ... (None or "auto": a
    GPU when there is one)."""
    root = Path(path)
    if not root.is_dir():
        raise ValueError(f"hf victim directory not found: {root}")
    if not (root / "config.json").is_file():
        raise ValueError(f"{root} has no config.json: not a Hugging Face model directory "
                         "(save_pretrained writes one)")
    record = read_task_file(root)
    task = _task(record.get("task"), task, root)
    batch_size = check_int("batch size", batch_size)
    transformers = _transformers()
    model = _classifier(transformers, root)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(root, local_files_only=True)
    # without tokenizer files transformers tries to convert a slow one and needs protobuf
    except (OSError, ValueError, TypeError, ImportError) as e:
        raise ValueError(f"{root}: no usable tokenizer files ({e})") from None
    return hf_victim(model, tokenizer, task, batch_size, device, record.get("positive"),
                     str(root))


def hf_victim(model, tokenizer, task: str, batch_size: int = 32, device: str | None = None,
              positive: str | None = None, where: str = "the model"):
    """A loaded ``...ForSequenceClassification`` ``model`` and its ``tokenizer`` as the victim of
    ``task`` (what ``hf:DIR`` serves; also a model in training, queried as it stands: it is put
    in eval mode, so a trainer sets it back). ``positive``: the positive label of a ``tc`` model
    (default: `positive_index`)."""
    task = get_task(task).name
    runner = HfModel(model, tokenizer, batch_size, device)
    labels = [str(model.config.id2label[i]) for i in range(model.config.num_labels)]
    if task == "tc":
        if positive is not None and positive not in labels:
            raise ValueError(f"{where}: positive label {positive!r} is not one of the model's "
                             f"labels {labels}")
        index = labels.index(positive) if positive is not None else positive_index(labels, where)
        return HfScorer(runner, labels[index], index)
    return HfClassifier(runner, task, labels)


def _task(own: str | None, asked: str | None, root: Path) -> str:
    """The classification task to serve: the directory's, or the user's when it names none."""
    if asked is None and own is None:
        raise ValueError(f"{root} does not say its task (no {TASK_FILE}): name it (--task, or "
                         "load_victim(..., task=...)): nli, tc or generic")
    task = get_task(asked if asked is not None else own).name
    if own is not None and get_task(own).name != task:
        raise ValueError(f"hf victim {root} is for task {own}, not {task}")
    if get_task(task).inputs not in ("text", "pair"):
        raise ValueError(f"hf victims classify sequences (nli, tc, generic), not task {task}")
    return task


def _classifier(transformers, root: Path):
    """The sequence-classification model of ``root``, refusing bare encoders (their head would be
    random) and multi-label models (their outputs are not one distribution)."""
    try:
        config = transformers.AutoConfig.from_pretrained(root, local_files_only=True)
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(f"{root}/config.json: {e}") from None
    kinds = config.architectures or []
    if kinds and not any(k.endswith("ForSequenceClassification") for k in kinds):
        raise ValueError(f"{root} holds a {', '.join(kinds)}, not a sequence-classification "
                         "model (fine-tune one first, e.g. python -m train.victim "
                         "experiment=victim_minilm_olid)")
    if config.problem_type == "multi_label_classification":
        raise ValueError(f"{root} is a multi-label model: hf victims serve single-label ones")
    try:
        from safetensors import SafetensorError  # transformers' weights reader
    except ImportError:  # pragma: no cover - transformers requires it
        SafetensorError = OSError
    try:
        model, loading = transformers.AutoModelForSequenceClassification.from_pretrained(
            root, local_files_only=True, output_loading_info=True)
    except (OSError, ValueError, KeyError, SafetensorError) as e:  # corrupt weights: the last
        said = str(e).strip().splitlines()
        raise ValueError(f"cannot load {root} as a sequence-classification model: "
                         f"{said[0] if said else type(e).__name__}") from None
    if loading["missing_keys"]:
        raise ValueError(f"{root} has no trained weights for {', '.join(loading['missing_keys'])}"
                         ": not a fine-tuned sequence-classification model")
    return model


class HfModel:
    """A model and its tokenizer on one device: class probabilities for batches of inputs."""

    def __init__(self, model, tokenizer, batch_size: int = 32, device: str | None = None):
        torch = require_torch("an hf: victim")

        if device in (None, "auto"):
            device = "cuda" if torch.cuda.is_available() else "cpu"
        try:
            self.device = torch.device(device)
            self.model = model.to(self.device).eval()
        except (RuntimeError, AssertionError) as e:
            raise ValueError(f"cannot run the model on device {device!r}: {e}") from None
        self.tokenizer, self.batch_size = tokenizer, batch_size
        self.max_length = max_length(tokenizer, model.config)

    def probabilities(self, items: Sequence, pairs: bool) -> list[list[float]]:
        """Softmax over the labels per item; texts (or pairs) sorted by length into batches, so
        padding stays small, and returned in the order given."""
        torch = require_torch("an hf: victim")

        items = list(items)
        for item in items:
            ok = isinstance(item, str) if not pairs else (
                isinstance(item, (tuple, list)) and len(item) == 2 and
                all(isinstance(s, str) for s in item))
            if not ok:
                wanted = "(premise, hypothesis) pairs" if pairs else "texts"
                raise ValueError(f"this victim takes {wanted}, got {type(item).__name__} "
                                 f"{item!r:.60}")
        size = [sum(map(len, item)) if pairs else len(item) for item in items]
        order = sorted(range(len(items)), key=size.__getitem__)
        out: list = [None] * len(items)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                chunk = order[start:start + self.batch_size]
                texts = [items[i] for i in chunk]
                columns = ([a for a, _ in texts], [b for _, b in texts]) if pairs else (texts,)
                encoded = self.tokenizer(*columns, truncation=True, max_length=self.max_length,
                                         padding=True, return_tensors="pt").to(self.device)
                rows = self.model(**encoded).logits.float().softmax(-1).cpu().tolist()
                for i, row in zip(chunk, rows):
                    out[i] = row
        return out


def max_length(tokenizer, config) -> int:
    """The longest input the model takes: the tokenizer's limit, or the position embeddings' when
    the tokenizer sets none (transformers then reports a huge number)."""
    limit = tokenizer.model_max_length
    if limit is None or limit > 100_000:
        limit = getattr(config, "max_position_embeddings", 512)
    return int(limit)


class HfClassifier:
    """``nli``/``generic``: label names from ``predict``, their probabilities from ``scores``."""

    def __init__(self, model: HfModel, task: str, labels: Sequence[str]):
        self.model, self.task, self.labels = model, task, tuple(labels)
        self._pairs = get_task(task).inputs == "pair"

    def __repr__(self) -> str:
        return f"<hf {self.task} victim, labels {', '.join(self.labels)}>"

    def scores(self, batch: Sequence) -> list[list[float]]:
        return self.model.probabilities(batch, self._pairs)

    def predict(self, batch: Sequence) -> list[str]:
        return [self.labels[max(range(len(row)), key=row.__getitem__)]
                for row in self.scores(batch)]


class HfScorer:
    """``tc``: the positive class's probability per text from ``predict``."""

    task = "tc"

    def __init__(self, model: HfModel, positive: str, index: int):
        self.model, self.positive, self._index = model, positive, index

    def __repr__(self) -> str:
        return f"<hf tc victim, positive {self.positive}>"

    def predict(self, batch: Sequence) -> list[float]:
        return [row[self._index] for row in self.model.probabilities(batch, False)]
