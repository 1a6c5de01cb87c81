"""The pure part of benchmarks/defender_table.py: docs/defender.md says which rows were measured
when and on which code, so rows kept from an older run are not read as today's (the run itself
is too slow for the suite)."""
from __future__ import annotations

import pytest

from .conftest import load_benchmark


@pytest.fixture(scope="module")
def defender():
    return load_benchmark("defender_table")


def row(measured=None):
    metrics = dict.fromkeys(("clean_accuracy", "accuracy_under_attack", "success_rate",
                             "queries", "perturbed_words"), 50.0)
    return {**metrics, **({"measured": measured} if measured else {})}


TODAY = {"date": "2026-12-07", "commit": "0123456789abcdef"}
ROWS = {"tfidf": row(TODAY), "tfidf 1-1 visual": row(TODAY), "tfidf 1-1 segment": row(TODAY),
        "minilm": row(),  # kept from a run before rows recorded it
        "tfidf+shield": row({"date": "2026-12-06",
                             "commit": "fedcba9876543210 (with uncommitted changes)"})}


def test_measured_names_each_run_and_its_rows(defender):
    assert defender.measured(ROWS) == [
        "2026-12-07 at `0123456` (tfidf, tfidf 1-1 ×2)",
        "an unrecorded date and commit (minilm)",
        "2026-12-06 at `fedcba9 + uncommitted changes` (tfidf+shield)"]


def test_markdown_prints_it_under_each_task(defender):
    table = {"recipe": "textfooler-zeroe", "tasks": {"tc": {
        "test": "t.tsv", "train": "tr.tsv", "attacked_examples": 2, "minilm_examples": None,
        "rows": ROWS}}}
    lines = defender.markdown(table).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Measured: "))
    paragraph = lines[start:lines.index("", start)]
    assert max(map(len, paragraph)) <= 100  # docs keep to 100 characters a line
    assert " ".join(paragraph).startswith(
        "Measured: 2026-12-07 at `0123456` (tfidf, tfidf 1-1 ×2); an unrecorded date")
