import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
NO_DATA = "not found: set ZEROE_DATA to the data folder"  # the reason of every data skip


def find_data(env: str | None, root: Path) -> Path:
    """The datasets: ``$ZEROE_DATA``, else ``data/`` in the checkout (conf/paths/default.yaml's
    default), else ``../shared/data`` beside the checkout, where CI puts them."""
    if env:
        return Path(env)
    found = [path for path in (root / "data", root.parent / "shared" / "data") if path.is_dir()]
    return (found or [root / "data"])[0]


DATA = find_data(os.environ.get("ZEROE_DATA"), ROOT)
if DATA.is_dir():  # the jobs' configs (paths.data_dir), the shield's natural-bb family and
    os.environ.setdefault("ZEROE_DATA", str(DATA))  # subprocesses read the variable


# compiled tables (zeroe_assets.data.compiled) go to this run's folder, not the user's cache;
# subprocesses read the variable too
_CACHE = tempfile.TemporaryDirectory(prefix="zeroe-cache-")
os.environ["ZEROE_CACHE_DIR"] = _CACHE.name


def needs_data(relative: str) -> pytest.MarkDecorator:
    """Skip the test unless ``relative`` exists in the data folder, saying how to provide it."""
    path = DATA / relative
    return pytest.mark.skipif(not path.exists(), reason=f"{path} {NO_DATA}")


def load_benchmark(name: str):
    """``benchmarks/<name>.py`` as a module (benchmarks are scripts, not a package; their own
    imports of each other resolve while it loads)."""
    folder = ROOT / "benchmarks"
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(folder))


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


def pytest_terminal_summary(terminalreporter):
    """Close with how many tests skipped for want of the datasets (``needs_data``), so that a run
    without them does not pass for a full one."""
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and NO_DATA in str(r.longrepr[2])]
    terminalreporter.write_line(f"{len(skipped)} skipped for missing datasets (data folder: "
                                f"{DATA}; set ZEROE_DATA, docs/data.md)")


@pytest.fixture
def terminated(monkeypatch):
    """The multiprocessing pools terminated in this process (the real terminate still runs):
    `parallel.worker_pool` ends without it but on Ctrl-C."""
    import multiprocessing.pool

    calls = []
    real = multiprocessing.pool.Pool.terminate
    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate",
                        lambda self: calls.append(self) or real(self))
    return calls
