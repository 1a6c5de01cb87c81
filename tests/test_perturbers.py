import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from zeroe_assets import get_perturbation
from zeroe_assets.perturbers._sampling import at_least_one, none_came_up
from zeroe_assets.perturbers.disemvowel import DisemvowelPerturber
from zeroe_assets.perturbers.intrude import SYMBOLS, IntrudePerturber
from zeroe_assets.perturbers.keyboard import KeyboardPerturber
from zeroe_assets.perturbers.natural import NaturalPerturber
from zeroe_assets.tokenize import match_case
from zeroe_assets.perturbers.segment import SegmentPerturber
from zeroe_assets.perturbers.shuffle import FullShufflePerturber, InnerShufflePerturber
from zeroe_assets.perturbers.truncate import TruncatePerturber
from zeroe_assets.tokenize import clusters, words

from .conftest import DATA, needs_data

letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüß", min_size=1,
                  max_size=15)
PHIS = st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0])


@settings(max_examples=200, deadline=None)
@given(letters, st.integers(0, 2**32))
def test_inner_shuffle_keeps_ends_and_multiset_and_changes(word, seed):
    p = InnerShufflePerturber()
    out = p.perturb_word(word, 0.5, random.Random(seed))
    assert Counter(out) == Counter(word)
    if len(word) >= 3:
        assert out[0] == word[0] and out[-1] == word[-1]
    can_change = len(word) >= 3 and len(set(word[1:-1])) > 1
    assert (out != word) == can_change
    assert p.can_change(word) == can_change


@settings(max_examples=200, deadline=None)
@given(letters, st.integers(0, 2**32))
def test_full_shuffle_keeps_multiset_and_changes(word, seed):
    out = FullShufflePerturber().perturb_word(word, 0.5, random.Random(seed))
    assert Counter(out) == Counter(word)
    assert (out != word) == (len(set(word)) > 1)


def test_shuffle_moves_accents_with_their_letters():
    word = "re\u0301sume\u0301s"
    for seed in range(20):
        out = InnerShufflePerturber().perturb_word(word, 0.5, random.Random(seed))
        assert sorted(clusters(out)) == sorted(clusters(word))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=15), PHIS,
       st.integers(0, 2**32))
def test_intrude_inserts_one_repeated_symbol(word, phi, seed):
    out = IntrudePerturber().perturb_word(word, phi, random.Random(seed))
    if len(word) < 3:
        assert out == word
        return
    inserted = set(out) - set(word)
    assert len(inserted) == 1 and inserted <= set(SYMBOLS)
    symbol = inserted.pop()
    assert out.replace(symbol, "") == word
    n = out.count(symbol)
    assert 1 <= n <= len(word) - 1
    assert out[0] != symbol and out[-1] != symbol
    if phi == 1.0:
        assert n == len(word) - 1


def test_intrude_rate_follows_phi():
    rng = random.Random(0)
    word = "abcdefghijk"  # 10 gaps
    for phi in (0.2, 0.5, 0.8):
        counts = []
        for _ in range(3000):
            out = IntrudePerturber().perturb_word(word, phi, rng)
            counts.append(len(out) - len(word))
        # E[#insertions | >= 1] = 10 φ / (1 - (1-φ)^10)
        expected = 10 * phi / (1 - (1 - phi) ** 10)
        assert abs(sum(counts) / len(counts) - expected) < 0.15


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30), PHIS, st.integers(0, 2**32))
def test_at_least_one(n, phi, seed):
    chosen = at_least_one(n, phi, random.Random(seed))
    assert chosen and chosen == sorted(set(chosen)) and all(0 <= j < n for j in chosen)
    if phi == 1.0:
        assert chosen == list(range(n))
    if phi == 0.0:
        assert len(chosen) == 1


def test_can_change_counts_perceived_letters():
    import unicodedata

    from zeroe_assets.registry import get_perturber

    two = unicodedata.normalize("NFD", "한국")  # two syllables, six code points
    for name in ("intrude", "truncate", "inner-shuffle", "disemvowel"):
        assert not get_perturber(name).can_change(two), name


def test_at_least_one_tiny_phi_is_uniform_not_first():
    firsts = [at_least_one(10, 1e-17, random.Random(seed))[0] for seed in range(2000)]
    assert len(set(firsts)) == 10 and max(map(firsts.count, set(firsts))) < 300


