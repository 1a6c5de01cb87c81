"""perturb_dataset on small datasets built here: equal to `zeroe perturb --jsonl` whatever the
processes and batches, features and other columns kept, token lists kept aligned."""
import io
import json
import sys

import pytest

datasets = pytest.importorskip("datasets", reason="needs the datasets library: "
                                                  "pip install 'zeroe[hf]'")

from zeroe_assets import Perturbation  # noqa: E402
from zeroe_assets.cli import main  # noqa: E402
from zeroe_assets.formats import TOKEN_SEP  # noqa: E402
from zeroe_assets.integrations.hf_datasets import perturb_dataset  # noqa: E402

WORDS = "the quick brown fox jumps over a lazy dog while seven wizards quietly box".split()


def _texts(n, offset=0):
    return [" ".join(WORDS[(i + k) % len(WORDS)] for k in range(3 + i % 7)) + f" {i + offset}"
            for i in range(n)]


def _cli_jsonl(rows, fields, args, monkeypatch, capsys):
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    flags = ["--fields", ",".join(fields)] if fields else []
    assert main(["perturb", *args, "--jsonl", *flags]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_equals_the_cli_for_any_batch_size_and_processes(monkeypatch, capsys):
    ds = datasets.Dataset.from_dict({"premise": _texts(150), "hypothesis": _texts(150, 7),
                                     "label": [i % 3 for i in range(150)]})
    expected = _cli_jsonl(ds.to_list(), ["premise", "hypothesis"],
                          ["-p", "keyboard-typo", "-l", "high", "--seed", "5"], monkeypatch, capsys)
    runs = [perturb_dataset(ds, "keyboard-typo", columns=["premise", "hypothesis"], level="high",
                            seed=5, batch_size=size, num_proc=procs)
            for size, procs in ((1000, None), (7, None), (33, 2))]
    for out in runs:
        assert out.to_list() == expected
        assert out.features == ds.features
    assert sum(a != b for a, b in zip(ds["premise"], runs[0]["premise"])) > 100


def test_dataset_dict_splits_and_untouched_columns(monkeypatch, capsys):
    features = datasets.Features({"text": datasets.Value("large_string"),
                                  "id": datasets.Value("int32")})
    splits = datasets.DatasetDict({
        name: datasets.Dataset.from_dict({"text": _texts(n), "id": list(range(n))}, features)
        for name, n in (("train", 90), ("test", 20))})
    out = perturb_dataset(splits, "inner-shuffle|truncate", level=0.6, seed=2, batch_size=16)
    assert set(out) == {"train", "test"}
    for name, part in out.items():
        assert part.features == features and part["id"] == splits[name]["id"]
        expected = _cli_jsonl(splits[name].to_list(), ["text"],
                              ["-p", "inner-shuffle|truncate", "-l", "0.6", "--seed", "2"],
                              monkeypatch, capsys)
        assert part.to_list() == expected  # each split as its own file


def test_token_lists_keep_their_length_and_missing_values_stay():
    rows = {"tokens": [t.split() for t in _texts(80)] + [[], None],
            "tags": [[len(w) for w in t.split()] for t in _texts(80)] + [[], []]}
    ds = datasets.Dataset.from_dict(rows)
    one = perturb_dataset(ds, "keyboard-typo", columns="tokens",
                          level="high", seed=1, batch_size=10)
    two = perturb_dataset(ds, "keyboard-typo", columns="tokens", level="high", seed=1,
                          batch_size=1000, num_proc=2)
    assert one.to_list() == two.to_list()
    assert [len(t) for t in one["tokens"][:80]] == [len(t) for t in rows["tokens"][:80]]
    assert one["tokens"][80:] == [[], None] and one["tags"] == rows["tags"]
    assert sum(a != b for a, b in zip(one["tokens"], rows["tokens"])) > 60
    with pytest.raises(ValueError, match="token count"):
        perturb_dataset(ds, _Splits(), columns="tokens")


class _Splits(Perturbation):
    """A user's own perturbation that breaks a token in two."""

    def perturb(self, text, rng):
        return text.replace("o", "o" + TOKEN_SEP, 1)


def test_bad_columns_are_value_errors():
    ds = datasets.Dataset.from_dict({"text": ["a b"], "n": [1]})
    with pytest.raises(ValueError, match="no column 'txt'"):
        perturb_dataset(ds, "truncate", columns="txt")
    with pytest.raises(ValueError, match="not strings"):
        perturb_dataset(ds, "truncate", columns="n")
    with pytest.raises(ValueError, match="Dataset or DatasetDict"):
        perturb_dataset({"text": ["a"]}, "truncate")
