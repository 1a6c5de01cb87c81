"""Fixtures for the search attack runner's tests: OLID test tweets joined with their labels and a
``tc-tfidf`` victim trained on OLID training tweets (real data, ``ZEROE_DATA``), and victims that
go wrong after a few calls (a model server starting to return garbage, or to fail) to check
that the results written before stay intact."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import joblib
import pytest

from .conftest import DATA, needs_data

OLID = DATA / "bench" / "olid"
needs_olid = needs_data("bench/olid/olid-training-v1.0.tsv")
TWEETS = 40  # test tweets in the fixture's data file
GOOD_CALLS = 12  # victim calls a broken victim answers right before going wrong


def olid_test(out: Path, n: int | None = None) -> Path:
    """OLID's test tweets joined with their labels by id (as benchmarks/paper_grid.py does),
    the first ``n``."""
    with open(OLID / "labels-levela.csv", encoding="utf-8") as f:
        labels = dict(csv.reader(f))
    with open(OLID / "testset-levela.tsv", encoding="utf-8") as src, \
            open(out, "w", encoding="utf-8") as dst:
        next(src)
        dst.write("id\ttweet\tsubtask_a\n")
        for i, line in enumerate(src):
            if n is not None and i == n:
                break
            tid, tweet = line.rstrip("\n").split("\t")
            dst.write(f"{tid}\t{tweet}\t{labels[tid]}\n")
    return out


@pytest.fixture(scope="module")
def olid(tmp_path_factory):
    """(data file of the first test tweets, tc-tfidf model trained on 400 training tweets),
    made once per session (the modules that import this fixture share the files)."""
    from zeroe_assets.victims.sklearn import save_victim, train_victim
    from zeroe_assets.tasks import get_task

    work = tmp_path_factory.getbasetemp() / "olid"
    data, model = work / "test.tsv", work / "tc.joblib"
    if not model.exists():
        work.mkdir(exist_ok=True)
        task, train = get_task("tc"), OLID / "olid-training-v1.0.tsv"
        ex = task.examples(train, task.format_for(train))
        olid_test(data, TWEETS)
        save_victim(train_victim("tc-tfidf", ex.inputs[:400], ex.gold[:400], task="tc"), model)
    return data, model


class BrokenAfter:
    """The saved victim at ``path``, answering ``GOOD_CALLS`` calls right and then ``wrong``ly."""

    def __init__(self, path: str, wrong):
        self.victim, self.wrong, self.calls = joblib.load(path), wrong, 0
        self.task = self.victim.task

    def predict(self, batch):
        self.calls += 1
        out = self.victim.predict(batch)
        return out if self.calls <= GOOD_CALLS else self.wrong(out)


def nan_victim(path):
    return BrokenAfter(path, lambda out: [math.nan] * len(out))


def short_victim(path):
    return BrokenAfter(path, lambda out: out[:-1])


def improbable_victim(path):
    return BrokenAfter(path, lambda out: [p + 1.5 for p in out])


def _fall_over(out):
    raise RuntimeError("CUDA out of memory.\nTried to allocate 2.00 GiB")


def raising_victim(path):
    """Raises (a message of two lines) after ``GOOD_CALLS`` good calls."""
    return BrokenAfter(path, _fall_over)


class WordVictim:
    """Says 1 (offensive) for a text with the word ``idiot``, else 0: any change to the word
    flips it, so every attack on such a text succeeds."""

    task = "tc"

    def predict(self, batch):
        return [int("idiot" in str(text).split()) for text in batch]


def word_victim(path):
    return WordVictim()
