"""The benchmark tasks (paper §4.1) as objects in one registry: which files and fields a task
reads, what its victims get and return, its gold labels, its score and its chance level.

- ``pos``: CoNLL-U or token/tag files; victims tag token lists; token accuracy.
- ``nli``: SNLI-style TSV/JSONL, premise and hypothesis attacked; accuracy (gold ``-`` skipped).
- ``tc``: toxicity, Jigsaw CSV (``comment_text`` + 0/1 label columns, macro ROC-AUC over labels) or
  OLID TSV (``tweet``, ``subtask_a``: OFF positive, NOT negative, ROC-AUC); victims return scores.
  Any other label is an error naming its file and line, never a silent negative.
- ``generic``: TSV/JSONL with ``text`` and ``label``; accuracy.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .formats import FORMATS, SUFFIXES, Format, Record, header_of, is_dataset

JIGSAW_LABELS = ("toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate")
NLI_FIELDS = (("sentence1", "sentence2"), ("premise", "hypothesis"))
TEXT_FIELDS = (("comment_text",), ("tweet",), ("text",))
OLID_LABELS = {"OFF": 1, "NOT": 0}  # subtask_a, upper case as the OLID release writes it


@dataclass
class Examples:
    """Victim inputs and gold labels of one file, aligned; ``texts`` for edit distances."""

    inputs: list
    gold: list
    texts: list[list[str]]


class Task:
    """One benchmark task. Subclasses say how a record becomes (victim input, gold) and how
    predictions are scored; the defaults are single-text classification scored by accuracy.

    ``inputs``/``outputs`` name what a victim's batch items are and what it returns per item;
    ``fields`` are the attacked columns looked for in a file's header, first match wins.
    """

    name = ""
    metric = "accuracy"
    token_aligned = False  # attackers must keep the token count (paper §3.2)
    inputs = "text"  # "tokens" | "pair" | "text"
    outputs = "label"  # "tags" | "label" | "scores"
    fields: tuple[tuple[str, ...], ...] = TEXT_FIELDS

    def __repr__(self) -> str:
        return f"<task {self.name}>"

    def format_for(self, path: str | Path, fields: Sequence[str] | None = None) -> Format:
        """The reader/writer for ``path`` with the given attacked fields or the task's own."""
        path = Path(path)
        fmt = "dataset" if is_dataset(path) else SUFFIXES.get(path.suffix.lower())
        if fmt not in ("tsv", "csv", "jsonl", "dataset"):
            raise ValueError(f"{path}: task {self.name} reads .tsv, .csv or .jsonl files or "
                             "Hugging Face datasets")
        if fields:
            return FORMATS[fmt](fields)
        header = header_of(path, fmt)
        for candidate in self.fields:
            if all(f in header for f in candidate):
                return FORMATS[fmt](candidate)
        raise ValueError(self._no_fields(path, header))

    def _no_fields(self, path: Path, header: list[str]) -> str:
        names = ", ".join(f for candidate in self.fields for f in candidate)
        return f"{path}: no text column ({names}) in {header}; pass --fields"

    def examples(self, path: Path, fmt: Format) -> Examples:
        """Every labelled record of ``path``; a file with none is an error, as is a label the
        task cannot read (named by file and line, or row of a dataset)."""
        inputs, gold, texts = [], [], []
        line = 1  # of the record: the lines of those before it (their ``raw`` text) counted
        for row, record in enumerate(fmt.read(path)):
            try:
                item = self.example(record, fmt) if record.texts else None
            except ValueError as e:
                where = f"line {line}" if isinstance(record.raw, str) else f"row {row}"
                raise ValueError(f"{path}: {where}: {e}") from None
            if isinstance(record.raw, str):
                line += record.raw.count("\n")
            if item is not None:
                inputs.append(item[0])
                gold.append(item[1])
                texts.append(record.texts)
        if not inputs:
            raise ValueError(f"{path}: no labelled examples for task {self.name}")
        return Examples(inputs, gold, texts)

    def example(self, record: Record, fmt: Format) -> tuple | None:
        """(victim input, gold) of one record with texts, None when it has no usable label."""
        label = fmt.columns(record).get("label")
        return (record.texts[0], str(label)) if label is not None else None

    def score(self, gold: list, predicted: list) -> float:
        """The task's metric of ``predicted`` against ``gold``."""
        if len(gold) != len(predicted):
            raise ValueError(f"victim returned {len(predicted)} predictions for {len(gold)} "
                             "inputs")
        return self._score(gold, predicted)

    def _score(self, gold: list, predicted: list) -> float:
        return sum(g == p for g, p in zip(gold, predicted)) / len(gold)

    def chance(self, gold: list) -> float:
        """The random-guess score (paper Fig. 1's baseline): uniform over the labels seen."""
        return 1.0 / len(set(gold))