def test_disemvowel_rules():
    p = DisemvowelPerturber()
    assert p.perturb_word("Beautiful", 0.5, None) == "Btfl"
    assert p.perturb_word("AUDIO", 0.5, None) == "D"
    assert p.perturb_word("the", 0.5, None) == "the"  # length <= 3 skipped
    assert p.perturb_word("aeiou", 0.5, None) == "aeiou"  # all vowels skipped
    assert p.perturb_word("rhythm", 0.5, None) == "rhythm"
    assert not p.can_change("aeiou") and not p.can_change("the") and not p.can_change("rhythm")
    assert p.can_change("word")
    # lengths are user-perceived: decomposed "âme" has three letters, like composed "âme"
    assert p.perturb_word("a\u0302me", 0.5, None) == "a\u0302me" and not p.can_change("a\u0302me")


def test_truncate_rules():
    p = TruncatePerturber()
    assert p.perturb_word("word", 0.5, None) == "wor"
    assert p.perturb_word("abc", 0.5, None) == "ab"
    assert p.perturb_word("ab", 0.5, None) == "ab"
    assert p.perturb_word("cafe\u0301", 0.5, None) == "caf"  # the accent goes with its letter


@settings(max_examples=200, deadline=None)
@given(letters, PHIS, st.integers(0, 2**32))
def test_keyboard_replaces_with_neighbours_and_keeps_case(word, phi, seed):
    p = KeyboardPerturber()
    out = p.perturb_word(word, phi, random.Random(seed))
    assert len(out) == len(word)
    diffs = [(a, b) for a, b in zip(word, out) if a != b]
    if not p.can_change(word):
        assert out == word
        return
    assert diffs or all(len(p.neighbours[c.lower()]) == 0 for c in word if c.lower() in p.neighbours)
    for a, b in diffs:
        assert b.lower() in p.neighbours[a.lower()]
        assert a.isupper() == b.isupper()


def test_keyboard_layout_is_data(tmp_path):
    layout = tmp_path / "abc.key"
    layout.write_text("a b\nb a\n")
    p = KeyboardPerturber(layout=layout)
    assert p.perturb_word("AAA", 1.0, random.Random(0)) == "BBB"
    bad = tmp_path / "bad.key"
    bad.write_text("ab cd\n")
    with pytest.raises(ValueError, match="bad.key:1"):
        KeyboardPerturber(layout=bad)
    with pytest.raises(ValueError, match="no such file"):
        KeyboardPerturber(layout=tmp_path / "missing.key")


def test_natural_typos_from_codespell_keep_case():
    p = NaturalPerturber()
    assert len(p.typos) > 10_000
    assert p.can_change("because") and not p.can_change("xqzv")
    rng = random.Random(0)
    assert p.perturb_word("because", 0.5, rng) in p.typos["because"]
    out = p.perturb_word("Because", 0.5, rng)
    assert out[0] == "B" and out.lower() in p.typos["because"]
    assert p.perturb_word("BECAUSE", 0.5, rng).isupper()
    assert match_case("Word", "wxrd") == "Wxrd" and match_case("WORD", "wxrd") == "WXRD"


def test_natural_typos_from_belinkov_bisk_format(tmp_path):
    path = tmp_path / "en.natural"
    path.write_text("luck lock Lucke\nthe teh\n")
    p = NaturalPerturber(source=path)
    assert set(p.typos["luck"]) == {"lock", "lucke"}
    assert p.perturb_word("The", 0.5, random.Random(0)) == "Teh"


def test_natural_typos_from_codespell_format_in_file_order(tmp_path):
    # codespell's `wrong->right` lines, inverted: one single-word correction only (a list of
    # corrections, a phrase or an empty one is left out), a trailing comma dropped, everything
    # lower-cased, repeats and the word itself dropped; rows and their typos in the file's order
    path = tmp_path / "dictionary.txt"
    path.write_text("# a comment\n\nteh->the\nrecieve->receive\nTHe->the\n"
                    "  hte->The,\nthe->the\nself->self\nabotu->about, abort,\n"
                    "a lot->alot\nalot->a lot\nnone->\nteh->the\nluck lock lucke\n"
                    "recieve->receive\n")
    typos = NaturalPerturber(source=path).typos
    assert typos == {"the": ("teh", "hte"), "receive": ("recieve",), "luck": ("lock", "lucke")}
    assert list(typos) == ["the", "receive", "luck"]
    bad = tmp_path / "bad.txt"
    bad.write_text("teh->the\nlonely\n")
    with pytest.raises(ValueError, match="bad.txt:2"):
        NaturalPerturber(source=bad)


