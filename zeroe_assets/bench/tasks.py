"""The benchmark tasks (paper §4.1): which format and fields, what the gold labels are, how to score.

- ``pos``: CoNLL-U or token/tag files; victims tag token lists; token accuracy.
- ``nli``: SNLI-style TSV/JSONL, premise and hypothesis attacked; accuracy (gold ``-`` skipped).
- ``tc``: toxicity, Jigsaw CSV (``comment_text`` + 0/1 label columns, macro ROC-AUC over labels) or
  OLID TSV (``tweet``, ``subtask_a`` with OFF as positive, ROC-AUC); victims return scores.
- ``generic``: TSV/JSONL with ``text`` and ``label``; accuracy.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .formats import FORMATS, SUFFIXES, Format, Record, header_of

TASKS = ("pos", "nli", "tc", "generic")
JIGSAW_LABELS = ("toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate")
NLI_FIELDS = (("sentence1", "sentence2"), ("premise", "hypothesis"))
OLID_POSITIVE = "OFF"


def check_task(task: str) -> str:
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    return task


def format_for(task: str, path: Path, fields: Sequence[str] | None = None) -> Format:
    """The reader/writer for ``path`` under ``task`` with the task's default attacked fields."""
    check_task(task)
    suffix = path.suffix.lower()
    if task == "pos":
        return FORMATS["conllu" if suffix == ".conllu" else "tags"]()
    fmt = SUFFIXES.get(suffix)
    if fmt not in ("tsv", "csv", "jsonl"):
        raise ValueError(f"{path}: task {task} reads .tsv, .csv or .jsonl files")
    if fields:
        return FORMATS[fmt](fields)
    header = header_of(path, fmt)
    if task == "nli":
        for pair in NLI_FIELDS:
            if all(f in header for f in pair):
                return FORMATS[fmt](pair)
        raise ValueError(f"{path}: no premise/hypothesis columns ({header}); pass --fields")
    for candidate in ("comment_text", "tweet", "text"):
        if candidate in header:
            return FORMATS[fmt]([candidate])
    raise ValueError(f"{path}: no text column (comment_text, tweet, text) in {header}; "
                     "pass --fields")


@dataclass
class Examples:
    """Victim inputs and gold labels of one file, aligned; ``texts`` for edit distances."""

    inputs: list
    gold: list
    texts: list[list[str]]


def examples(task: str, path: Path, fmt: Format) -> Examples:
    inputs, gold, texts = [], [], []
    for record in fmt.read(path):
        item = _example(task, record, fmt)
        if item is not None:
            inputs.append(item[0])
            gold.append(item[1])
            texts.append(record.texts)
    if not inputs:
        raise ValueError(f"{path}: no labelled examples for task {task}")
    return Examples(inputs, gold, texts)


def _example(task: str, record: Record, fmt: Format):
    if not record.texts:
        return None
    if task == "pos":
        forms, tags = fmt.tokens(record)
        return forms, tags
    cols = fmt.columns(record)
    if task == "nli":
        label = cols.get("gold_label", cols.get("label"))
        if label in (None, "-", ""):
            return None
        return _nli_pair(cols, fmt.fields), label
    if task == "tc":
        if "subtask_a" in cols:
            return record.texts[0], int(cols["subtask_a"] == OLID_POSITIVE)
        labels = [c for c in JIGSAW_LABELS if c in cols]
        if labels:
            return record.texts[0], [int(float(cols[c])) for c in labels]
        if "label" in cols:
            return record.texts[0], int(float(cols["label"]))
        raise ValueError(f"no toxicity labels (subtask_a, {', '.join(JIGSAW_LABELS)}, label) "
                         f"in columns {sorted(cols)}")
    label = cols.get("label")
    return (record.texts[0], str(label)) if label is not None else None


def _nli_pair(cols: dict, fields: Sequence[str]) -> tuple:
    """(premise, hypothesis) from the record's columns, attacked or not (``--fields sentence2``
    attacks the hypothesis only, the victim still needs both)."""
    for pair in (*NLI_FIELDS, tuple(fields)):  # the known names first: --fields order is free
        if len(pair) == 2 and all(f in cols for f in pair):
            return cols[pair[0]], cols[pair[1]]
    names = " or ".join("/".join(pair) for pair in NLI_FIELDS)
    raise ValueError(f"no premise/hypothesis columns ({names}, or two --fields) in columns "
                     f"{sorted(cols)}")


def score(task: str, gold: list, predicted: list) -> float:
    """POS token accuracy, NLI/generic accuracy, toxicity (macro) ROC-AUC."""
    if len(gold) != len(predicted):
        raise ValueError(f"victim returned {len(predicted)} predictions for {len(gold)} inputs")
    if task == "pos":
        total = correct = 0
        for g, p in zip(gold, predicted):
            if len(p) != len(g):
                raise ValueError(f"victim returned {len(p)} tags for a {len(g)}-token sentence")
            total += len(g)
            correct += sum(a == b for a, b in zip(g, p))
        return correct / total
    if task == "tc":
        from sklearn.metrics import roc_auc_score

        return float(roc_auc_score(gold, predicted, average="macro"))
    return sum(g == p for g, p in zip(gold, predicted)) / len(gold)


def chance(task: str, gold: list) -> float:
    """The random-guess score (paper Fig. 1's baseline): uniform over labels, AUC 0.5."""
    if task == "tc":
        return 0.5
    labels = {t for g in gold for t in g} if task == "pos" else set(gold)
    return 1.0 / len(labels)

