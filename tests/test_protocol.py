import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import zeroe_assets as z
import random

from zeroe_assets.perturbers.base import Perturber
from zeroe_assets.protocol import ZeroePerturbation
from zeroe_assets.validate import resolve_level
from zeroe_assets.registry import get_perturber

RULE_BASED = ["inner-shuffle", "full-shuffle", "intrude", "disemvowel", "truncate", "segment",
              "keyboard-typo", "natural-typo"]
SENTENCE = ("The quick brown fox jumps over the lazy dog, doesn't it? Naïve café 😀 שלום 𝐀𝐁𝐂 𝄞 "
            "e\u0301te\u0301.")


def expected_paper_fraction(n: int, p: float) -> float:
    """E[min(Bin(n, p), ⌈pn⌉)] / n: every word attackable, so each head perturbs one word."""
    k = math.ceil(p * n - 1e-9)
    return sum(min(i, k) * math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)) / n


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_paper_protocol_count_matches_expectation(p):
    n, samples = 12, 3000
    attacker = z.get_perturbation("truncate", level=p)
    text = " ".join(["words"] * n)
    total = 0
    for i in range(samples):
        _, changed, words = attacker.perturb_counted(text, random.Random(i))
        assert words == n and changed <= math.ceil(p * n)
        total += changed
    mean = total / (samples * n)
    expected = expected_paper_fraction(n, p)
    sd = math.sqrt(p * (1 - p) / n / samples)  # a generous bound on the standard error
    assert abs(mean - expected) < 5 * sd + 1e-3


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8, 1.0])
def test_reference_protocol_perturbs_exactly_ceil_pn(p):
    n = 11
    attacker = z.get_perturbation("truncate", level=p, protocol="reference")
    text = " ".join(["words"] * n)
    for i in range(50):
        out, changed, _ = attacker.perturb_counted(text, random.Random(i))
        assert changed == math.ceil(p * n)
        assert out.split().count("word") == changed


def test_unattackable_words_are_skipped_not_counted():
    # 4 of 10 words can be truncated: the reference protocol stops when indices run out
    text = "ab ab ab ab ab ab long long long long"
    out, changed, n = z.get_perturbation("truncate", level=0.8, protocol="reference") \
        .perturb_counted(text, random.Random(0))
    assert (changed, n) == (4, 10) and out == "ab ab ab ab ab ab lon lon lon lon"


@pytest.mark.parametrize("name", RULE_BASED + ["mischief", "rand", "intrude+keyboard-typo"])
def test_p_zero_is_byte_identity(name):
    for text in ["", "   ", SENTENCE, "\n\t", "x"]:
        assert z.perturb(text, name, level=0, seed=3) == text


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80), st.sampled_from(RULE_BASED), st.integers(0, 1000))
def test_p_zero_identity_any_text(text, name, seed):
    assert z.perturb(text, name, level=0.0, seed=seed) == text


@pytest.mark.parametrize("name", RULE_BASED)
def test_whitespace_and_empty_unchanged(name):
    for text in ["", " ", "\t \n", "... !!! 42"]:
        assert z.perturb(text, name, level=1.0, seed=0) == text


@pytest.mark.parametrize("name", ["inner-shuffle", "full-shuffle", "disemvowel", "truncate",
                                  "keyboard-typo", "natural-typo"])
def test_non_word_characters_survive(name):
    out = z.perturb(SENTENCE, name, level=1.0, seed=5)
    for piece in ["😀", " 𝄞 ", ", ", "? "]:
        assert piece in out
    assert out.count(" ") == SENTENCE.count(" ")


def test_rtl_and_combining_words_are_attacked_as_units():
    out = z.perturb("שלום עולם", "full-shuffle", level=1.0, seed=1)
    assert sorted(out) == sorted("שלום עולם") and out != "שלום עולם"
    out = z.perturb("e\u0301te\u0301s", "full-shuffle", level=1.0, seed=2)
    assert sorted(out.split("e\u0301")) == sorted("e\u0301te\u0301s".split("e\u0301")) or \
        out.count("e\u0301") == 2


