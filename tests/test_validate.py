"""The ground floor's checks: counts, levels, and the one "needs PyTorch" error every part that
runs a torch model raises where torch is missing (simulated in a fresh interpreter)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from zeroe_assets.validate import LEVELS, NeedsTorch, check_int, resolve_level


def test_counts_and_levels_are_checked_with_the_parameters_name():
    assert check_int("k", 3) == 3 and resolve_level("high") == LEVELS["high"] == 0.8
    for bad in (0, True, 2.5, "3"):
        with pytest.raises(ValueError, match="k must be an integer at least 1"):
            check_int("k", bad)
    with pytest.raises(ValueError, match="phi must be in"):
        resolve_level(1.5, "phi")


def test_needs_torch_is_an_import_error_and_a_usage_error():
    assert issubclass(NeedsTorch, ImportError) and issubclass(NeedsTorch, ValueError)


WITHOUT_TORCH = """
import sys
sys.modules["torch"] = None  # `import torch` raises ImportError, as where it is not installed
from zeroe_assets.validate import NeedsTorch
def said(call):
    try:
        call()
    except NeedsTorch as e:
        return str(e)
    return "no error"
import importlib
print(said(lambda: importlib.import_module("zeroe_assets.phonetic.embedder")))
print(said(lambda: importlib.import_module("zeroe_assets.phonetic.seq2seq")))
from zeroe_assets.victims import load_victim
print(said(lambda: load_victim("pos-bilstm", "no/such/bundle")))
from zeroe_assets.cli import main
sys.exit(main(["g2p", "knight"]))
"""


def test_every_torch_part_says_the_same_without_torch():
    out = subprocess.run([sys.executable, "-c", WITHOUT_TORCH], capture_output=True, text=True)
    lines = out.stdout.splitlines()
    assert [line.split(" needs PyTorch")[0] for line in lines] == [
        "the phonetic embedder", "the G2P/P2G models", "the pos-bilstm victim"], out
    assert all("pip install torch==2.13.0" in line for line in lines)
    # the CLI: one line, the usage-error exit code, no traceback
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "needs PyTorch" in out.stderr, out.stderr