@needs_data("noise/en.natural")
def test_natural_typos_real_en_natural():
    p = NaturalPerturber(source=DATA / "noise/en.natural")
    assert len(p.typos) > 10_000 and "luck" in p.typos


def test_segment_joins_runs_with_decaying_probability():
    p = SegmentPerturber()
    words, gaps = ["a", "b", "c", "d"], ["", " ", ", ", " ", "."]
    done = bytearray(4)
    changed = p.attack_at(words, gaps, 0, 0.0, random.Random(0), done)
    assert changed == [0, 1] and gaps == ["", "", ", ", " ", "."]  # φ² = 0: one join only
    words, gaps = ["a", "b", "c", "d"], ["", " ", " ", " ", ""]
    assert p.attack_at(words, gaps, 0, 1.0, random.Random(0), bytearray(4)) == [0, 1, 2, 3]
    assert "".join(gaps) == ""
    # never across a line break, never into a word that is already joined
    for brk in ("\n", "\r\n", " \u2028", "\u2029", "\x85", "\x0b", "\x0c"):
        assert p.attack_at(["a", "b"], ["", brk, ""], 0, 1.0, random.Random(0), bytearray(2)) == []
    assert p.attack_at(["a", "b"], ["", " ", ""], 0, 1.0, random.Random(0), bytearray(b"\0\1")) == []


# --- can_change and candidates: the seams search attacks enumerate --------------------------

def _word_local():
    """Every perturber that changes one word at a time (segment joins words: context only)."""
    return [InnerShufflePerturber(), FullShufflePerturber(), IntrudePerturber(),
            DisemvowelPerturber(), TruncatePerturber(), KeyboardPerturber(), NaturalPerturber()]


WORDS = ["the", "The", "THE", "a", "ab", "aab", "abc", "aaa", "eee", "ooo", "queue", "rhythm",
         "e\u0301aa", "e\u0301e\u0301", "cafe\u0301", "naïve", "Straße", "don't", "l’homme",
         "1st", "x2", "Привет", "שלום", "𝐛𝐨𝐥𝐝", "한국어", "\u1112\u1161\u11ab", "Ab", "AB", "aA",
         "receive", "RECEIVE", "Receive", "definitely", "xyzzy", "Q", "ǅungla"]
any_words = st.one_of(st.sampled_from(WORDS),
                      st.text(st.characters(blacklist_categories=("Cs",)), min_size=1,
                              max_size=8).map(lambda s: "".join(words(s)[:1]) or "a"))


@settings(max_examples=300, deadline=None)
@given(any_words, st.integers(0, 2**32))
def test_can_change_agrees_with_perturb_word(word, seed):
    rng = random.Random(seed)
    for p in _word_local():
        draws = {p.perturb_word(word, phi, rng) for phi in (0.0, 0.5, 1.0) for _ in range(20)}
        assert p.can_change(word) == (draws != {word}), (p.name, word, draws)


@settings(max_examples=200, deadline=None)
@given(any_words, st.integers(1, 12), st.integers(0, 2**32))
def test_candidates_are_distinct_changed_forms_perturb_word_can_give(word, k, seed):
    for p in _word_local():
        found = p.candidates(word, k, random.Random(seed))
        assert found == p.candidates(word, k, random.Random(seed))  # same generator, same list
        assert len(found) <= k and len(set(found)) == len(found) and word not in found
        assert bool(found) == p.can_change(word), (p.name, word)
        if p.name in ("truncate", "disemvowel", "natural-typo"):  # small, enumerable spaces
            reachable = {p.perturb_word(word, phi, random.Random(s)) for phi in (0.0, 1.0)
                         for s in range(100)}
            assert set(found) <= reachable, (p.name, word, found)
        elif p.name.endswith("shuffle"):
            units = clusters(word)
            assert all(sorted(clusters(c)) == sorted(units) for c in found)


