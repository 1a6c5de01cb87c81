"""Issue 21 on the phonetic attack: respellings a reader accepts (abbreviations, short words,
acronyms, inner capitals), sets whose fingerprint covers every component, and -j workers that
share the cores."""
import json
import os
import random
from pathlib import Path

import pytest

from zeroe_assets import ZeroePerturbation
from zeroe_assets.assets import component_available
from zeroe_assets.perturbers import phonetic
from zeroe_assets.perturbers.phonetic import MIN_LETTERS, PhoneticPerturber, _like
from zeroe_assets.protocol import Perturbation

shipped = pytest.mark.skipif(not component_available("phonetic"),
                             reason="no phonetic artifacts in the default root ($ZEROE_ARTIFACTS)")


@pytest.fixture(scope="module")
def table():
    return PhoneticPerturber(oov="off", skip_stopwords=False)


def test_inner_capitals_keep_their_place_or_the_respelling_is_not_used():
    assert _like("O'Neill", "o'neal") == "O'Neal"
    assert _like("O\u2019Neill", "o'neil") == "O\u2019Neil"
    assert _like("McDonald", "mcdonnald") == "McDonnald"
    assert _like("McDonald's", "mcdonnald's") == "McDonnald's"
    assert _like("O'Neill", "oneill") is None  # no place for the N: not a respelling of it
    assert _like("McDonald", "macdonald") is None
    assert _like("Night", "nite") == "Nite" and _like("NIGHT", "nite") == "NITE"


@shipped
def test_shipped_table_respellings_keep_the_case_pattern(table):
    assert table.forms("O'Neill") and all(f.startswith("O'N") for f in table.forms("O'Neill"))
    assert all(f.startswith("Mc") and f[2].isupper() for f in table.forms("McDonald"))
    rng = random.Random(0)
    assert {table.perturb_word("O'Neill", 1.0, rng) for _ in range(30)} <= {"O'Neil", "O'Neal"}


@shipped
def test_short_words_and_acronyms_are_not_respelled(table):
    assert table.space.options["us"] and table.space.options["tv"]  # the table has rows ...
    for word in ("us", "Us", "tv", "TV", "US", "NASA", "UK", "ok"):  # ... the policy says no
        assert not table.can_change(word) and table.candidates(word, 5, None) == []
        assert table.perturb_word(word, 1.0, random.Random(0)) == word
    assert MIN_LETTERS == 3 and table.can_change("two") and table.can_change("NIGHT")


@shipped
def test_an_abbreviation_before_a_full_stop_stays(table):
    attack = ZeroePerturbation(table, level=1.0)
    for seed in range(20):
        out = attack("Dr. Smith met Mr. Jones on Main St. at noon", seed=seed)
        assert out.startswith("Dr. ") and " Mr. " in out and " St. " in out
    assert attack("the street at noon", seed=0) != "the street at noon"


@shipped
def test_the_table_rows_visits_are_worked_out_once_per_table_and_not_shared(table):
    """Each `z.perturb(text, "phonetic")` builds a perturber: the policy over the table's 116k
    rows is worked out once per loaded table (it was 0.1 s a call), each perturber gets a copy
    of its own to add words to, and a function word is a row of no choices only where it is
    skipped."""
    phonetic._row_visits.cache_clear()
    first = PhoneticPerturber(oov="off")
    second = PhoneticPerturber(oov="off")
    assert phonetic._row_visits.cache_info().misses == 1
    assert phonetic._row_visits.cache_info().hits == 1
    first._visits["zzxqvw"]  # a word outside the table, visited and remembered by one only
    assert "zzxqvw" in first._visits and "zzxqvw" not in second._visits
    assert first._visits["night"] == table._visits["night"] and first._visits["night"][0]
    assert first._visits["the"][0] == () and table._visits["the"] == table._visit("the")


@shipped
def test_every_draw_takes_one_random_number_whatever_the_word(table):
    for word in ("night", "zzxqv", "us", "the", "NASA", "O'Neill", "2024"):
        a, b = random.Random(3), random.Random(3)
        table.perturb_word(word, 1.0, a)
        b.random()
        assert a.random() == b.random(), word


@shipped
def test_a_generated_set_is_fingerprinted_by_both_phonetic_components(monkeypatch):
    from zeroe_assets.bench import generate as gen

    both = dict(gen.asset_fingerprints(["phonetic"]))
    assert set(both) == {"phonetic", "phonetic/seq2seq"}
    assert both["phonetic/seq2seq"] != "unused" or not phonetic.oov_available()
    manifest = gen.read_manifest()
    entry = manifest["components"]["phonetic/seq2seq"]["files"]["g2p.npz"]
    entry["sha256"] = "0" * 64  # the seq2seq models were rebuilt
    monkeypatch.setattr(gen, "read_manifest", lambda *a: manifest)
    if phonetic.oov_available():
        assert dict(gen.asset_fingerprints(["phonetic"]))["phonetic/seq2seq"] != both["phonetic/seq2seq"]
    monkeypatch.setattr(gen, "oov_available", lambda: False)
    assert dict(gen.asset_fingerprints(["phonetic"]))["phonetic/seq2seq"] == "unused"
    assert gen.asset_fingerprints(["intrude"]) == ()


@shipped
def test_the_sidecar_names_the_components_and_the_oov_path(tmp_path):
    from zeroe_assets.bench import generate as gen

    path = tmp_path / "in.tsv"
    path.write_text("text\tlabel\nthe night was dark\tx\n")
    job, = gen.plan("generic", {"test": path}, ["phonetic"], ["high"], tmp_path / "out", 0)
    gen.run_job(job)
    meta = json.loads(Path(job.output + gen.SIDECAR).read_text())
    assert meta["components"] == dict(gen.asset_fingerprints(["phonetic"]))
    assert meta["phonetic_oov"] is phonetic.oov_available()


class _Threads(Perturbation):
    """Answers each sample with the worker's torch thread count."""

    def perturb(self, text, rng):
        import torch

        return str(torch.get_num_threads())


def test_workers_share_the_cores_among_them():
    pytest.importorskip("torch")
    import torch  # imported in the parent, as after a phonetic prepare

    before = torch.get_num_threads()
    got = set(_Threads().stream(["x"] * 300, seed=0, processes=2, chunksize=64))
    assert got == {str(max(1, (os.cpu_count() or 1) // 2))}
    assert torch.get_num_threads() == before  # the parent keeps its own
