"""Perturb columns of a Hugging Face ``datasets.Dataset`` or ``DatasetDict``.

The samples are the chosen columns' values in reading order (row by row, the columns in the order
given), the i-th seeded from (seed, i) as ``zeroe perturb --jsonl --field ...`` seeds the i-th
field value of its lines: the output equals the CLI's for the same seed and the same records, for
any ``num_proc`` and ``batch_size`` (a batch that starts inside a block of 64 samples first replays
the samples before it). A list-of-strings column (``tokens`` of a tagging set) is one sample per
row, its tokens joined by line breaks as the token-aligned formats do, and must keep its length.
Missing values (``None``) stay missing. Other columns and the features are untouched.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..formats import TOKEN_SEP
from ..parallel import perturb_at
from ..protocol import Perturbation
from ..rng import BLOCK, Seed, base_seed
from ..spec import get_perturbation
from ..validate import NeedsExtra

EXTRA = "pip install 'zeroe[hf]'"


def perturb_dataset(ds, spec, columns: str | Sequence[str] = "text", level="mid",
                    seed: Seed = 0, num_proc: int | None = None, batch_size: int = 1000,
                    **options):
    """``ds`` with ``columns`` perturbed by ``spec`` (a spec such as ``"keyboard-typo"``,
    built at ``level`` with perturber ``options``, or a ``Perturbation``). Each split of a
    ``DatasetDict`` is perturbed as its own file would be, from position 0."""
    try:
        import datasets
    except ImportError:
        raise NeedsExtra(f"perturb_dataset needs the datasets library: {EXTRA}") from None
    attack = spec if isinstance(spec, Perturbation) else \
        get_perturbation(spec, level=level, **options)
    columns = [columns] if isinstance(columns, str) else list(columns)
    base = base_seed(seed)
    if isinstance(ds, datasets.DatasetDict):
        return datasets.DatasetDict({split: _perturb(part, attack, columns, base, num_proc,
                                                     batch_size)
                                     for split, part in ds.items()})
    if not isinstance(ds, datasets.Dataset):
        raise ValueError(f"expected a datasets.Dataset or DatasetDict, got {type(ds).__name__}")
    return _perturb(ds, attack, columns, base, num_proc, batch_size)


def _perturb(ds, attack, columns, base, num_proc, batch_size):
    if not columns:
        raise ValueError("no columns to perturb")
    tokens = [_is_tokens(ds.features, c) for c in columns]
    if any(tokens) and not attack.token_aligned:  # it would find no word boundary to change
        raise ValueError(f"{attack.name} changes the number of tokens, so it cannot perturb the "
                         f"list column(s) {', '.join(c for c, t in zip(columns, tokens) if t)}: "
                         "use token-preserving perturbers")
    fn = _Columns(ds.select_columns(columns), attack, columns, tokens, base)
    return ds.map(fn, batched=True, batch_size=batch_size, with_indices=True,
                  input_columns=columns, num_proc=num_proc, features=ds.features,
                  desc=f"perturb ({attack.name})")


def _is_tokens(features, column: str) -> bool:
    """False for a string column, True for a list of strings; anything else is an error."""
    from datasets import LargeList, List, Value

    if column not in features:
        raise ValueError(f"no column {column!r} (have {', '.join(features)})")
    feature = features[column]
    strings = ("string", "large_string")
    if isinstance(feature, Value) and feature.dtype in strings:
        return False
    if isinstance(feature, (List, LargeList)) and isinstance(feature.feature, Value) and \
            feature.feature.dtype in strings:
        return True
    raise ValueError(f"column {column!r} is {feature}, not strings or lists of strings")


class _Columns:
    """The ``map`` function: a batch of rows at any position, perturbed as the whole stream."""

    def __init__(self, source, attack, columns, tokens, base):
        self.source, self.attack, self.columns = source, attack, columns
        self.tokens, self.base = tokens, base

    def __call__(self, *batch):
        *values, indices = batch
        if not indices:
            return dict(zip(self.columns, values))
        start = indices[0] * len(self.columns)  # position of the batch's first sample
        done = perturb_at(self.attack, self._samples(values), self.base, start,
                          self._before(indices[0], start % BLOCK))
        width = len(self.columns)
        return {c: [self._back(v, d, tok, i) for i, (v, d) in
                    enumerate(zip(column, done[j::width]), indices[0])]
                for j, (c, column, tok) in enumerate(zip(self.columns, values, self.tokens))}

    def _samples(self, values) -> list:
        """The batch's samples in reading order: row by row, the columns in order."""
        return [_sample(v, tok) for row in zip(*values) for v, tok in zip(row, self.tokens)]

    def _before(self, row: int, lead: int) -> list:
        """The ``lead`` samples before ``row``'s first, read from the dataset."""
        if not lead:
            return []
        first = row - -(-lead // len(self.columns))
        part = self.source[first:row]
        return self._samples([part[c] for c in self.columns])[-lead:]

    def _back(self, value, done, tokens: bool, row: int):
        """The perturbed sample as the column's value."""
        if not tokens:
            return done
        if done is None:  # missing or empty: as it was
            return value
        out = done.split(TOKEN_SEP)
        if len(out) != len(value):
            raise ValueError(f"row {row}: a perturbation changed the token count "
                             f"({len(value)} → {len(out)}); list columns need token-preserving "
                             "perturbers")
        return out


def _sample(value, tokens: bool):
    if value is None or not tokens:
        return value
    return TOKEN_SEP.join(value) if value else None  # an empty list: nothing to perturb
