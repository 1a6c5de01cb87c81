"""The shield's readers that assume no table of ours: look-alikes read by Unicode's own data and
the whole learned space, invisible characters, accented words spelled right, the typo channel,
and words attacked twice (intruded and mistyped)."""
from __future__ import annotations

import math
import unicodedata

import pytest

from zeroe_assets import tokenize
from zeroe_assets.shield import get_shield
from zeroe_assets.shield.accents import is_accented_word
from zeroe_assets.shield.channel import edits, load_channel
from zeroe_assets.shield.context import RealWords
from zeroe_assets.shield.core import Shield, _inner_odds, split
from zeroe_assets.shield.hashtags import read_tag
from zeroe_assets.shield.hashtags import split as split_tag
from zeroe_assets.shield.hyphens import moved
from zeroe_assets.shield.placeholders import placeholder
from zeroe_assets.shield.visual import invisible, name_letter, unicode_letters


@pytest.fixture(scope="module")
def shield():
    return get_shield()


@pytest.mark.parametrize("char,letter", [
    ("à", "a"), ("а", "a"), ("ⓐ", "a"), ("ᵃ", "a"), ("ａ", "a"), ("ɐ", "a"), ("Ꭺ", None),
    ("Ⓑ", "B"), ("і", "i"), ("ǅ", None), ("α", None), ("x", "x")])
def test_the_letter_a_unicode_name_spells(char, letter):
    if char == "Ꭺ":  # CHEROKEE LETTER GO: a name with no single Latin letter in it
        assert name_letter(char) is None
        return
    assert name_letter(char) == letter


def test_unicode_accounts_agree_and_score_in_range():
    found = unicode_letters("а")  # Cyrillic a: its name, UTS #39 and anyascii all say a
    assert set(found) == {"a"} and 0.95 < found["a"] <= 1.0
    assert unicode_letters("ο")["o"] > 0.8  # Greek omicron: confusable, transliterated
    assert unicode_letters("$") == {} or "s" in unicode_letters("$")


def test_every_letter_like_character_reads_back_as_its_letter(shield):
    """A character Unicode names after a letter (VIPER's description-based look-alikes) reads
    as that letter, whether or not our visual table ever drew it."""
    visual = shield.restorers["visual"]
    missed = []
    for cp in range(0x80, 0x2500):
        char = chr(cp)
        letter = name_letter(char)
        if letter and unicodedata.category(char)[0] == "L" and not invisible(char):
            if letter.lower() not in {l for l, _ in visual.letters(char)}:
                missed.append(char)
    assert not missed, "".join(missed[:40])


def test_invisible_characters_and_marks_read_as_nothing(shield):
    assert invisible("\u200b") and invisible("\u00ad") and invisible("\u0301")
    assert not invisible("a") and not invisible(" ")
    visual = shield.restorers["visual"]
    assert visual.read("wo\u0301rld") == "world"
    assert shield("the ca\u200bt sat on t\u00adhe mat") == "the cat sat on the mat"


def test_symbols_that_spell_letters_stay_inside_their_word():
    words, gaps = split("ⓐnd ⒜re here")
    assert words == ["ⓐnd", "⒜re", "here"]
    for text in ["ⓐnd ⒜re", "plain text.", "he\u200bllo", "", "  ⓐ  "]:
        assert tokenize.join(*split(text)) == text


@pytest.mark.parametrize("word", ["café", "naïve", "crème", "résumé", "José", "Málaga",
                                  "Pokémon", "Zürich", "fiancé"])
def test_accented_words_spelled_right_are_known(word):
    assert is_accented_word(word)
    assert is_accented_word(unicodedata.normalize("NFD", word))


def test_accented_words_spelled_right_are_no_attack(shield):
    text = "A crème brûlée at the café in Zürich with José in Málaga, how naïve"
    assert shield(text) == text
    assert not is_accented_word("wàter") and not is_accented_word("water")
    assert shield("Thé wàtér is cold") == "The water is cold"


