from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def empty_artifacts(tmp_path, monkeypatch):
    """An artifact root with nothing in it: every asset-backed attacker is unavailable."""
    root = tmp_path / "artifacts"
    root.mkdir()
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(root))
    return root
