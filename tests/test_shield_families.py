"""The other generator families the shield's ranker trains on and is measured against
(`train.shield.families`), and how the training plan draws them."""
from __future__ import annotations

import re
import string
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from train.shield import families as fam
from train.shield.data import CLEAN, FAMILY, Example, ShieldRows, perturb, plan
from zeroe_assets import tokenize
from zeroe_assets.visual.confusables import reads_as

from .conftest import needs_data

SENTENCE = "The quick brown fox jumps over the lazy dog"
TRICKY = "Well, (it's) 12 o'clock — don't panic!  Déjà vu;\tNAÏVE café-owners\nwrite: \"hello\"..."
# the families that run without $ZEROE_DATA; natural-bb gets a small typo file of its own
HERE = [name for name in fam.FAMILIES if name != fam.NATURAL]
# families whose output splits into the same gaps (they only put letters and marks into words)
SAME_GAPS = {"diacritics", "deepwordbug", "pruthi", "keyboard-any", "two-edits", "natural-bb"}
LONG = ("Several fearless travellers carefully examined ancient manuscripts discovered "
        "beneath monastery libraries during summer expeditions") * 3


@pytest.fixture(scope="module")
def typos(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("noise") / "en.natural"
    words = set(tokenize.words((SENTENCE + " " + TRICKY + " " + LONG).lower()))
    path.write_text("".join(f"{w} {w[::-1]}x {w}{w[-1]}\n" for w in sorted(words)),
                    encoding="utf-8")
    return path


def family(name: str, typos: Path) -> fam.Family:
    return fam.get_family(name, typos if name == fam.NATURAL else None)


def run(name: str, typos: Path, text: str, level: float, seed: int = 0) -> str:
    return family(name, typos).perturb(text, level, np.random.default_rng(seed))


def keeps_gaps(text: str, out: str) -> bool:
    """``out`` is ``text``'s gaps in order with something non-empty where each word was."""
    gaps = tokenize.split(text)[1]
    pattern = "(.+?)".join(re.escape(g) for g in gaps)
    return re.fullmatch(pattern, out, re.DOTALL) is not None


@pytest.mark.parametrize("name", list(fam.FAMILIES))
def test_every_family_is_deterministic_changes_text_and_keeps_the_gaps(name, typos):
    f = family(name, typos)
    assert f.name == name and f.group and f.description
    for text in (SENTENCE, TRICKY, LONG):
        assert run(name, typos, text, 0.0) == text
        once = [run(name, typos, text, 0.5, seed) for seed in range(5)]
        assert once == [run(name, typos, text, 0.5, seed) for seed in range(5)]
        assert len(set(once)) > 1  # the seed matters
        for out in once + [run(name, typos, text, 1.0)]:
            assert keeps_gaps(text, out), (name, text, out)
            if name in SAME_GAPS:
                assert tokenize.split(out)[1] == tokenize.split(text)[1]
    assert run(name, typos, SENTENCE, 1.0) != SENTENCE
    assert run(name, typos, "", 1.0) == "" and run(name, typos, " 12, 3! ", 1.0) == " 12, 3! "


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="dces, homoglyph"):
        fam.get_family("nope")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fam.FAMILIES["leet"].perturb(SENTENCE, 1.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="Generator"):
        fam.FAMILIES["leet"].perturb(SENTENCE, 0.5, 3)
    assert fam.get_family(" DCES ") is fam.FAMILIES["dces"]


@pytest.mark.parametrize("name", ["keyboard-any", "leet", "invisible"])
def test_words_are_attacked_at_the_level(name):
    words = len((LONG * 4).split())
    for level in (0.2, 0.6):
        outs = [run(name, None, LONG * 4, level, seed) for seed in range(5)]
        changed = np.mean([sum(a != b for a, b in zip(o.split(), (LONG * 4).split())) / words
                           for o in outs])
        assert abs(changed - level) < 0.06, (name, level, changed)


def same_length_changes(text: str, out: str) -> list[tuple[str, str]]:
    assert len(out) == len(text)
    return [(a, b) for a, b in zip(text, out) if a != b]


def test_dces_reads_back_by_unicode_name():
    changes = []
    for seed in range(10):
        changes += same_length_changes(SENTENCE, run("dces", None, SENTENCE, 0.6, seed))
    assert len(changes) > 50
    for a, b in changes:
        case = "CAPITAL" if a.isupper() else "SMALL"
        assert re.search(rf"\b{case} LETTER {a.upper()}\b", unicodedata.name(b)), (a, b)
        assert ord(b) < 0x10000 and not unicodedata.category(b).startswith("M")
    table = fam.dces_table()
    assert "\u0430" in table["a"] and "ⓐ" in table["a"] and "à" in table["a"]  # Cyrillic а
    assert not any(unicodedata.name(c).startswith(("CJK", "CHEROKEE", "COMBINING"))
                   for v in table.values() for c in v)