def test_candidates_of_table_backed_and_deterministic_perturbers():
    assert TruncatePerturber().candidates("words", 5, random.Random(0)) == ["word"]
    assert DisemvowelPerturber().candidates("Queue", 5, random.Random(0)) == ["Q"]
    natural = NaturalPerturber()
    rows = [match_case("Receive", t) for t in natural.typos["receive"]]
    assert natural.candidates("Receive", 3, random.Random(0)) == rows[:3]  # the table's order
    assert InnerShufflePerturber().candidates("abcd", 10, random.Random(0)) == ["acbd"]
    assert sorted(FullShufflePerturber().candidates("abc", 10, random.Random(1))) == sorted(
        ["acb", "bac", "bca", "cab", "cba"])
    with pytest.raises(ValueError, match="k must be an integer"):
        TruncatePerturber().candidates("words", 0, random.Random(0))


def test_a_word_whose_inner_letters_are_one_cluster_repeated_cannot_change():
    p = InnerShufflePerturber()
    assert not p.can_change("e\u0301aa") and p.perturb_word("e\u0301aa", 1.0, random.Random(0)) == "e\u0301aa"


def test_segment_changes_no_word_alone():
    seg = SegmentPerturber()
    assert not seg.can_change("hello") and seg.candidates("hello", 3, random.Random(0)) == []


def test_a_perturbers_kind_is_declared_and_checked_when_it_is_defined():
    from zeroe_assets.perturbers.base import Perturber

    assert [p.scope for p in (TruncatePerturber(), SegmentPerturber())] == ["word", "context"]
    with pytest.raises(TypeError, match='attack_at is the hook of scope = "context"; declare'):
        type("Joins", (Perturber,), {"attack_at": lambda self, *a: []})
    with pytest.raises(TypeError, match="define attack_drawn"):
        type("Visits", (Perturber,), {"scope": "drawn"})
    with pytest.raises(TypeError, match="define reference_sentence"):
        type("Bypass", (Perturber,), {"reference": "sentence"})
    with pytest.raises(TypeError, match="scope must be one of word, context, drawn"):
        type("Odd", (Perturber,), {"scope": "sentence"})


@pytest.mark.parametrize("phi", [1e-12, 0.05, 0.3, 0.9])
def test_none_came_up_continues_at_least_ones_draws(phi):
    """intrude makes at_least_one's Bernoulli draws inline and calls none_came_up when none came
    up: the same positions and the same draws as at_least_one."""
    for n in (1, 2, 5, 12):
        for seed in range(300):
            a, b = random.Random(seed), random.Random(seed)
            chosen = [j for j in range(n) if b.random() < phi] or none_came_up(n, phi, b)
            assert at_least_one(n, phi, a) == chosen and a.random() == b.random()


def _immutable(value) -> bool:
    return (isinstance(value, (str, int)) or value is None
            or isinstance(value, tuple) and all(map(_immutable, value)))


def test_cached_spellings_hold_no_lists():
    # a per-spelling cache grows with the corpus; what it keeps is tuples of strings and
    # numbers (the collector stops tracking most of them), not lists it walks at every
    # collection (14% of a keyboard-typo command-line run)
    kept = [KeyboardPerturber().slots("Hello"), KeyboardPerturber().slots("naïve"),
            InnerShufflePerturber()._parts["shuffle"], FullShufflePerturber()._units["word"]]
    assert all(value is not None and _immutable(value) for value in kept)


def test_the_protocol_keeps_the_only_cache_of_rows_and_plans():
    # the protocol keeps each spelling's row (natural-typo) or plan (keyboard-typo); a cache of
    # the perturber's own in front of it cost a lookup, a call and an entry for every new
    # spelling of a command-line run
    text = "Their beautiful neighbours definitely recieved seventeen intresting letters."
    for name in ("natural-typo", "keyboard-typo"):
        attack = get_perturbation(name, level=1.0)
        attack.perturb(text, random.Random(0))
        cached = attack._rows if attack._rows is not None else attack._plans
        assert len(cached) == len(words(text))
        own = attack.perturber._cased if name == "natural-typo" else attack.perturber._plans
        assert not own  # filled by perturb_word and can_change only
