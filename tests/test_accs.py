"""The constraint robustness curve and ACCS (Morris et al. 2020, §3), the word-pair scores of
the constraints it compares, and the attack on the constraints themselves (second order)."""
from __future__ import annotations

import numpy as np
import pytest

from zeroe_assets.bench.accs import accs, area, curve
from zeroe_assets.bench.second_order import SecondOrderAttack, SightChanges
from zeroe_assets.constraints.scored import (SCORES, SIGHT, Score, Threshold, get_score,
                                             score_names)
from zeroe_assets.search.text import AttackedText, Edit

DENSE = 2001  # points of the y = x^a curves on [0, 1]: trapezoids exact to 4 decimals


def test_the_papers_toy_example():
    # Fig. 2: a straight curve up to the maxima 0.7 (first order) and 0.3 (second order)
    xs = np.linspace(0, 0.3, 31)
    points = [(x, 0.7 / 0.3 * x) for x in xs]
    assert area(points) == pytest.approx(0.105)
    assert accs(points) == pytest.approx(0.5)


@pytest.mark.parametrize("power, expected", [(10, 0.091), (1, 0.5), (0.1, 0.909)])
def test_powers_of_x(power, expected):
    xs = np.linspace(0, 1, DENSE)
    assert round(accs([(x, x ** power) for x in xs]), 3) == expected


def test_the_origin_is_added_and_points_are_sorted_by_x():
    assert curve([(0.5, 1.0), (1.0, 1.0)]) == [(0.0, 0.0), (0.5, 1.0), (1.0, 1.0)]
    # one threshold only: the triangle to the origin, half the box
    assert accs([(0.4, 0.8)]) == pytest.approx(0.5)
    # first-order examples long before second-order ones: a good constraint
    assert accs([(0.0, 0.6), (0.5, 0.8), (1.0, 0.8)]) > 0.9


def test_no_second_order_example_leaves_accs_undefined():
    assert accs([(0.0, 0.5), (0.0, 0.2)]) is None
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        curve([(1.5, 0.2)])


def test_scores_are_named_in_their_range_and_unknown_names_refused():
    assert set(score_names()) == {"phonetic-embedder", "g2p-distance", "double-metaphone",
                                  "char-edit", "visual-space", "raw-pixel", "uts39-skeleton"}
    assert set(score_names(SIGHT)) == {"visual-space", "raw-pixel", "uts39-skeleton"}
    assert all(SCORES[n].low == 0.0 and SCORES[n].high == 1.0 for n in SCORES)
    with pytest.raises(ValueError, match="unknown constraint 'soundex'; choose from"):
        get_score("soundex")
    with pytest.raises(ValueError, match=r"char-edit scores are in \[0.0, 1.0\]"):
        Threshold("char-edit", 1.5)


def test_spelling_and_code_scores():
    edit, meta = get_score("char-edit"), get_score("double-metaphone")
    assert edit.scores([("night", "tight"), ("knows", "nose"), ("see", "see")]) == \
        pytest.approx([0.8, 0.4, 1.0])
    # their and three share a Double Metaphone code: a listener hears two words
    assert meta.scores([("their", "three"), ("knows", "nose")]) == [1.0, 1.0]
    assert meta.scores([("night", "tight")])[0] < 1.0


def test_sight_scores_take_the_least_alike_changed_character():
    skeleton, pixels = get_score("uts39-skeleton"), get_score("raw-pixel")
    cyrillic, omicron = "h\u0435llo", "h\u03bfllo"  # е for e; ο (an o) for e
    assert skeleton.scores([("hello", cyrillic), ("hello", omicron)]) == [1.0, 0.0]
    same, other, two, short = pixels.scores([("hello", cyrillic), ("hello", omicron),
                                             ("hello", "h\u0435ll\u03bf"), ("hello", "hell")])
    assert same == pytest.approx(1.0) and other < 0.95
    assert two == pytest.approx(pixels.scores([("o", "\u03bf")])[0])  # the o, not the е
    assert short == 0.0  # not a replacement of characters


class Table(Score):
    """A score from a table (1 for pairs it does not list): an ideal constraint for the test."""

    name, kind = "table", SIGHT

    def __init__(self, table):
        super().__init__()
        self.table = table

    def compute(self, pairs):
        return [self.table.get(p, 1.0) for p in pairs]


def test_threshold_is_a_search_constraint_on_every_changed_word():
    text = AttackedText.from_input("text", "the cat sat")
    one = text.apply(Edit(0, ((1, "cot"),), (), (1,)))
    both = one.apply(Edit(0, ((2, "sot"),), (), (2,)))
    score = Table({("cat", "cot"): 0.9, ("sat", "sot"): 0.4})
    assert Threshold(score, 0.5).filter(text, [one, both]) == [one]
    assert Threshold(score, 0.0).filter(text, [one, both]) == [one, both]


class Pool(SightChanges):
    """The sight transformation over a few characters (the full pool is 1,200 of them)."""

    def pool(self):
        from zeroe_assets.visual.confusables import reads_as

        return [(c, reads_as(c)) for c in "\u03bf\u0435a"]


def test_second_order_needs_delta_accepted_changes():
    # a constraint that accepts everything is fooled wherever three words may change
    score = Table({})
    attack = SecondOrderAttack(score, Pool(), delta=3, width=2)
    found = attack.run("the quick brown fox", 1.0)  # "the" is a stopword and stays
    assert found.found and found.changed == 3
    assert [c["original"] for c in found.changes] == ["quick", "brown", "fox"]
    assert found.adversarial.split() == ["the"] + [c["new"] for c in found.changes]
    assert all(sum(a != b for a, b in zip(c["original"], c["new"])) == 1
               for c in found.changes)
    assert SecondOrderAttack(score, Pool(), delta=4).run("the quick brown fox", 1.0).changed == 3