def test_seeded_determinism_and_single_equals_batch():
    texts = [SENTENCE, "another line of text here", ""]
    for name in RULE_BASED:
        a = z.perturb(texts, name, level="mid", seed=11)
        assert a == z.perturb(texts, name, level="mid", seed=11)
        assert a[0] == z.perturb(texts[0], name, level="mid", seed=11)
    gen_a, gen_b = np.random.default_rng(5), np.random.default_rng(5)
    assert z.perturb(texts, "intrude", seed=gen_a) == z.perturb(texts, "intrude", seed=gen_b)


def test_stream_is_identical_across_processes():
    texts = [f"{SENTENCE} line {i}" for i in range(300)]
    attacker = z.get_perturbation("intrude+keyboard-typo|disemvowel", level="high")
    single = list(attacker.stream(texts, seed=4))
    assert single == attacker(texts, seed=4)
    assert list(attacker.stream(iter(texts), seed=4, processes=2, chunksize=7)) == single


def test_identical_output_across_interpreters_and_hash_seeds():
    code = ("import zeroe_assets as z;"
            f"print(z.perturb({SENTENCE!r}, 'rand', level='high', seed=123))")
    outs = set()
    for hash_seed in ("0", "1", "random"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                text=True, check=True).stdout)
    assert len(outs) == 1


def test_levels_and_phi():
    assert [resolve_level(x) for x in ("low", "mid", "high", "0.3", 1)] == [0.2, 0.5, 0.8, 0.3, 1.0]
    a = ZeroePerturbation(get_perturber("intrude"), level="low", phi=0.9)
    assert (a.p, a.phi) == (0.2, 0.9)
    assert ZeroePerturbation(get_perturber("intrude"), level="high").phi == 0.8


@pytest.mark.parametrize("bad", [-0.1, 1.5, "extreme", float("nan"), "2", None, True, [0.5]])
def test_bad_levels(bad):
    with pytest.raises(ValueError, match=r"low, mid, high|\[0, 1\]"):
        z.get_perturbation("truncate", level=bad)


@pytest.mark.parametrize("spec", ["nope", "intrude+", "+", "", "intrude|", "intrude:9",
                                  "intrude+nope"])
def test_bad_specs_list_valid_choices(spec):
    with pytest.raises(ValueError) as e:
        z.get_perturbation(spec)
    assert "inner-shuffle" in str(e.value) or "[0, 1]" in str(e.value)


def test_bad_options_and_protocol():
    with pytest.raises(ValueError, match="not accepted"):
        z.get_perturbation("truncate", layout="x")
    with pytest.raises(ValueError, match="protocol"):
        z.get_perturbation("truncate", protocol="other")
    with pytest.raises(ValueError, match="seed"):
        z.perturb("text", "truncate", seed="x")
    with pytest.raises(ValueError, match="str"):
        z.perturb(["ok", 3], "truncate", seed=0)
    with pytest.raises(ValueError, match="str"):
        z.perturb(None, "truncate", seed=0)
    with pytest.raises(ValueError, match="symbol"):
        z.get_perturbation("intrude", symbols=5)
    with pytest.raises(ValueError, match="min_length"):
        z.get_perturbation("inner-shuffle", min_length=3.5)
    # options given as text, as the command line passes them, take their parameter's type
    assert z.get_perturbation("inner-shuffle", min_length="4").perturber.min_length == 4


def test_composition():
    chain = z.get_perturbation("intrude:0+truncate:1.0")
    assert chain.name == "intrude+truncate"
    assert chain("hello world", seed=0) == "hell worl"
    chain = z.get_perturbation([("truncate", 1.0), ("truncate", 1.0)])
    assert chain("hello world", seed=0) == "hel wor"
    mix = z.get_perturbation("disemvowel:1|truncate:1")
    outs = set(mix(["beautiful"] * 50, seed=0))
    assert outs == {"btfl", "beautifu"}
    assert "truncate" in z.get_perturbation("rand").name


def test_aliases():
    assert z.get_perturbation("inner-swap").name == "inner-shuffle"
    assert z.get_perturbation("full-swap").name == "full-shuffle"


