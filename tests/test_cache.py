"""The perturbers' per-spelling caches (`zeroe_assets.perturbers._cache`) change speed, never
results: a perturber gives the same output with its caches cold, warm, starting over at every
word, and after a trip through pickle (how a spawned worker gets it)."""
import pickle

import pytest

import zeroe_assets as z
from zeroe_assets.perturbers._cache import PerWord

from .test_golden import lines

OPTIONS = {"phonetic": {"oov": "off"}}


def test_a_word_is_built_once_and_the_cache_starts_over_at_its_limit():
    built = []
    cache = PerWord(lambda word: built.append(word) or word.upper(), limit=2)
    assert [cache[w] for w in ("ab", "ab", "cd", "ab")] == ["AB", "AB", "CD", "AB"]
    assert built == ["ab", "cd"]
    assert cache["ef"] == "EF" and len(cache) == 1  # full: emptied before "ef" went in
    assert built == ["ab", "cd", "ef"]


def _caches(attack) -> list[PerWord]:
    return [v for v in vars(attack.perturber).values() if isinstance(v, PerWord)]


@pytest.mark.parametrize("name", z.available_names())
@pytest.mark.parametrize("protocol", z.PROTOCOLS)
def test_caches_never_change_an_output(name, protocol):
    texts = lines() * 2  # every spelling comes back once its entries are in the caches

    def attack():
        return z.get_perturbation(name, level="high", protocol=protocol,
                                  **OPTIONS.get(name, {}))

    cold = attack()
    expected = cold(texts, seed=4)
    assert cold(texts, seed=4) == expected  # warm
    forgetful = attack()
    for cache in _caches(forgetful):
        cache.limit = 1  # starts over at every new spelling
    assert forgetful(texts, seed=4) == expected
    assert pickle.loads(pickle.dumps(cold))(texts, seed=4) == expected