def test_the_channel_aligns_swaps_and_ranks_slips_above_arbitrary_edits():
    assert edits("the", "teh") == [("swap", "h", "e")]
    assert edits("drivel", "rdivel") == [("swap", "d", "r")]
    assert edits("advice", "adgice") == [("sub", "v", "g")]
    assert edits("remain", "remin") == [("del", "a", "m")]
    assert edits("abc", "abc") == []
    channel = load_channel()
    assert channel.score("advice", "advice") == 0.0
    assert channel.score("adgice", "advice") > channel.score("adxice", "advice")  # g beside v
    assert channel.score("accomodate", "accommodate") > channel.score("acxommodate",
                                                                       "accommodate")
    assert channel.score("xyzzyq", "advice") < channel.score("adgice", "advice")


def test_doc_examples_restore(shield):
    assert shield("Teh qiuck borwn fox") == "The quick brown fox"
    assert shield("Α mаn іs plаyіng") == "A man is playing"
    assert shield("Someone is s l e e p i n g") == "Someone is sleeping"


def test_a_word_intruded_and_attacked_again_is_read_on(shield):
    assert shield("A man is p(y(a(l(i(n(g a guitar") == "A man is playing a guitar"
    keep = "I saw the U.S. team and/or the well-known band at 3.5 p.m."
    assert shield(keep) == keep


def test_negated_contractions_stay_words(shield):
    text = "I can't and WON'T go, you ain't and shan't"
    assert shield(text) == text


def test_capitals_inside_a_word_mark_it():
    from zeroe_assets.shield.features import mixed_case

    assert mixed_case("rFaud") and mixed_case("AntQifa") and mixed_case("iPhone")
    assert not any(map(mixed_case, ["NASA", "Hello", "hello", "a", "I", "don't", "O'Neil"]))


def test_tweets_of_names_are_english_and_other_languages_stay(shield):
    tweet = ("#WhoIsQ #DumpNike Democrats Support Antifa, Muslim Brotherhood, ISIS, Child "
             "Trafficking, Taxpayer Funded Abortion’s, Election rFaud, Sedition And Treason!!! "
             "#QAnon @USER URL")
    assert "Election fraud," in shield(tweet)
    french = ("Le chat noir dort sur le canapé pendant que le chien mange dans la cuisine avec "
              "une fourchette")
    assert shield(french) == french


def test_words_of_another_script_stay_and_latin_look_alikes_are_read(shield):
    for text in ["שלום עולם", "привет мир, как дела", "Der schnelle braune Fuchs springt"]:
        assert shield(text) == text
    assert shield("Тhе раѕѕ іѕ ореn") == "The pass is open"  # every letter Cyrillic
    assert shield("NASA and the UN sent an e-mail about the x-ray") == \
        "NASA and the UN sent an e-mail about the x-ray"
    assert shield("We went to the theater with mom, traveling far") == \
        "We went to the theater with mom, traveling far"


def test_invisible_characters_never_split_a_word():
    words, gaps = split("A g\u200buy i\u2060s on a skate\u200bboard")
    assert words == ["A", "g\u200buy", "i\u2060s", "on", "a", "skate\u200bboard"]
    for text in ["\u200b", "a\u200d", " \u200bx", "a \u00ad b"]:
        assert tokenize.join(*split(text)) == text


def test_a_line_the_attack_left_no_function_word_is_english_by_its_words(shield):
    from zeroe_assets.shield.language import english_odds

    # none of the shield's English function words, yet four / kids / during are English words
    assert shield("Four kids pose during summre vacatino .") == \
        "Four kids pose during summer vacation ."
    assert english_odds("four kids pose during".split()) > 3
    assert english_odds("le chat noir dort sur le canapé".split()) < -3
    assert english_odds(["qzxv", "jisung"]) == 0.0  # words no list has do not vote
    german = "Der schnelle braune Fuchs springt"
    assert shield(german) == german