def test_homoglyph_reads_back_by_the_confusable_classes():
    changes = []
    for seed in range(10):
        changes += same_length_changes(SENTENCE, run("homoglyph", None, SENTENCE, 0.6, seed))
    assert len(changes) > 30
    assert all(a.lower() in reads_as(b) for a, b in changes), changes


def _strip_marks(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.category(c).startswith("M"))


def test_diacritics_decompose_to_the_original_letters():
    for seed in range(10):
        out = run("diacritics", None, LONG, 1.0, seed)
        assert out != LONG and _strip_marks(out) == LONG
    accented = "".join(run("diacritics", None, SENTENCE, 1.0, seed) for seed in range(10))
    assert any(unicodedata.category(c) == "Mn" for c in accented)  # an appended mark
    assert any(c.isalpha() and not c.isascii() for c in accented)  # a precomposed letter
    assert _strip_marks(run("diacritics", None, TRICKY, 1.0)) == _strip_marks(TRICKY)


def test_leet_puts_digits_and_symbols_for_letters():
    out = run("leet", None, SENTENCE, 1.0)
    changes = same_length_changes(SENTENCE, out)
    assert changes and all(b in fam.LEET[a.lower()] for a, b in changes)
    assert all(not b.isalpha() for _, b in changes)


def test_invisible_characters_are_format_characters_inside_words():
    for seed in range(5):
        out = run("invisible", None, SENTENCE, 1.0, seed)
        inserted = [c for c in out if c not in SENTENCE]
        assert inserted and all(unicodedata.category(c) == "Cf" for c in inserted)
        assert "".join(c for c in out if c not in inserted) == SENTENCE
        assert not any(f" {c}" in out or f"{c} " in out for c in inserted)  # never at an edge


def paired(text: str, out: str) -> list[tuple[str, str]]:
    before, after = tokenize.words(text), tokenize.words(out)
    assert len(before) == len(after)
    return list(zip(before, after))


def test_pruthi_keeps_the_first_and_last_letters():
    for seed in range(10):
        pairs = paired(LONG, run("pruthi", None, LONG, 1.0, seed))
        assert sum(a != b for a, b in pairs) > len(pairs) / 2
        for a, b in pairs:
            assert (a[0], a[-1]) == (b[0], b[-1]) and abs(len(a) - len(b)) <= 1
    assert run("pruthi", None, "The fox ate a bun", 1.0) == "The fox ate a bun"  # < 4 letters


def test_deepwordbug_and_keyboard_any_touch_any_position():
    firsts = lasts = 0
    for seed in range(20):
        for a, b in paired(LONG, run("deepwordbug", None, LONG, 1.0, seed)):
            assert a != b and abs(len(a) - len(b)) <= 1
        for a, b in paired(LONG, run("keyboard-any", None, LONG, 1.0, seed)):
            diff = same_length_changes(a, b)
            assert 1 <= len(diff) <= 2
            assert all(y.lower() in fam.qwerty()[x.lower()] and x.isupper() == y.isupper()
                       for x, y in diff)
            firsts, lasts = firsts + (a[0] != b[0]), lasts + (a[-1] != b[-1])
    assert firsts and lasts


def test_textbugger_bugs():
    outs = {run("textbugger", None, "monastery", 1.0, seed) for seed in range(60)}
    assert any(" " in o for o in outs)  # a space inside the word
    assert any(len(o) == 8 for o in outs)  # a deletion
    assert any(set(o) & set("0$1@3697") for o in outs)  # a look-alike
    swapped = [o for o in outs if len(o) == 9 and o.isalpha()]
    assert swapped and all(o[0] == "m" and o[-1] == "y" for o in swapped)  # inside the word


def test_ocr_misreads():
    outs = {run("ocr", None, "modern", 1.0, seed) for seed in range(40)}
    assert "rnodern" in outs and "modem" in outs
    assert run("ocr", None, "xxx", 1.0) == "xxx"
    table, source = fam.ocr_table()
    assert table["rn"] == ("m",) and source in ("own", "nlpaug/res/char/ocr/en.json")


def test_two_edits_change_words_of_five_or_more():
    for seed in range(10):
        for a, b in paired(LONG, run("two-edits", None, LONG, 1.0, seed)):
            assert a != b and abs(len(a) - len(b)) <= 2
    assert run("two-edits", None, "The fox ate a bun", 1.0) == "The fox ate a bun"


