"""The shield's core: each restorer proposes the word its perturber changed, the ranker's rows are
what training and the runtime share, and the shield leaves alone what it should (clean text,
single letters, URLs, hashtags, long tokens, other languages)."""
from __future__ import annotations

import random

import numpy as np
import pytest

import zeroe_assets as z
from zeroe_assets import tokenize
from zeroe_assets.perturbers.disemvowel import DisemvowelPerturber
from zeroe_assets.perturbers.keyboard import KeyboardPerturber
from zeroe_assets.perturbers.shuffle import FullShufflePerturber, InnerShufflePerturber
from zeroe_assets.perturbers.truncate import TruncatePerturber
from zeroe_assets.shield import Shield, get_shield
from zeroe_assets.shield.core import apostrophes, split
from zeroe_assets.shield.features import FEATURES, keyboard_slip
from zeroe_assets.shield.lexicon import load_lexicon

WORDS = ["house", "children", "running", "beautiful", "garden", "playing", "window", "kitchen",
         "market", "together", "weather", "people", "breakfast", "mountain", "teacher"]
CLEAN = ["The woman is walking her dog in the park near the river .",
         "A man plays guitar on a crowded street corner while people watch .",
         "Three children are eating breakfast together in the kitchen ."]


@pytest.fixture(scope="module")
def shield() -> Shield:
    return get_shield()


@pytest.mark.parametrize("perturber,mechanism", [
    (InnerShufflePerturber(), "inner-shuffle"), (FullShufflePerturber(), "full-shuffle"),
    (TruncatePerturber(), "truncate"), (DisemvowelPerturber(), "disemvowel"),
    (KeyboardPerturber(), "keyboard-typo")])
def test_each_restorer_proposes_the_word_its_perturber_changed(shield, perturber, mechanism):
    restorer, rng = shield.restorers[mechanism], random.Random(0)
    for word in WORDS:
        changed = perturber.reference_word(word, 0.5, rng)
        if changed != word and changed not in load_lexicon():
            assert word in restorer.candidates(changed), (mechanism, word, changed)


def test_visual_reads_look_alikes_back(shield):
    visual = shield.restorers["visual"]
    attacked = z.perturb("beautiful kitchen", "visual", level=1.0, seed=3)
    for word, clean in zip(tokenize.words(attacked), ["beautiful", "kitchen"]):
        if word != clean:
            assert clean in visual.candidates(word)
    assert visual.read("hello") == "hello"


@pytest.mark.parametrize("attacked,clean", [
    ("I don\u055at know if it\u00b4s true.", "I don't know if it's true."),  # ՚ and ´ split words
    ("I don\u02bct know, they\u02bcre here", "I don't know, they're here"),  # ʼ is a letter
    ("O\u055aBrien said we can\u2018t go", "O'Brien said we can't go"),
    ("\u00cf\u1fbfm sure \u1ef3ou\u02b9ve seen it", "I'm sure you've seen it")])  # Ï᾿m ỳouʹve
def test_a_look_alike_of_the_apostrophe_reads_as_the_apostrophe(shield, attacked, clean):
    assert shield(attacked) == clean


def test_a_look_alike_of_the_apostrophe_that_makes_no_word_stays(shield):
    looks = shield.restorers["visual"].apostrophes
    assert {"\u055a", "\u02bc", "\u02bb", "\u00b4"} <= looks and not {"'", "\u2019", "`"} & looks
    for line in ["Hawai\u02bbi and \u02bbokina", "\u043e\u0431\u02bc\u0454\u043a\u0442",
                 "rock\u055an\u055aroll", "the xq\u02bcs", "he said \u055ayes\u055a to me"]:
        words, gaps = split(line)
        assert apostrophes(words, gaps, looks, shield.lexicon, shield.restorers["visual"].read
                           ) == (words, gaps), line
    for line in ["Слава Україні", "he said \u055ayes\u055a to me"]:
        assert shield(line) == line