def test_a_line_whose_few_common_words_the_attack_mistyped_is_english(shield):
    # DeepWordBug took the tweets' only common words; the rest are names, symbols and a German
    # word (uns): no function word and no vote, yet each non-word is one edit from a common word
    assert shield("@USER $$$ ewll spet...panthers..Douch").startswith("@USER $$$ well spent")
    assert shield("@USER   Goa helC uns all") == "@USER   Goa help us all"
    spanish = "el peso de un líquido incoloro , del amor como elemento de vida"
    assert shield(spanish) == spanish


def test_file_and_domain_names_are_left_alone(shield):
    for text in ["(See attached file: UnleadedStocks.pdf)(See attached file: CrudeStocks.pdf)",
                 "Our new domain name is paulhastings.com.", "- TEXT.htm << File: TEXT.htm >>"]:
        assert shield(text) == text
    assert shield("I saw the U.S. team at 3.5 p.m. and thier coach") == \
        "I saw the U.S. team at 3.5 p.m. and their coach"


def test_a_hashtag_is_read_as_one_word_unless_the_tweets_use_it(shield):
    assert shield("Vote them out #Conservatvies and #Tennrssee!") == \
        "Vote them out #Conservatives and #Tennessee!"
    # a tag the context model's training tweets use is a word; a tag is never split in two
    kept = "Thanks God! #maga #metoo #mentalillness #noshadenotea #mental_illness URL"
    assert shield(kept) == kept


def test_words_the_tweets_use_often_are_words(shield):
    # not the lexicon's, but as common as a common word in the context model's training text
    for text in ["Thats a great name, ok?", "what's your issue with antifa?",
                 "im 15 and ppl say so"]:
        assert shield(text) == text
    assert shield("teh man is here") == "the man is here"  # a rare one is still read


def test_a_short_non_word_changes_on_the_noisy_channel(shield):
    assert shield("Damn I felt this sht. Why you so loud lol") == \
        "Damn I felt this shit. Why you so loud lol"
    assert shield("he is still rch and has his life") == "he is still rich and has his life"
    kept = "lol smh idk what u mean tbh, NbC and #smb"  # the tweets' own, acronyms, short tags
    assert shield(kept) == kept


def test_a_capital_that_starts_a_sentence_is_no_name(shield):
    # after a full stop, an exclamation or a question mark a non-word reads as at the line's start
    assert shield("They never learn! Idoits! #MondayMotivation URL") == \
        "They never learn! Idiots! #MondayMotivation URL"
    kept = "We saw Bukhayi there"  # inside a sentence a capitalised non-word is a name
    assert shield(kept) == kept


def test_the_noisy_channel_overrules_the_ranker_when_far_ahead(shield):
    # one edit to a word the context wants, against the ranker's other reading (sparks: a swap)
    assert shield("A man spraks to the crowd") == "A man speaks to the crowd"
    off = Shield()
    off.channel_over = None
    assert off("A man spraks to the crowd") == "A man sparks to the crowd"


def test_the_noisy_channel_overrules_a_reading_taken_below_the_threshold(shield):
    # the ranker is unsure (promoting .5) but keeping the non-word is unlikely, so it changes:
    # to the one-edit word the window wants (a rarer word than the channel picks alone)
    assert shield("A man is phooting a gun at a target") == "A man is shooting a gun at a target"
    off = Shield()
    off.channel_over = None
    assert off("A man is phooting a gun at a target") == "A man is promoting a gun at a target"


def test_the_noisy_channel_overrules_the_ranker_on_a_short_non_word(shield):
    # the ranker reads Have (two letters added) and the shuffle odd; the token changes either
    # way, so the channel's one-edit word may take its place as in a longer non-word
    assert shield("Hv is reading the newspaper .") == "He is reading the newspaper ."
    assert shield("a doD abrks loud") == "a dog barks loud"


def test_the_noisy_channel_overrules_the_ranker_with_a_rare_word(shield):
    # the ranker's settled (two edits) against stilted (log10 -6.7, one edit, far ahead in its
    # window): the token changes either way, so a rare word may overrule
    assert shield("the dialogue is stilhed and the acting is wooden .") == \
        "the dialogue is stilted and the acting is wooden ."