def test_mischief_protocol():
    m = z.get_perturbation("mischief", level=1.0, r=1.0)
    out = m("The words here are shuffled internally", seed=0)
    assert out.split()[0] == "The" and out != "The words here are shuffled internally"
    for a, b in zip(out.split(), "The words here are shuffled internally".split()):
        assert a[0] == b[0] and a[-1] == b[-1] and sorted(a) == sorted(b)
    selected = sum(x != "several words to shuffle" for x in
                   z.get_perturbation("mischief", level=0.3, r=1.0)(["several words to shuffle"] * 2000,
                                                               seed=1))
    assert abs(selected / 2000 - 0.3) < 0.04
    with pytest.raises(ValueError, match="mischief has no φ"):
        z.get_perturbation("mischief", phi=0.3)


def test_huge_line():
    text = "lorem ipsum dolor sit amet, " * 40_000  # ~1.1 MB
    out = z.perturb(text, "inner-shuffle", level="mid", seed=0)
    assert len(out) == len(text) and out != text


def test_asset_attackers_unavailable_with_clear_error(empty_artifacts):
    for name in ("visual", "phonetic"):
        assert name not in z.available_names()
        with pytest.raises(z.ArtifactError, match="train"):
            z.get_perturbation(name)
    assert "truncate" in z.available_names()


def test_the_names_before_0_2_are_gone():
    import importlib

    import zeroe_assets
    from zeroe_assets import protocol

    for module, name in ((zeroe_assets, "Attack"), (protocol, "Attacker"),
                         (zeroe_assets, "NoSuchThing")):
        assert not hasattr(module, name)
    with pytest.raises(ImportError):
        importlib.import_module("zeroe_assets.attackers")


class _Counting(Perturber):
    """A perturber that records what it was asked to prepare."""

    name = "counting"
    prepares = True

    def __init__(self):
        self.seen = []

    def can_change(self, word):
        return True

    def perturb_word(self, word, phi, rng):
        return word.upper()

    def prepare(self, words):
        self.seen.append(sorted(words))
        return len(self.seen[-1])


def test_prepare_is_forwarded_through_chains_and_mixes():
    from zeroe_assets import Chain, Mix

    inner, plain = _Counting(), ZeroePerturbation(get_perturber("truncate"))
    texts = ["one two", "two three"]
    for attack in (Chain([plain, ZeroePerturbation(inner)]),
                   Mix([plain, Chain([plain, ZeroePerturbation(inner)])])):
        assert attack.prepares
        assert attack.prepare(iter(texts)) == 3
    assert inner.seen == [["one", "three", "two"]] * 2
    assert not Chain([plain, plain]).prepares and Chain([plain]).prepare(texts) == 0


# --- protocol="reference": what the original code did --------------------------------------

def test_reference_counts_its_target_over_nltk_tokens():
    text = "Mountains shouldn't tremble, rivers wouldn't freeze."  # 6 words, 10 nltk tokens
    for seed in range(20):
        paper = ZeroePerturbation(get_perturber("truncate"), level=0.5, protocol="paper")
        ref = ZeroePerturbation(get_perturber("truncate"), level=0.5, protocol="reference")
        assert ref.perturb_counted(text, random.Random(seed))[1] == 5  # ⌈0.5 · 10⌉
        assert paper.perturb_counted(text, random.Random(seed))[1] <= 3  # ⌈0.5 · 6⌉


def test_reference_keyboard_changes_one_lower_case_letter_per_word():
    attack = ZeroePerturbation(get_perturber("keyboard-typo"), level=1.0, protocol="reference")
    text = "Typing QUICKLY makes Keyboards produce many Different Errors everywhere"
    for seed in range(30):
        out = attack(text, seed=seed)
        for before, after in zip(text.split(), out.split()):
            diff = [(a, b) for a, b in zip(before, after) if a != b]
            if before.isupper():
                assert after == before  # no lower-case letter: untouched
            else:
                assert len(diff) == 1 and diff[0][0].islower(), (before, after)