class PosTask(Task):
    """Part-of-speech tagging: one UPOS tag per token, token accuracy."""

    name = "pos"
    token_aligned = True
    inputs, outputs = "tokens", "tags"
    fields = ()  # the FORM column of token-aligned formats

    def format_for(self, path, fields=None):
        return FORMATS["conllu" if path.suffix.lower() == ".conllu" else "tags"]()

    def example(self, record, fmt):
        return fmt.tokens(record)

    def _score(self, gold, predicted):
        total = correct = 0
        for g, p in zip(gold, predicted):
            if len(p) != len(g):
                raise ValueError(f"victim returned {len(p)} tags for a {len(g)}-token sentence")
            total += len(g)
            correct += sum(a == b for a, b in zip(g, p))
        return correct / total

    def chance(self, gold):
        return 1.0 / len({t for g in gold for t in g})


class NliTask(Task):
    """Natural language inference: (premise, hypothesis) → label, accuracy."""

    name = "nli"
    inputs = "pair"
    fields = NLI_FIELDS

    def _no_fields(self, path, header):
        return f"{path}: no premise/hypothesis columns ({header}); pass --fields"

    def example(self, record, fmt):
        cols = fmt.columns(record)
        label = cols.get("gold_label", cols.get("label"))
        if label in (None, "-", ""):
            return None
        return self.pair(cols, fmt.fields), label

    @staticmethod
    def pair(cols: dict, fields: Sequence[str]) -> tuple:
        """(premise, hypothesis) from the record's columns, attacked or not (``--fields
        sentence2`` attacks the hypothesis only, the victim still needs both)."""
        for pair in (*NLI_FIELDS, tuple(fields)):  # the known names first: --fields order is free
            if len(pair) == 2 and all(f in cols for f in pair):
                return cols[pair[0]], cols[pair[1]]
        names = " or ".join("/".join(pair) for pair in NLI_FIELDS)
        raise ValueError(f"no premise/hypothesis columns ({names}, or two --fields) in columns "
                         f"{sorted(cols)}")


class ToxicityTask(Task):
    """Toxic comment classification: victims score the positive class, (macro) ROC-AUC."""

    name = "tc"
    metric = "roc_auc"
    outputs = "scores"

    def example(self, record, fmt):
        cols, text = fmt.columns(record), record.texts[0]
        if "subtask_a" in cols:
            label = cols["subtask_a"]
            if label not in OLID_LABELS:
                raise ValueError(f"subtask_a is {label!r}, not an OLID label: OFF or NOT (upper "
                                 "case, as OLID writes them)")
            return text, OLID_LABELS[label]
        labels = [c for c in JIGSAW_LABELS if c in cols]
        if labels:
            return text, [_binary(c, cols[c]) for c in labels]
        if "label" in cols:
            return text, _binary("label", cols["label"])
        raise ValueError(f"no toxicity labels (subtask_a, {', '.join(JIGSAW_LABELS)}, label) "
                         f"in columns {sorted(cols)}")

    def _score(self, gold, predicted):
        from sklearn.metrics import roc_auc_score

        return float(roc_auc_score(gold, predicted, average="macro"))

    def chance(self, gold):
        return 0.5


def _binary(column: str, value) -> int:
    """A Jigsaw-style 0/1 label (``1``, ``0.0``...); anything else is an error naming it."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = None
    if number not in (0.0, 1.0):
        raise ValueError(f"{column} is {value!r}, not a label: tc labels are 0 or 1")
    return int(number)


class GenericTask(Task):
    """Any text classification with ``text`` and ``label`` columns, accuracy."""

    name = "generic"


TASKS: dict[str, Task] = {t.name: t for t in (PosTask(), NliTask(), ToxicityTask(),
                                               GenericTask())}


def task_names() -> tuple[str, ...]:
    return tuple(TASKS)


def get_task(task: str | Task) -> Task:
    """The registered task of that name (a ``Task`` is returned as it is)."""
    if isinstance(task, Task):
        return task
    try:
        return TASKS[task]
    except (KeyError, TypeError):
        raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASKS)}") from None