@pytest.mark.parametrize("attacked,clean", [
    ("Sex Toys, Anyone?  URL RUL", "Sex Toys, Anyone?  URL URL"),
    ("@jSER She can't reach.", "@USER She can't reach."),
    ("Attack on @UNSER Pushes for it @gUSER UQRL", "Attack on @USER Pushes for it @USER URL")])
def test_a_token_one_edit_from_a_placeholder_reads_as_it(shield, attacked, clean):
    assert shield(attacked) == clean
    off = Shield()
    off.placeholders = False
    assert off(attacked) == attacked


def test_what_only_looks_like_a_placeholder_stays(shield):
    # words (UR, URLs, Uber), a hashtag, a name in lower case, a link's word after @
    kept = "UR so mad @UBER sent URLs #URI to Uri and @URL @USERS"
    assert shield(kept) == kept
    known = shield.context.known
    assert placeholder("RUL", " ", known) == "URL" and placeholder("RUL", "#", known) is None
    assert placeholder("USDR", "@", known) == "USER" and placeholder("USDR", " ", known) is None
    assert placeholder("jSER", "@", known) == "USER" and placeholder("jSeR", "@", known) is None


@pytest.mark.parametrize("attacked,clean", [
    ("#GeratAwakening is here", "#GreatAwakening is here"),
    ("#Conservatives are #dumberthandogshti", "#Conservatives are #dumberthandogshit"),
    ("#LOVEMYPRESDIENT #MAGA", "#LOVEMYPRESIDENT #MAGA")])
def test_a_mistyped_word_inside_a_hashtag_of_several_words_is_read(shield, attacked, clean):
    assert shield(attacked) == clean
    off = Shield()
    off.hashtags = False
    assert off(attacked) == attacked


@pytest.mark.parametrize("text", [
    "#WalkAway #QAnon #MAGA #KavanaughHearings #SundayFunday",  # words, or used in the tweets
    "#FLOTUSrocks tonight",  # a name in capitals
    "#BrettKavanHaugh said it"])  # two pieces no text has used: no one word to read
def test_a_hashtag_of_words_the_shield_keeps_stays(shield, text):
    assert shield(text) == text


def test_a_run_on_tag_is_cut_with_one_word_mistyped():
    words = {"dumber": -4.6, "than": -3.0, "dog": -3.8, "dogs": -4.2, "it": -2.0, "shit": -2.9}
    score = words.get
    edited = {"hsit": -5.2, "doghs": -6.0}.get  # typos of shit and dogs
    cuts = split_tag("dumberthandoghsit", score, edited)  # by the words' frequencies alone,
    assert [["dumberthandoghsit"[a:b] for a, b in spans][k] for spans, k in cuts] \
        == ["doghs", "hsit"]  # dogs it is likelier than dog shit
    assert split_tag("dumberthandog", score, edited) == []  # no word mistyped: nothing to do
    # so the shield reads each cut, and the one whose words read best together wins
    fixed = {"dumber than dog hsit": "dumber than dog shit",
             "dumber than doghs it": "dumber than dogs it"}
    fluency = {"dumber than dog shit": -9.0, "dumber than dogs it": -12.0}
    assert read_tag("dumberthandoghsit", score, edited, lambda t: fixed.get(t, t),
                    lambda ws: fluency[" ".join(ws)]) == "dumberthandogshit"
    # a tag whose reading changes another word stays; so does one word, mistyped (#paenting)
    # or marked by a capital inside (#feminiGm): the shield reads those as one word
    assert read_tag("dumberthandoghsit", score, edited, lambda t: t.replace("dumber", "dimmer"),
                    lambda ws: 0.0) is None
    for tag in ("paenting", "feminiGm"):
        assert read_tag(tag, score, {"paenting": -5.0}.get, lambda t: 1 / 0, len) is None


@pytest.mark.parametrize("text", [
    "es uno de los mejores filmes que he visto en la vida por su historia",
    "o filme é uma comédia que vale a pena ver por sua história",
    "a película é um desastre do começo ao fim"])