def test_reference_segment_joins_each_boundary_on_its_own():
    attack = ZeroePerturbation(get_perturber("segment"), level=0.05, protocol="reference")
    text = " ".join(["word"] * 21)  # 20 boundaries
    outs = [attack(text, seed=s) for s in range(400)]
    joined = [20 - o.count(" ") for o in outs]
    untouched = sum(j == 0 for j in joined) / len(outs)
    assert 0.25 < untouched < 0.45  # (1 - 0.05)^20 = 0.36; the word protocol joins every time
    assert abs(sum(joined) / (20 * len(outs)) - 0.05) < 0.01  # each boundary with p


def test_reference_visual_touches_words_outside_any_target_count():
    if "visual" not in z.available_names():
        pytest.skip("the visual assets are not built here")
    attack = z.get_perturbation("visual", level=0.2, protocol="reference")
    text = " ".join(["letters"] * 50)
    changed = [sum(a != b for a, b in zip(text.split(), attack(text, seed=s).split()))
               for s in range(10)]
    assert min(changed) > math.ceil(0.2 * 50)  # 1 - 0.8^7 ≈ 0.79 of the words, not ⌈p·n⌉


CLITICS = st.sampled_from(["n't", "'s", "'re", "'ve", "'ll", "'d", "'m", "’s", "N'T", ""])
HEADS = st.sampled_from(["", "O'", "l’", "d'", "y'"])


@settings(max_examples=60, deadline=None)
@given(HEADS, st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJK", min_size=1, max_size=12),
       CLITICS, st.integers(0, 2**16))
def test_apostrophes_and_clitics_stay_in_place_under_the_attackers_of_stems(head, body, clitic,
                                                                            seed):
    from zeroe_assets.registry import perturber_class
    from zeroe_assets.tokenize import stem

    word = head + body + clitic
    if "'" not in word and "’" not in word:
        return
    head, _, clitic = stem(word)  # what stays: every apostrophe, the clitic, the shorter parts
    for name in z.available_names():
        if perturber_class(name).whole_words:
            continue  # visual: test_visual_replaces_apostrophes_and_clitics_too
        for protocol in z.PROTOCOLS:
            options = {"oov": "off"} if name == "phonetic" else {}
            out = z.perturb(word, name, level=1.0, seed=seed, protocol=protocol, **options)
            assert out.startswith(head) and out.endswith(clitic), (name, protocol, word, out)


class _Upper(Perturber):
    """Upper-cases a whole word: a perturber that declares ``whole_words``."""

    name = "upper"
    whole_words = True

    def can_change(self, word):
        return word != word.upper()

    def perturb_word(self, word, phi, rng):
        return word.upper()


def test_a_perturber_of_whole_words_sees_apostrophes_and_clitics():
    attack = ZeroePerturbation(_Upper(), level=1.0)
    assert attack("n't don't l’homme O'Brien's", seed=0) == "N'T DON'T L’HOMME O'BRIEN'S"
    _Upper.whole_words = False  # the rule of the other perturbers, on the same one
    try:
        assert ZeroePerturbation(_Upper(), level=1.0)("n't don't l’homme O'Brien's", seed=0) \
            == "n't DOn't l’HOMME O'BRIEN's"
    finally:
        _Upper.whole_words = True


@pytest.mark.parametrize("protocol", ["paper", "reference"])
def test_visual_replaces_apostrophes_and_clitics_too(protocol):
    """The paper and the original code replace every character of the text with φ: the letters
    of a clitic, a token that is only a clitic (pre-tokenized ``n't``) and the apostrophe
    itself are in reach, as the table has look-alikes for them."""
    if "visual" not in z.available_names():
        pytest.skip("the visual assets are not built here")
    text = "n't don't l’homme"
    attack = z.get_perturbation("visual", level=1.0, protocol=protocol)  # φ = 1: every one
    outs = [attack(text, seed=s) for s in range(20)]
    assert all(out.split(" ")[0] != "n't" for out in outs)
    assert all(any(out[i] != ch for out in outs) for i, ch in enumerate(text) if ch != " ")


