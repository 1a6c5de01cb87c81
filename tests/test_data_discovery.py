"""The data-backed tests find the datasets where CI puts them, and a run says how many tests
skipped for want of them (tests/conftest.py)."""
from __future__ import annotations

import os
import subprocess
import sys

from .conftest import ROOT, find_data


def test_data_folder_is_the_variable_then_the_checkout_then_beside_it(tmp_path):
    root = tmp_path / "zeroe"
    root.mkdir()
    assert find_data(None, root) == root / "data"  # nothing anywhere: the documented default
    (tmp_path / "shared" / "data").mkdir(parents=True)
    assert find_data(None, root) == tmp_path / "shared" / "data"  # CI: ../shared/data
    (root / "data").mkdir()
    assert find_data(None, root) == root / "data"
    assert find_data(str(tmp_path / "mine"), root) == tmp_path / "mine"
    assert find_data("", root) == root / "data"  # ZEROE_DATA= (empty) counts as unset


def test_the_run_ends_with_the_number_of_tests_skipped_for_data(tmp_path):
    env = {**os.environ, "ZEROE_DATA": str(tmp_path)}  # a data folder without the datasets
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_lexicon.py", "-k", "real_combilex or split_is"],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"1 skipped for missing datasets (data folder: {tmp_path};" in run.stdout
    assert "1 passed, 1 skipped" in run.stdout