def test_a_line_with_english_function_words_far_likelier_another_language_stays(shield, text):
    # Spanish and Portuguese share a, me, as with English: the words' frequencies decide
    assert shield(text) == text



def test_an_attacked_english_line_is_not_another_language():
    from zeroe_assets.shield.language import other_language

    # shuffled words that happen to be Italian or Spanish (era, si, ni) do not make most words
    assert not other_language("teh nmwoe era ni a dpraea si ogod".split())
    assert other_language("es uno de los mejores filmes que he visto en la vida".split())


def test_a_real_word_the_window_wants_far_more_changes_past_the_bounds(shield):
    # DeepWordBug's real words at a word's end or from a word about as common
    assert shield("A mab is walking his dog") == "A man is walking his dog"
    assert shield("Two girls sit on the sora") == "Two girls sit on the sofa"
    for kept in ["They sat on a sad beach", "I have a cat at home"]:
        assert shield(kept) == kept
    bounded = RealWords(shield.context, sure=None)
    assert bounded.correct("mab", (("<s>", "a"), ("is", "walking"))) is None
    assert shield.real_words.correct("mab", (("<s>", "a"), ("is", "walking"))) == "man"


def test_american_spellings_and_derived_words_the_lexicon_lacks_are_spelled_right(shield):
    from zeroe_assets.shield.spelling import british, spelled_right

    assert british("marveled") == ["marvelled"] and british("humorless") == ["humourless"]
    assert british("caled") == [] and british("hor") == []  # slips for called, hour
    lexicon = shield.lexicon
    for word in ["marveled", "lackluster", "impetuousness", "lethargically"]:
        assert word not in lexicon and spelled_right(word, lexicon)
    for slip in ["caled", "earlly", "sadbess", "wirst"]:
        assert not spelled_right(slip, lexicon)
    for text in ["the director marveled at the humorless crowd",
                 "an impetuousness that feels lethargically preposterous"]:
        assert shield(text) == text
    assert shield("he wouldlike to see it") == "he would like to see it"  # joined, not -like


def test_a_non_word_no_text_has_used_reads_as_a_rarer_word_one_edit_away(shield):
    # DeepWordBug's non-words that the ranker keeps and whose reading is rarer than the
    # channel's usual floor: no tweet, review or word list has them, so they are no slang
    assert shield("WWE cronsiders Raw the bigger show") == "WWE considers Raw the bigger show"
    assert shield("A group of people are rowing towards some islands while one of them "
                  "fisges .").endswith("one of them fishes .")
    # capitalised where names are: only a first letter put for another, to a common word
    assert shield("A child is Ucreaming at the person that almost hit her taxi cab .") \
        .startswith("A child is Screaming at")
    for kept in ["I saw Milson at the store", "the herrmann family came"]:
        assert shield(kept) == kept


def test_a_negation_without_its_apostrophe_is_spelled_right(shield):
    from zeroe_assets.shield.spelling import spelled_right

    assert all(spelled_right(w, shield.lexicon) for w in ["isnt", "didnt", "havent", "aint"])
    assert not spelled_right("ecnt", shield.lexicon)
    text = "he isnt here and she didnt go, we havent seen it, aint that so"
    assert shield(text) == text


def test_an_editors_brackets_inside_a_word_are_no_intrusion(shield):
    for text in ["[t]he film is (R)eally good", "Why do [L]iberals say so"]:
        assert shield(text) == text
    assert shield("the (h)e)l)l)o) world") == "the (hello) world"


def test_a_word_an_editor_put_in_brackets_stays():
    from zeroe_assets.shield import get_shield

    for learned in (True, False):  # the hand-set ranker read *sick*
        shield = get_shield(learned=learned)
        for text in ["He said they was [sic] going home.", "[sic] he wrote", "wrong [sic]"]:
            assert shield(text) == text
        assert shield("T h e [d o g] runs") == "The [dog] runs"