def test_a_hawaiian_word_with_its_okina_is_no_attack(shield):
    # ʻ before a vowel is the ʻokina; before a clitic it is still read as the apostrophe
    for line in ["I flew to Hawai\u02bbi last year", "O\u02bbahu is nice", "the \u02bbokina"]:
        assert shield(line) == line
    assert shield("I don\u02bbt know, it\u02bbs fine") == "I don't know, it's fine"


def test_intruded_pieces_join_for_the_whole_line(shield):
    assert shield("I want to g et it") == "I want to get it"
    assert shield("t+oda+y is h e llo") == "today is hello"
    assert shield("well-known and in to the room") == "well-known and in to the room"


@pytest.mark.parametrize("attacker", ["intrude", "inner-shuffle", "segment", "visual"])
def test_attacked_sentences_come_back(shield, attacker):
    attacked = z.perturb(CLEAN, attacker, level=0.3, protocol="reference", seed=1)
    restored = shield(attacked)
    assert sum(r == c for r, c in zip(restored, CLEAN)) >= 2, (attacked, restored)


def test_clean_text_and_what_is_left_alone(shield):
    for line in CLEAN + ["x = 1 and y", "see www.gooogle.com or jhon@exmaple.com, #hashtag",
                         "Der schnelle braune Fuchs springt über den faulen Hund",
                         "a b c d e f", "see " + "x" * 5000 + " there", "", "  \t"]:
        assert shield(line) == line
    assert shield("teh") == "the" and shield("Teh qiuck") == "The quick"  # short lines are read


def test_deterministic_and_list_in_list_out(shield):
    attacked = z.perturb(CLEAN, "full-shuffle", level=0.5, seed=4)
    assert shield(attacked) == shield(attacked) == [shield(a) for a in attacked]
    assert Shield()(attacked) == shield(attacked)  # a fresh instance decides the same


def test_training_rows_match_the_features(shield):
    clean = CLEAN[0]
    attacked = z.perturb(clean, "truncate", level=0.5, protocol="reference", seed=2)
    rows = shield.training_rows(attacked, clean)
    assert rows
    for matrix, gold, _ in rows:
        assert matrix.dtype == np.float32 and matrix.shape[1] == len(FEATURES)
        assert 0 <= gold < len(matrix) and matrix[0, FEATURES.index("keep")] == 1.0
    assert any(gold for _, gold, _ in rows)  # some attacked word is learnable


def test_context_and_keyboard_features():
    lexicon = load_lexicon()
    assert lexicon.association("thank", "you") > 1 > 0 > lexicon.association("the", "of")
    assert lexicon.association("qqqz", "you") == 0.0
    assert keyboard_slip("qbout", "about") and not keyboard_slip("about", "about")
    assert not keyboard_slip("pbout", "about")  # p is not a neighbour of a


def test_bad_settings_are_clear():
    with pytest.raises(ValueError, match="unknown shield mechanism"):
        Shield(["visual", "nope"])
    with pytest.raises(ValueError, match="threshold"):
        Shield(threshold=2)
    with pytest.raises(ValueError, match="restores text"):
        Shield(["intrude"]).restore(b"bytes")
    assert Shield("intrude, visual").mechanisms == ("visual", "intrude")


# TextAttack's DeepWordBug / Pruthi edits (SNLI test pairs 200–400, the transfer benchmark's
# dev split): non-words whose best reading the ranker finds likely, but not past its threshold
UNSURE = {"A woamn is eLating pasta in a restfurant .":
          "A woman is eating pasta in a restaurant .",
          "The aMults are old": "The adults are old",
          "A young man is jobging": "A young man is jogging"}


@pytest.mark.parametrize("attacked", sorted(UNSURE))
def test_a_nonword_changes_when_keeping_it_is_unlikely(attacked):
    shield = Shield()
    shield.marked = False  # eLating, aMults: the rules below, not the capital's mark
    assert shield.restore(attacked) == UNSURE[attacked]
    shield.channel_margin = None  # the rule on P(keep) alone
    assert shield.restore(attacked) == UNSURE[attacked]
    shield.nonword_keep = None  # the ranker's threshold alone leaves the token
    assert shield.restore(attacked) != UNSURE[attacked]


