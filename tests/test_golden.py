"""Golden outputs: for a fixed corpus and seed, every attacker's output stays byte-identical
across refactors. ``python -m tests.test_golden`` rewrites the file after an intended change
(say which in the commit)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import zeroe_assets as z

HERE = Path(__file__).parent / "fixtures" / "golden"
CORPUS = HERE / "corpus.txt"
GOLDEN = HERE / "outputs.json"
SEED = 20
HAS_TORCH = importlib.util.find_spec("torch") is not None


def configs() -> dict[str, dict]:
    """name -> keyword arguments of ``zeroe_assets.perturb``."""
    out = {}
    for name in z.available_names():
        for protocol in z.PROTOCOLS:
            for level in ("low", "high"):
                options = {"oov": "off"} if name == "phonetic" else {}
                out[f"{name}:{level}:{protocol}"] = dict(spec=name, level=level,
                                                         protocol=protocol, **options)
    if "phonetic" in z.available_names():
        out["phonetic:mid:paper:oov"] = dict(spec="phonetic", level="mid")
    out.update({
        "mischief:low": dict(spec="mischief", level="low"),
        "mischief:high": dict(spec="mischief", level="high"),
        "intrude+keyboard-typo:mid": dict(spec="intrude+keyboard-typo", level="mid"),
        "disemvowel|truncate|segment:mid": dict(spec="disemvowel|truncate|segment",
                                                level="mid"),
        "inner-shuffle:0.3,phi=0.9": dict(spec="inner-shuffle", level=0.3, phi=0.9),
    })
    return out


def lines() -> list[str]:
    return CORPUS.read_text(encoding="utf-8").split("\n")


def outputs() -> dict[str, list[str]]:
    texts = lines()
    return {key: z.perturb(texts, seed=SEED, **kwargs) for key, kwargs in configs().items()}


def _needs_torch(key: str) -> bool:
    return key.endswith(":oov")


@pytest.fixture(scope="module")
def golden() -> dict[str, list[str]]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("key", sorted(configs()))
def test_output_is_byte_identical_to_the_golden_file(golden, key):
    if _needs_torch(key) and not HAS_TORCH:
        pytest.skip("the phonetic out-of-vocabulary path needs torch")
    kwargs = configs()[key]
    assert z.perturb(lines(), seed=SEED, **kwargs) == golden[key]


def test_every_golden_entry_is_still_checked(golden):
    assert set(golden) == set(configs())


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(outputs(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