def test_a_hypothesis_reads_against_its_premise(shield):
    # DeepWordBug's real words and non-words under the premise they came from
    cases = [("The boy is on a science field tip .",
              "a young boy using a field microscope during a field trip .", "field trip ."),
             ("Bos are playing .", "The boys are playing with Legos .", "Boys are"),
             ("A woman makes foo .", "An elderly woman is preparing food in the kitchen .",
              "makes food"),
             ("Tow boys watching a superhero show .", "two boys reading superhero books",
              "Two boys")]
    for hypothesis, premise, restored in cases:
        assert restored not in shield.restore(hypothesis)  # alone, nothing says otherwise
        assert restored in shield.restore(hypothesis, anchor=premise)


def test_a_premise_keeps_its_words_plurals_and_function_words_apart(shield):
    for hypothesis, premise in [("A dog runs in the park .", "Two dogs run in a park ."),
                                ("They show up to donate .", "The people show up ."),
                                ("Galina is winning the race .", "one with the label Galina")]:
        assert shield.restore(hypothesis, anchor=premise) == hypothesis
    with pytest.raises(ValueError, match="anchor is text"):
        shield.restore("a text", anchor=3)


def test_a_film_review_is_read_with_the_reviews_context_model(shield):
    # movie-review dev sentences (TextAttack's Pruthi2019 and DeepWordBug): the tweets' model
    # leaves these; the reviews' model, mixed in for a line that reads as a review, reads them
    for attacked, clean in [
            ("a family-friendly fantasy that eds up doing very little with its imaginative "
             "premise .", "ends up"),
            ("definitely wroth 95 minutes of your time .", "definitely worth"),
            ("philip k . dick must be turning in his gqave , along with my stomach .",
             "his grave")]:
        assert clean in shield.restore(attacked)
    # a tweet is still read with the tweets' model: its slang stays
    assert shield.restore("@USER thats ok lol") == "@USER thats ok lol"


def test_a_derived_word_with_its_y_written_i_is_spelled_right(shield):
    from zeroe_assets.shield.spelling import spelled_right, stems

    assert stems("hammi", "ly") == ("hammi", "hammy") and stems("hammi", "ish") == ("hammi",)
    for word in ["hammily", "hamminess"]:
        assert word not in shield.lexicon and spelled_right(word, shield.lexicon)
    # not -y after a stem: one edit of clumsy, merely, They lands on such a form
    assert not any(spelled_right(w, shield.lexicon) for w in ["culmsy", "merley", "threy"])
    text = "tiresomely derivative and hammily acted ."  # hammily was read as family
    assert shield(text) == text


def test_a_hyphenated_compound_the_context_model_has_used_stays(shield):
    assert shield.context.pair("sci", "fi") and not shield.context.pair("sci", "fu")
    text = "illiterate , often inert sci-fi action thriller ."  # fi was read as if
    assert shield(text) == text
    assert shield("a self-awrae film") == "a self-aware film"  # an attacked piece: read


def test_a_derived_word_with_a_mistyped_stem_reads_as_its_stem_s_word(shield):
    # the lexicon lacks tiresomely, so no restorer proposes it; its stem is one edit away
    for typo in ["tresomely", "tiersomely"]:
        assert shield(f"{typo} derivative and hammily acted .") == \
            "tiresomely derivative and hammily acted ."
    assert shield("an utterly pointlss film") == "an utterly pointless film"
    for kept in ["the herrmannly", "Tresomely derivative"]:  # no stem one edit away; a name
        assert shield(kept) == kept


def test_a_dictionary_word_is_not_read_as_another_inflection_of_itself(shield):
    from zeroe_assets.shield.context import inflected

    for pair in [("manages", "managed"), ("ramp", "ramps"), ("use", "used"),
                 ("finishes", "finished")]:
        assert inflected(*pair) and inflected(*reversed(pair))
    assert not any(inflected(*p) for p in [("foo", "food"), ("bus", "bud"), ("sit", "shit")])
    assert shield(". . . somehow manages to escape the shackles of its own clichés to be the "
                  "bext espionage picture .") == (". . . somehow manages to escape the shackles"
                                                  " of its own clichés to be the best espionage "
                                                  "picture .")
    assert shield.real_words.correct("finishes", (("<s>", "allen"), ("her", "exam"))) is None
    # a reading that only adds letters stays one: the truncate attack's things for thing
    assert not shield._inflection(shield.units(["thing"], ["", ""])[0], "things")