def test_a_dictionary_word_its_neighbours_rule_out_is_read_in_context():
    shield = Shield()  # on by default
    assert shield.restore("A man rides his bike to wok .") == "A man rides his bike to work ."
    assert Shield(real_words=False).restore("A man rides his bike to wok .") == \
        "A man rides his bike to wok ."
    # the tweets' words the lexicon's bigrams could not decide, read by the context model
    assert shield.restore("Smash the sit out of them") == "Smash the shit out of them"
    assert shield.restore("I said this carp is stupid") == "I said this crap is stupid"
    assert shield.restore("This is a carp I caught .") == "This is a carp I caught ."
    assert shield.restore("We will meat at noon .") == "We will meat at noon ."  # meet: not
    # thirty times as common as meat
    words = shield.real_words
    assert words.correct("racing", (("<s>", "is"), ("to", "</s>"))) is None  # facing: the
    # first letter changed
    assert words.correct("hole", (("<s>", "a"), ("in", "the"))) is None  # a hole in: it fits
    assert words.correct("his", (("<s>", "in"), ("car", "</s>"))) is None  # too common
    assert words.correct("hole", (("<s>",), ("</s>",))) is None  # no neighbours, no evidence
    for text in CLEAN:
        assert shield.restore(text) == text


# DeepWordBug's edits the shield leaves, read by `guess` (movie reviews' dev attacks, 2026-12-07)
GUESSED = {"Some stunning visuals and some staggeringly bdring cinema .":  # not bring
           "Some stunning visuals and some staggeringly boring cinema .",
           "I'm afraid you won't gew through this film .":  # get: not the likelier typo few
           "I'm afraid you won't get through this film .",
           "A fascinating but flawed loo at the near future .":  # a rare word, its last letter
           "A fascinating but flawed look at the near future .",
           "It somehow manages to scape the shackles of its own clichés .":  # … its first
           "It somehow manages to escape the shackles of its own clichés ."}


@pytest.mark.parametrize("attacked", sorted(GUESSED))
def test_guess_reads_what_the_shield_would_leave_for_an_encoding(attacked):
    assert get_shield(guess=True).restore(attacked) == GUESSED[attacked]
    assert get_shield().restore(attacked) != GUESSED[attacked]  # off by default


# DeepWordBug's edits of SNLI hypotheses (dev pairs 101–200, 2026-12-07), read against the premise
PAIRED = {("A bird is flapping its wings on the water .", "The bird is flying over the treens ."):
          "The bird is flying over the trees .",  # the window, not the ranker's greens
          ("Three girls blow out the candles of a cake made of Peeps .",
           "Thery are peeps in the garden ."): "They are peeps in the garden .",  # not Theory
          # short tokens some text has used (tweets'), kept before: unkword to the encoding
          ("A woman is painting a mural of a woman 's face .",
           "There is a woman painting for fn ."): "There is a woman painting for fun .",
          ("Two men climbing on a wooden scaffold .",
           "Two sd men climbing on a wooden scaffold ."):
          "Two sad men climbing on a wooden scaffold .",
          ("a group of people dancing together .", "Ny one is dancing ."): "No one is dancing ."}
# … a dictionary word read as the premise's word one edit away at a window gain of 1.5 (1.8 here)
PAIRED_ANCHOR = {("a boy holding onto the wall of an old brick house .",
                  "a boy is against the all of a raised foundation"):
                 "a boy is against the wall of a raised foundation"}
# … and DeepWordBug's real words, read as the word its window and edits make far likelier
# (dev pairs 101–300 and their attacks, 2026-12-07)
PAIRED_REAL = {("A large number of people wearing only white and red are walking on a street .",
                "A large number of people wearing lack walking down the street ."):
               "A large number of people wearing black walking down the street .",
               ("The tattooed basketball player is about to dunk the ball .",
                "The person is laying basketball ."): "The person is playing basketball .",
               ("a boy in a red hooded top is smiling whilst looking away from his reflection .",
                "The boy does n't ant to see his reflection ."):
               "The boy does n't want to see his reflection ."}


