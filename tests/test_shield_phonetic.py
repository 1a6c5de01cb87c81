"""The shield's phonetic restorer on the shipped phonetic table: respellings the attack draws map
back to their words, words outside the table are found by their sound keys, clean and odd
tokens get nothing or nothing harmful, and none of it needs torch."""
from __future__ import annotations

import subprocess
import sys

import pytest

from zeroe_assets import ZeroePerturbation, tokenize
from zeroe_assets.assets import ArtifactError
from zeroe_assets.data import stopwords
from zeroe_assets.perturbers.phonetic import PhoneticPerturber
from zeroe_assets.shield import Shield
from zeroe_assets.shield.lexicon import load_lexicon
from zeroe_assets.shield.phonetic import LIMIT, PhoneticRestorer, sound_keys

SENTENCES = ["The woman is walking her dog in the park near the river .",
             "A man plays guitar on a crowded street corner while people watch .",
             "Three children are eating breakfast together in the kitchen .",
             "The old farmer carries heavy bags of potatoes to the market ."]


@pytest.fixture(scope="module")
def restorer():
    return PhoneticRestorer(load_lexicon())


def well_formed(found: dict[str, float]) -> bool:
    """Lower-case lexicon words, confidences in (0, 1], best first, at most `LIMIT`."""
    lexicon, scores = load_lexicon(), list(found.values())
    return (len(found) <= LIMIT and all(w in lexicon and w == w.lower() for w in found)
            and all(0.0 < s <= 1.0 for s in scores) and scores == sorted(scores, reverse=True))


def test_respellings_the_attack_draws_map_back_to_their_words(restorer):
    attack = ZeroePerturbation(PhoneticPerturber(oov="off"), level=0.5)  # the table alone
    changed = 0
    for seed in range(5):
        for clean, attacked in zip(SENTENCES, attack(SENTENCES, seed=seed)):
            for a, b in zip(tokenize.split(clean)[0], tokenize.split(attacked)[0]):
                if a != b and "'" not in b:  # the shield asks about the stem: no apostrophes
                    found = restorer.candidates(b)
                    assert a.lower() in found and well_formed(found), (a, b, found)
                    changed += 1
    assert changed > 20


def test_table_rows_invert(restorer):
    assert list(restorer.candidates("nite")) == ["knight", "night"]  # both rows hold nite
    assert restorer.candidates("Wooman") == restorer.candidates("wooman")
    assert list(restorer.candidates("wooman")) == ["woman"]
    assert restorer.candidates("crow\u2019d") == restorer.candidates("crow'd")
    assert "crowd" in restorer.candidates("crow'd")


def test_function_words_are_never_candidates(restorer):
    """The attack leaves function words alone, so no token is a respelling of one."""
    skip = stopwords()
    assert not set(restorer.candidates("there")) & skip  # their's row holds there
    assert all(not set(found) & skip for found in restorer.inverse.values())


def test_words_outside_the_table_are_found_by_their_sound_key(restorer):
    assert sound_keys(["night", "nite", "phone", "fone"]) == ["NT", "NT", "FN", "FN"]
    assert "womman" not in restorer.inverse and "womman" not in load_lexicon()
    found = restorer.candidates("womman")
    assert next(iter(found)) == "woman" and well_formed(found)
    assert max(found.values()) <= 0.5  # a key match is worth less than a table entry
    assert "school" in restorer.candidates("skool")  # ch read as k


def test_clean_words_get_few_candidates(restorer):
    lexicon = load_lexicon()
    for word in ("people", "house", "water", "think"):  # dictionary words no row respells
        assert word in lexicon and restorer.candidates(word) == {}
    clean = [tokenize.stem(w)[1] for s in SENTENCES for w in tokenize.split(s)[0]]
    proposed = [len(restorer.candidates(w)) for w in clean]
    assert sum(proposed) / len(proposed) < 1.0


@pytest.mark.parametrize("token", ["", "'", "b", "4", "UN", "NASA", "é", "naïve", "ФЫВА", "123",
                                   "x" * 1_000_000, "nite" * 50, "\u200b", "a-b"])
def test_odd_tokens_give_nothing_or_well_formed_candidates(restorer, token):
    found = restorer.candidates(token)
    assert isinstance(found, dict) and well_formed(found)
    if len(token) < 2 or token.isupper() or not token.isascii() or len(token) > 30:
        assert found == {}


def test_the_shield_restores_respellings():
    shield = Shield(["phonetic"], learned=False)
    assert shield("The wooman is walking her daugue neer the rivar .") == \
        "The woman is walking her dog near the river ."
    assert shield("The UN met in NY .") == "The UN met in NY ."


def test_missing_table_is_a_clear_error(empty_artifacts):
    with pytest.raises(ArtifactError, match="phonetic"):
        PhoneticRestorer(load_lexicon(), empty_artifacts)


def test_works_with_torch_blocked():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from zeroe_assets.shield import Shield\n"
            "s = Shield(['phonetic'])\n"
            "assert s('The wooman is here .') == 'The woman is here .'\n"
            "assert 'woman' in s.restorers['phonetic'].candidates('womman')\n"
            "assert sys.modules['torch'] is None\n")
    subprocess.run([sys.executable, "-c", code], check=True)
