import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
# The datasets: $ZEROE_DATA (CI sets it), else data/ in the checkout, as conf/paths/default.yaml.
DATA = Path(os.environ.get("ZEROE_DATA") or ROOT / "data")


def needs_data(relative: str) -> pytest.MarkDecorator:
    """Skip the test unless ``relative`` exists in the data folder, saying how to provide it."""
    path = DATA / relative
    return pytest.mark.skipif(not path.exists(),
                              reason=f"{path} not found: set ZEROE_DATA to the data folder")


def compose(name: str, overrides=()):
    """Job config ``conf/<name>.yaml`` with Hydra overrides, as ``python -m train.<name>`` sees it
    (without the ``hydra`` node: set ``out_dir`` where a job writes)."""
    from hydra import compose as hydra_compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return hydra_compose(name, overrides=list(overrides))


@pytest.fixture
def empty_artifacts(tmp_path, monkeypatch):
    """An artifact root with nothing in it: every asset-backed attacker is unavailable."""
    root = tmp_path / "artifacts"
    root.mkdir()
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(root))
    return root


def pytest_collection_modifyitems(items):
    """The tests that start Ray run last: Ray's driver threads (gRPC) outlive ``ray.shutdown()``,
    and a worker forked after them (``-j 2`` of perturb, shield, attack) can hang on a lock one of
    them held at the fork (seen once in CI, in test_shield_cli)."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/test_integrations_ray.py"))