@pytest.mark.parametrize("pair", sorted(PAIRED) + sorted(PAIRED_REAL))
def test_a_hypothesis_token_is_read_by_its_window_and_the_attacks_edits(pair):
    premise, attacked = pair
    meant = {**PAIRED, **PAIRED_REAL}[pair]
    assert get_shield().restore(attacked, premise) == meant
    assert get_shield(guess=True).restore(attacked, premise) == meant
    assert get_shield().restore(attacked) != meant  # only against a premise
    shield = Shield()
    shield.pair_guess = False  # the ranker's reading, or the token kept
    assert shield.restore(attacked, premise) != meant


@pytest.mark.parametrize("pair", sorted(PAIRED_ANCHOR))
def test_a_hypothesis_word_reads_as_its_premises(pair):
    premise, attacked = pair
    assert get_shield().restore(attacked, premise) == PAIRED_ANCHOR[pair]
    assert get_shield(guess=True).restore(attacked, premise) == PAIRED_ANCHOR[pair]
    assert get_shield().restore(attacked) != PAIRED_ANCHOR[pair]  # not without one
    shield = Shield()
    shield.anchor_gain = None  # anchors keep their own words and read non-words only
    assert shield.restore(attacked, premise) != PAIRED_ANCHOR[pair]


def test_clean_hypotheses_stay_against_their_premises():
    # plain hypotheses whose words are one edit from others (sitting, dogs, making) stay
    for premise, hypothesis in (("A man is sitting on a bench .", "A man is sitting ."),
                                ("Two dogs play in the snow .", "The dogs are outside ."),
                                ("A woman is cooking in a kitchen .", "A woman is making food .")):
        assert get_shield().restore(hypothesis, premise) == hypothesis
    # a word of one or two letters is no real word to read (a: an, in: is), the typo beside it is
    assert get_shield().restore("A dog jumps over a obstacel .",
                                "A light colored dog leaps over a hurdle .") == \
        "A dog jumps over a obstacle ."
    assert get_shield().restore("The man in playing a bango inside a bar .",
                                "A man in a black hat , standing on the street while playing an "
                                "electric guitar and singing .") == \
        "The man in playing a banjo inside a bar ."
    # a token the premise has stays, however short and whatever the lexicon lacks (ad: not and)
    premise = "A man poses in front of an ad for beer ."
    assert get_shield().restore("A man poses in front of an ad .", premise) == \
        "A man poses in front of an ad ."
    assert get_shield().restore("A man poess in fornt of an ad .", premise) == \
        "A man poses in front of an ad ."


def test_the_attack_odds_weigh_deepwordbugs_four_edits():
    from zeroe_assets.shield.core import _attack_odds
    # moneky: a swap in monkey (1 place of 5) beats a letter added to money (1 of 6 x 26)
    assert _attack_odds("moneky", "monkey") - _attack_odds("moneky", "money") \
        == pytest.approx(np.log10(6 * 26 / 5))
    assert _attack_odds("tead", "head") == _attack_odds("tead", "read") == -np.log10(100)
    assert _attack_odds("ead", "head") == -np.log10(4)


def test_guess_keeps_clean_text_names_and_words_of_real_writing():
    shield = get_shield(guess=True)
    assert shield.guess and "guessing" in shield.describe()
    for text in CLEAN + ["Shadyac directs a film .", "lol that was a film"]:
        assert shield.restore(text) == text


def test_the_noisy_channel_picks_a_common_word_one_edit_away_the_ranker_left():
    attacked = "#McCab casght destroying evidence before leavnig the BI!! #DrainTheSwamp"
    shield = Shield()
    assert shield.restore(attacked) == \
        "#McCab caught destroying evidence before leaving the BI!! #DrainTheSwamp"
    shield.channel_margin = None  # the ranker alone keeps "casght" (caught, cast, chased …)
    assert "casght" in shield.restore(attacked)