def test_second_order_changes_read_as_another_letter():
    changes = dict(Pool().forms("eve"))
    # е (Cyrillic) reads as e: no change for a reader at an e, one at the v
    assert "\u0435ve" not in changes and "e\u0435e" in changes
    assert changes["\u03bfve"] == {"at": 0, "character": "\u03bf", "reads_as": "o"}


def test_the_exact_rule_for_word_pair_scores():
    # each changed word is scored alone: success iff δ positions have an accepted change
    rng = np.random.default_rng(0)
    words = ["quick", "brown", "foxes", "jumped", "over", "lazy", "dogs"]
    forms = {w: [f for f, _ in Pool().forms(w)] for w in words}
    table = {(w, f): float(rng.random()) for w in words for f in forms[w]}
    attack = SecondOrderAttack(Table(table), Pool(), delta=3, width=8)
    for eps in (0.5, 0.9, 0.99, 0.999):
        best = [max(table[w, f] for f in forms[w]) for w in words]
        assert attack.run(" ".join(words), eps).found == (sum(b >= eps for b in best) >= 3)


def test_second_order_refuses_a_mismatched_transformation_and_bad_delta():
    with pytest.raises(ValueError, match="judges sound, not sight"):
        SecondOrderAttack(get_score("char-edit"), Pool())
    with pytest.raises(ValueError, match="delta"):
        SecondOrderAttack(Table({}), Pool(), delta=0)


def test_raw_pixels_are_drawn_on_the_glyph_sets_canvas():
    from train.visual.glyphs import GlyphSpec
    from zeroe_assets.visual.glyphs import GLYPH

    spec = GlyphSpec()
    assert (spec.size, spec.font_px, spec.baseline, spec.min_ink) == tuple(GLYPH)


# CMUdict's pronunciations (stress dropped) of a few words: the sound oracle's lexicon
LEXICON = {"night": [("N", "AY", "T")], "tight": [("T", "AY", "T")], "knight": [("N", "AY", "T")],
           "nights": [("N", "AY", "T", "S")], "fight": [("F", "AY", "T")],
           "their": [("DH", "EH", "R")], "there": [("DH", "EH", "R")],
           "three": [("TH", "R", "IY")], "knows": [("N", "OW", "Z")],
           "knobs": [("N", "AA", "B", "Z")], "nose": [("N", "OW", "Z")]}


class Lexicon:
    """The part of ``phonetic.sound.SoundSpace`` the second-order attack reads."""

    words = tuple(LEXICON)
    rows = dict(zip(LEXICON, range(len(LEXICON))))
    counts = list(range(len(LEXICON), 0, -1))  # the order above: most frequent first

    def pronunciations(self, word):
        return tuple(LEXICON.get(word.lower(), ()))

    def distance(self, a, b):
        from zeroe_assets.phonetic.sound import phone_distance

        pa, pb = self.pronunciations(a), self.pronunciations(b)
        return min(phone_distance(x, y) for x in pa for y in pb) if pa and pb else None


def test_sound_changes_are_spelling_neighbours_a_listener_hears_as_other_words():
    from zeroe_assets.bench.second_order import SoundChanges

    changes = dict(SoundChanges(Lexicon()).forms("Night"))
    # knight sounds the same; nights is one phone over the shorter three: 0.33, different
    assert set(changes) == {"Tight", "Fight", "Nights"}
    assert changes["Tight"] == {"phone_distance": pytest.approx(1 / 3, abs=1e-4)}
    assert SoundChanges(Lexicon()).forms("zebra") == []  # not in the lexicon: no oracle
    assert [w for w, _ in SoundChanges(Lexicon(), limit=2).forms("night")] == ["nights", "tight"]


def test_a_spelling_score_is_fooled_by_words_that_sound_different():
    from zeroe_assets.bench.second_order import SoundChanges

    attack = SecondOrderAttack(get_score("char-edit"), SoundChanges(Lexicon()), delta=2)
    found = attack.run("night knows", 0.75)  # knobs: one letter in five, 0.8
    assert found.found and found.adversarial == "nights knobs"  # nights 0.83 > fight, tight 0.8
    assert not attack.run("night knows", 0.9).found


def test_a_character_drawn_as_the_letter_is_no_change_for_a_reader():
    # UTS #39 classes the palochka with i, but the font draws it as an l
    from zeroe_assets.visual.confusables import reads_as

    palochka = "\u04cf"
    assert "l" not in reads_as(palochka) and palochka in SightChanges().identical("l")
    at_l = [ev["character"] for _, ev in SightChanges().forms("lazy") if ev["at"] == 0]
    assert palochka not in at_l and "\u03bf" in at_l  # an omicron for the l is a change


def test_the_learned_sound_scores_on_a_handful_of_words():
    pytest.importorskip("torch")
    pairs = [("see", "sea"), ("knows", "nose"), ("night", "tight")]
    embedder = get_score("phonetic-embedder").scores(pairs)
    assert all(0 <= s <= 1 for s in embedder) and embedder[0] > embedder[2]
    g2p = get_score("g2p-distance")
    see, sea, night, tight = g2p.pronounce(["see", "sea", "night", "tight"])
    assert see == sea and len(night) == len(tight) == 3  # S IY; N AY T and T AY T
    same, _, one_phone = g2p.scores(pairs)
    assert same == 1.0 and one_phone == pytest.approx(2 / 3)