def test_mischief_keeps_clitics():
    text = "Shouldn't Egypt's scientists've wondered"
    out = z.perturb(text, "mischief", level=1.0, r=1.0, seed=4)
    assert out.split()[0].endswith("n't") and out.split()[1].endswith("'s") and \
        out.split()[2].endswith("'ve")


@pytest.mark.parametrize("name", [n for n in z.available_names() if n not in ("segment", "visual")])
def test_reference_changes_exactly_its_target_or_every_changeable_word(name):
    from zeroe_assets.tokenize import stem, treebank_count, words

    text = ("Their beautiful neighbours definitely received seventeen interesting letters, "
            "didn't they? Researchers weren't surprised; the government's officials believed it.")
    options = {"oov": "off"} if name == "phonetic" else {}
    perturber = get_perturber(name, **options)
    changeable = sum(perturber.can_change(stem(w)[1]) for w in words(text))
    for level in (0.2, 0.5, 0.8):
        target = math.ceil(level * treebank_count(text) - 1e-9)
        attack = ZeroePerturbation(perturber, level=level, protocol="reference")
        for seed in range(5):
            _, changed, _ = attack.perturb_counted(text, random.Random(seed))
            assert changed == min(target, changeable), (name, level, seed)


def test_phonetic_respells_the_stem_of_table_words_with_clitics():
    if "phonetic" not in z.available_names():
        pytest.skip("the phonetic assets are not built here")
    text = "they're teacher's you'll O'Neill's"
    for seed in range(10):
        out = z.perturb(text, "phonetic", level=1.0, seed=seed, skip_stopwords=False, oov="off")
        assert [w.endswith(c) for w, c in zip(out.split(), ("'re", "'s", "'ll", "'s"))] == \
            [True] * 4, out
        assert out.split()[3].startswith("O'"), out


@pytest.mark.parametrize("protocol", ["paper", "reference"])
def test_looking_up_rows_draws_as_perturb_word_does(protocol):
    """natural-typo declares ``row``: the protocol draws from each spelling's row itself, which
    must give what a call of ``perturb_word`` per visit gives, apostrophes and clitics included."""
    text = ("Their beautiful neighbours definitely recieved seventeen intresting letters, didn't "
            "they? Goverment's officials BELIEVED it; Wich wasn't Beleived. ") * 3
    fast = ZeroePerturbation(get_perturber("natural-typo"), level="high", protocol=protocol)
    slow = ZeroePerturbation(get_perturber("natural-typo"), level="high", protocol=protocol)
    assert fast._rows is not None
    slow._rows = None  # every visit through perturb_word
    for seed in range(30):
        a, b = random.Random(seed), random.Random(seed)
        assert fast.perturb(text, a) == slow.perturb(text, b)
        assert a.random() == b.random()  # and the same number of draws


@pytest.mark.parametrize("level, phi", [("high", None), (0.5, 0.1), (1.0, 1.0), (0.5, 0.0)])
def test_looking_up_slots_draws_as_perturb_word_does(level, phi):
    """keyboard-typo declares ``slots``: the protocol flips the coins and draws the keys of each
    spelling's slots itself, which must give what a call of ``perturb_word`` per visit gives,
    apostrophes, clitics, capitals, accents and keyless words included."""
    text = ("Their beautiful neighbours definitely recieved seventeen intresting letters, didn't "
            "they? O'Brien's officials BELIEVED it; naïve CAFÉ 😀 a I 'tis l’homme. ") * 3
    fast = ZeroePerturbation(get_perturber("keyboard-typo"), level=level, phi=phi)
    slow = ZeroePerturbation(get_perturber("keyboard-typo"), level=level, phi=phi)
    assert fast._plans is not None
    slow._plans = None  # every visit through perturb_word
    for seed in range(30):
        a, b = random.Random(seed), random.Random(seed)
        assert fast.perturb(text, a) == slow.perturb(text, b)
        assert a.random() == b.random()  # and the same number of draws
    reference = ZeroePerturbation(get_perturber("keyboard-typo"), protocol="reference")
    assert reference._plans is None  # the original changed one letter: reference_word