def test_natural_bb_reads_a_typo_file(typos, tmp_path, monkeypatch):
    out = run(fam.NATURAL, typos, "The quick Brown FOX", 1.0)
    table = {"the": ("ehtx", "thee"), "quick": ("kciuqx", "quickk"), "brown": ("nworbx", "brownn"),
             "fox": ("xofx", "foxx")}
    for a, b in paired("The quick Brown FOX", out):
        assert b in {tokenize.match_case(a, t) for t in table[a.lower()]}
    monkeypatch.delenv("ZEROE_DATA", raising=False)
    with pytest.raises(ValueError, match="ZEROE_DATA"):
        fam.FAMILIES[fam.NATURAL].perturb(SENTENCE, 0.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no such file"):
        fam.get_family(fam.NATURAL, tmp_path / "none").perturb(SENTENCE, 1,
                                                               np.random.default_rng(0))
    assert fam.NATURAL not in fam.available() and fam.NATURAL in fam.available(typos)


@needs_data("noise/en.natural")  # natural-bb reads $ZEROE_DATA/noise/en.natural
def test_natural_bb_with_belinkov_and_bisks_file():
    out = fam.FAMILIES[fam.NATURAL].perturb(SENTENCE, 1.0, np.random.default_rng(0))
    assert out != SENTENCE and keeps_gaps(SENTENCE, out)


NAMES = ["visual", "keyboard-typo", "intrude"]
ARGS = ([0.1, 0.5], ["paper", "reference"], 0.15, 0.1, 0.1)


def test_plan_draws_families_and_keeps_the_old_plan_without_them():
    sentences = [f"{SENTENCE} {i}" for i in range(2000)]
    old = plan(sentences, NAMES, *ARGS, seed=7)
    assert plan(sentences, NAMES, *ARGS, seed=7, families=HERE, family_share=0.0) == old
    new = plan(sentences, NAMES, *ARGS, seed=7, families=HERE, family_share=0.35)
    assert new == plan(sentences, NAMES, *ARGS, seed=7, families=HERE, family_share=0.35)
    drawn = [e for e in new if e.family is not None]
    assert abs(len(drawn) / 2000 - 0.35) < 0.03
    assert {e.attack for e in drawn} == set(HERE)
    assert all(e.spec == f"{FAMILY}{e.attack}:{e.spec.rpartition(':')[2]}" for e in drawn)
    assert {e.spec.rpartition(":")[2] for e in drawn} == {"0.1", "0.5"}
    assert all(a == b for a, b in zip(old, new) if b.family is None)  # the others are unchanged
    assert Example("x", "two-edits:0.3", "paper", 0, False).attack == "two-edits"  # a name
    assert Example("x", "family:two-edits:0.3", "paper", 0, False).family == "two-edits"
    assert Example("x", CLEAN, "paper", 0, False).family is None
    with pytest.raises(ValueError, match="at least one family"):
        plan(sentences, NAMES, *ARGS, seed=7, families=[], family_share=0.1)


def test_perturb_applies_families_from_the_examples_seed(typos):
    examples = [Example(SENTENCE, f"{FAMILY}{name}:1.0", "paper", 3, False)
                for name in fam.FAMILIES]
    out = perturb(examples, typos)
    assert out == perturb(examples, typos)
    for example, text in zip(examples, out):
        assert text == family(example.family, typos).perturb(SENTENCE, 1.0,
                                                              np.random.default_rng(3))
        assert text != SENTENCE


def test_datamodule_checks_and_fingerprints_the_families(typos, tmp_path):
    sources = {"s": {"path": str(tmp_path / "s.conllu")}}
    kwargs = dict(sources=sources, sentences=5, cache=str(tmp_path / "rows.npz"))
    with pytest.raises(ValueError, match="unknown perturbation family"):
        ShieldRows(**kwargs, families=["nope"], family_share=0.3)
    with pytest.raises(ValueError, match="at most 1"):
        ShieldRows(**kwargs, family_share=0.8)
    with pytest.raises(ValueError, match="no such file"):
        ShieldRows(**kwargs, families=[fam.NATURAL], family_share=0.3,
                   natural_typos=str(tmp_path / "none"))
    every = ShieldRows(**kwargs, family_share=0.3, natural_typos=str(typos))
    assert every.families == list(fam.FAMILIES)
    assert ShieldRows(**kwargs, family_share=0.3,
                      natural_typos=str(tmp_path / "none")).families == HERE
    assert ShieldRows(**kwargs, families=["dces"], family_share=0.0).families == []
    keys = []
    for extra in ({}, {"family_share": 0.3, "families": ["dces"]},
                  {"family_share": 0.3, "families": ["dces", "leet"]},
                  {"family_share": 0.2, "families": ["dces"]}):
        rows = ShieldRows(**kwargs, **extra)
        rows.drawn = {}
        keys.append(rows._key())
    assert len(set(keys)) == len(keys)
    assert fam.fingerprint([fam.NATURAL], typos)[fam.NATURAL]