@pytest.mark.parametrize("attacked,clean", [
    ("a coming-ofa-ge tale .", "a coming-of-age tale ."),  # Pruthi2019: the hyphen swapped
    ("a coming-o-fage tale .", "a coming-of-age tale ."),  # DeepWordBug's swap
    ("the best hiph-op film", "the best hip-hop film"),
])
def test_a_hyphen_swapped_with_a_letter_goes_back(shield, attacked, clean):
    assert shield(attacked) == clean
    off = Shield()
    off.hyphens = False
    assert off(attacked) != clean


def test_compounds_written_so_keep_their_hyphen(shield):
    lexicon = {"pre", "pred", "dawn", "awn", "file", "to", "fish", "filet"}
    pair = lambda a, b: True  # noqa: E731 - every two words written in a row somewhere
    assert moved(["pre", "dawn"], lexicon, pair) is None  # every piece a word already
    assert moved(["Filet", "O", "Fish"], lexicon, pair) is None  # File-tO-Fish: no case
    assert moved(["ex", "pat"], {"exp", "at"}, lambda a, b: False) is None  # never written
    off = Shield()
    off.hyphens = False
    for text in ("a leaden film destined for pre-dawn cable television slots .",
                 "He's an ex-pat from New Zealand", "a walk-a-thon", "Filet-O-Fish",
                 "pulling money from Medi-care", "Kim Jong-un", "'sit-abouts' in main room"):
        assert shield(text) == off(text)  # whatever else reads them, no hyphen moves


# TextAttack Pruthi2019's successful adversarial texts (dev split: OLID test tweets 400-860, movie
# review test sentences 200-1000) whose attacked word is another dictionary word
PRUTHI_REAL = [
    ("Anytime I randomly bust out laughing it’s because I remembered some dumb sit Albria said",
     "Anytime I randomly bust out laughing it’s because I remembered some dumb shit Albria said"),
    ("leading a double life in an american film only comes to no god , but not here .",
     "leading a double life in an american film only comes to no good , but not here ."),
    ("an often-deadly bring , strange reading of a classic whose witty dialogue is treated with a "
     "baffling casual approach", "an often-deadly boring , strange reading of a classic whose "
     "witty dialogue is treated with a baffling casual approach"),
    ("light , silly , photographed with colour and depth , and rather a god time .",
     "light , silly , photographed with colour and depth , and rather a good time ."),
]


@pytest.mark.parametrize("attacked,clean", PRUTHI_REAL)
def test_a_word_pruthis_inner_edits_made_reads_in_context(shield, attacked, clean):
    assert shield.restore(attacked) == clean
    shield.inner_sure = None  # off: the real-word pass keeps common words
    try:
        assert shield.restore(attacked) == attacked
    finally:
        del shield.inner_sure


def test_only_an_edit_pruthis_attack_makes_counts():
    assert _inner_odds("god", "good") == pytest.approx(-math.log10(8))  # o dropped
    assert _inner_odds("wroth", "worth") == pytest.approx(-math.log10(8))  # swapped
    assert _inner_odds("schm", "scum") is not None  # h is a QWERTY neighbour of u
    for token, word in [("dull", "full"), ("lisr", "list"), ("sit", "sip"), ("scam", "scum"),
                        ("schm", "scheme"), ("good", "good"), ("sat", "set")]:
        assert _inner_odds(token, word) is None  # an end, no neighbour, two edits, short


def test_a_clean_word_its_neighbours_call_for_stays(shield):
    assert shield.restore("I will sit down here for a while .") \
        == "I will sit down here for a while ."
    # a rare word is the real-word pass's to judge (ride reads 2.2 likelier in the window)
    line = "The Pakistani army was rife with elements protective of the Taliban"
    assert shield.restore(line) == line