# DeepWordBug's random letters in either case (TextAttack's texts on SNLI test pairs 200–400,
# the transfer benchmark's dev split): the capital marks the attacked letter
MARKED = {"A tall tNee .": "A tall tree .",  # not the commoner reading elsewhere: teen
          "A man swims in the coUld lake .": "A man swims in the cold lake .",  # could: a word
          "The kids ride biLkes .": "The kids ride bikes ."}  # the marked letter was inserted


@pytest.mark.parametrize("attacked", sorted(MARKED))
def test_a_capital_inside_a_lower_case_word_marks_the_attacked_letter(attacked):
    shield = Shield()
    assert shield.restore(attacked) == MARKED[attacked]
    shield.marked = False
    shield.channel_over = None  # the noisy channel alone now reads biLkes as bikes too
    assert shield.restore(attacked) != MARKED[attacked]


def test_camel_case_names_are_not_marked_letters():
    from zeroe_assets.shield.marked import marked, marked_readings
    assert marked("tNee") == 1 and marked("Tree") is None
    assert marked_readings("McCain", load_lexicon()) == []  # marked, but no common reading
    assert marked("kWh") is None  # too short to be an attacked word
    assert marked_readings("iPhone", load_lexicon()) == []
    assert marked_readings("mWoan", load_lexicon()) == []  # Woman shuffled: its own capital
    text = "I sold my iPhone on eBay, said McCain ."
    assert get_shield().restore(text) == text


# the other two shapes of a marked letter (the transfer benchmark's dev split): a second capital
# in a capitalised word, one lower-case letter in a word in capitals; names and inflected
# acronyms (seen in OLID's training tweets and EWT's training sentences) are left
MARKED_SHAPES = {"Follow us on TwitOter , you are the best":
                 "Follow us on Twitter , you are the best",
                 "My name is WiBliam and I live in VBgas .":
                 "My name is William and I live in Vegas .",
                 "That is RAght , I NEcD it": "That is Right , I NEED it",
                 "NQever again , you are the one": "Never again , you are the one"}


@pytest.mark.parametrize("attacked", sorted(MARKED_SHAPES))
def test_a_letter_in_the_wrong_case_marks_the_attacked_letter(attacked):
    assert Shield().restore(attacked) == MARKED_SHAPES[attacked]


def test_the_second_capital_is_read_as_the_mark_not_by_the_ranker():
    attacked = "My name is WiBliam and I live in VBgas ."
    shield = Shield()
    shield.marked = False  # the ranker and the channel alone leave both names
    assert shield.restore(attacked) != MARKED_SHAPES[attacked]


def test_mixed_case_names_and_acronyms_have_no_marked_reading():
    from zeroe_assets.shield.marked import marked, marked_readings, unmarked
    lexicon = load_lexicon()
    for name in ("DeVos", "DeVries", "McCleod", "RTing", "DMed", "PhDs", "DaveB", "WiiU", "IDs",
                 "CEOs", "NeM"):
        assert marked_readings(name, lexicon) == [], name
    assert marked("SInX") == 2 and marked("RAght") == 1 and marked("DaveB") is None
    assert unmarked("NEcD") == "NECD" and unmarked("RAght") == "Raght"
    assert unmarked("tNee") == "tnee"
    assert marked_readings("NObama", lexicon) == []  # not read as a capital inserted before


def test_a_capitalised_nonword_changes_on_the_channel_only_to_a_common_word_inside_it():
    # a tweet on the dev split: "#AIATarvelTips Alays monitor your luggage at the ahrport."
    attacked = "You should read this , Alays monitor your luggage at the airport ."
    shield = Shield()
    assert shield.restore(attacked) == attacked.replace("Alays", "Always")
    shield.channel_names = None  # a capitalised word inside the line reads as a name
    assert shield.restore(attacked) == attacked
    shield.channel_names = 0.0  # no word is that common
    assert shield.restore(attacked) == attacked