@pytest.fixture(scope="module")
def lexicon_only():
    shield = Shield()
    shield.web_words = False
    return shield


@pytest.mark.parametrize("text,read", [
    ("sayles directs it with grace .", "sayles directs it with grace ."),  # not *sales*
    ("Pearce is good as the detective .", "Pearce is good as the detective ."),  # not *Peace*
    ("a steven seayal movie on rollerblades .", "a steven seagal movie on rollerblades ."),
    ("a laxkluster film .", "a lackluster film ."),
])
def test_words_of_the_web_list_stay_and_are_read_back(shield, lexicon_only, text, read):
    assert shield.restore(text) == read
    assert lexicon_only.restore(text) != read  # the lexicon alone reads each otherwise


def test_a_list_word_is_not_read_as_its_neighbour_on_the_list(shield):
    # solaris is on the list and one edit from solari, also on it
    assert shield.restore("the new solaris is a good film .") == "the new solaris is a good film ."


def test_the_web_list_leaves_out_typos_joined_words_and_short_words(shield):
    words = shield.webwords
    assert {"sayles", "seagal", "lackluster", "soderbergh"} <= words.words
    # codespell's misspellings (common on the web), two words written together (segment's
    # output), a word with its last letter cut (truncate's), short words
    assert not {"definately", "recieve", "eachother", "infront", "lookin", "privat", "flim",
                "ture"} & words.words
    assert words.near("sayels") == "sayles" and words.near("clioney") == "clooney"
    assert words.near("zayles") is None  # the first letter is kept
    assert words.knows("portillos") and not words.knows("sayels")
    assert "communi" in words and not words.knows("communis")  # communist, cut


def _damaged_lists(real: bytes) -> dict[str, bytes | None]:
    """wordfreq's English list as a user's install may hold it: missing, cut short, not gzip,
    another format's header, no words, entries that are not words."""
    import gzip

    import msgpack

    header = {"format": "cB", "version": 1}
    return {"missing": None, "cut": real[:100_000], "not gzip": b"not a gzip file\n",
            "other header": gzip.compress(msgpack.packb([{"format": "xx"}, ["the"]])),
            "no words": gzip.compress(msgpack.packb([header])),
            "not words": gzip.compress(msgpack.packb([header, [], [1, None, "sayles"]]))}


def test_a_missing_or_damaged_web_list_is_one_error_saying_what_to_reinstall(
        shield, monkeypatch, tmp_path):
    """wordfreq not importable (an editable install from before it was a dependency), or its
    English list damaged: a ValueError (`zeroe`: one line, exit 2) that says to reinstall it,
    not an ImportError/EOFError/LookupError/TypeError traceback nor a shield without the list."""
    import sys

    import wordfreq

    from zeroe_assets.shield.webwords import WebWords

    monkeypatch.setitem(sys.modules, "wordfreq", None)  # what `import` finds when it is absent
    with pytest.raises(ValueError, match=r"needs wordfreq.*pip install --force-reinstall"):
        WebWords(shield.lexicon)
    monkeypatch.setitem(sys.modules, "wordfreq", wordfreq)
    real = (wordfreq.DATA_PATH / "large_en.msgpack.gz").read_bytes()
    try:
        for name, data in _damaged_lists(real).items():
            folder = tmp_path / name
            folder.mkdir()
            if data is not None:
                (folder / "large_en.msgpack.gz").write_bytes(data)
            monkeypatch.setattr(wordfreq, "DATA_PATH", folder)
            _forget(wordfreq)
            with pytest.raises(ValueError, match="wordfreq's English list .*pip install"):
                WebWords(shield.lexicon)
    finally:
        _forget(wordfreq)  # read the real list again after


def _forget(wordfreq) -> None:
    """wordfreq's caches of the lists it has read."""
    wordfreq.get_frequency_list.cache_clear()
    wordfreq.get_frequency_dict.cache_clear()
