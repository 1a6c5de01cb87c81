"""`zeroe defend`: robust encodings, the defended victim's folder, and loading it as a victim."""
from __future__ import annotations

import json
import random
import re
import shutil

import pytest

from zeroe_assets import perturb
from zeroe_assets.cli import main
from zeroe_assets.defend import UNKNOWN, RobustEncoder, defend, load_defended, parse_parts
from zeroe_assets.defend.victim import save_defense
from zeroe_assets.runs import locked
from zeroe_assets.victims import load_victim

OFFENSIVE = ["idiot", "stupid", "moron", "disgusting", "pathetic", "loser", "liar", "garbage"]
FRIENDLY = ["wonderful", "lovely", "thanks", "beautiful", "great", "friend", "happy", "amazing"]
FILLER = ["the", "people", "today", "really", "about", "this", "government", "weekend",
          "country", "morning", "president", "everyone"]


def _tweets(n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        off = i % 2 == 0
        cue = rng.choice(OFFENSIVE if off else FRIENDLY)
        words = rng.sample(FILLER, 5) + [cue]
        rng.shuffle(words)
        out.append((" ".join(words).capitalize(), "OFF" if off else "NOT"))
    return out


def write_tweets(path, n: int, seed: int):
    """``n`` of `_tweets` as an OLID-style file at ``path``."""
    path.write_text("id\ttweet\tsubtask_a\n" + "".join(
        f"{i}\t{t}\t{y}\n" for i, (t, y) in enumerate(_tweets(n, seed))), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def train_file(tmp_path_factory):
    return write_tweets(tmp_path_factory.mktemp("defend") / "train.tsv", 120, 0)


@pytest.fixture(scope="module")
def defended(train_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("defended") / "tc"
    defend("tc", "tc-tfidf", train_file, out, "encode,adversarial", rounds=1, per_round=12,
           progress=False)
    return out


def test_perturbed_words_share_the_encoding_of_the_word():
    encoder = RobustEncoder(["idiot", "government"], anagrams=False)
    clean = encoder.encode("You are an idiot, government")
    assert clean == "you are an idiot government"
    for attacked in ("You are an iidot, government", "You are an i-d-i-o-t, government",
                     "You are an ιdіot, government", "You are an idiot, gvrnmnt"):
        assert encoder.encode(attacked) == clean, attacked


def test_split_words_are_joined_and_anagrams_are_one_class():
    plain = RobustEncoder([], anagrams=False)
    # pieces join only into a word more frequent than the rarest piece: not "a part" → apart
    assert plain.encode("I st ill go ing to a part of it") == "i still going to a part of it"
    assert plain.token("i.d.i.o.t") == "idiot" and plain.encode("s l e e p i n g") == "sleeping"
    anagrams = RobustEncoder([], anagrams=True)
    assert len({anagrams.encode(w) for w in ("evil", "vile", "live", "veil", "ievl")}) == 1
    assert anagrams.encode("read dare") == "read read"


def test_unreadable_tokens_are_one_unknown_word_and_symbols_go():
    encoder = RobustEncoder([])
    assert encoder.encode("qxzvw hello !!! 2018") == f"{UNKNOWN} hello"  # words only
    assert encoder.encode("") == "" and encoder.encode("?!") == ""
    assert encoder.token("wrold") == "world"
    with pytest.raises(ValueError, match="encodes text"):
        encoder.encode(None)


def test_defended_victim_loads_like_any_victim(defended, train_file):
    victim = load_victim(f"defended:{defended}", task="tc")
    assert victim.name == "defended[encode+adv] tc-tfidf"
    texts = ["You are a pathetic moron", "What a wonderful lovely morning"]
    p = victim.predict(texts)
    assert p[0] > 0.5 > p[1]
    # the victim sees encoded text: one change to a cue word changes nothing it sees
    attacked = ["You are a pathteic moorn", "What a wodnerful lovley morning"]
    assert victim.seen(attacked) == victim.seen(texts)
    assert victim.predict(attacked) == p
    # a word shuffled beyond one change is unreadable: it can hide, never become another word
    shuffled = perturb(texts, "inner-shuffle", level="high", seed=3)
    assert set(" ".join(victim.seen(shuffled)).split()) <= set(
        " ".join(victim.seen(texts)).split()) | {UNKNOWN}
    meta = json.loads((defended / "defense.json").read_text())
    assert meta["parts"] == ["encode", "adversarial"] and meta["trained_on"]["examples"] == 120
    # each example, its attacked twin, and what the attack in the loop found on 12 of them
    assert meta["rounds"] == 1 and 0 <= meta["adversarial_found"] <= 12
    assert meta["trained_on"]["rows"] == 240 + meta["adversarial_found"]


def test_a_defense_is_refused_for_another_task_and_when_broken(defended, tmp_path):
    with pytest.raises(ValueError, match="a defense for tc, not nli"):
        load_victim(f"defended:{defended}", task="nli")
    with pytest.raises(ValueError, match="not a defended victim"):
        load_defended(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "defense.json").write_text("{not json")
    with pytest.raises(ValueError, match="corrupt .*defense.json"):
        load_defended(broken)
    (broken / "defense.json").write_text((defended / "defense.json").read_text())
    (broken / "vocabulary.txt").write_text("")
    with pytest.raises(ValueError, match="victim.joblib"):
        load_defended(broken)
    (broken / "victim.joblib").write_bytes(b"\x00garbage")
    with pytest.raises(ValueError, match="cannot load the victim of .*victim.joblib"):
        load_defended(broken)


def test_a_corrupt_vocabulary_is_named(defended, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(defended, broken)
    for junk in (b"\xff\xfe\t1\tx\n", b"a sentence pasted over it\n"):
        (broken / "vocabulary.txt").write_bytes(junk)
        with pytest.raises(ValueError, match=f"{broken / 'vocabulary.txt'}"):
            load_defended(broken)


def test_a_rebuild_that_fails_leaves_no_old_defense_over_new_files(defended, tmp_path,
                                                                   monkeypatch):
    import joblib

    folder = tmp_path / "d"
    shutil.copytree(defended, folder)
    meta = json.loads((folder / "defense.json").read_text())

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(joblib, "dump", killed)
    with pytest.raises(KeyboardInterrupt):  # new vocabulary written, model not yet
        save_defense(folder, meta, {"other": 3}, {}, object())
    with pytest.raises(ValueError, match="not a defended victim"):
        load_defended(folder)


def test_a_second_defend_on_one_folder_is_refused(train_file, tmp_path, capsys):
    out = tmp_path / "d"
    with locked(out, "defend"):  # another defend writing there
        assert main(["defend", "--task", "tc", "--victim", "tc-tfidf", "--train",
                     str(train_file), "--out", str(out), "-q"]) == 75
    assert re.search(r"in use by process \d+ \(zeroe defend\)", capsys.readouterr().err)
    assert not (out / "defense.json").exists()


def test_parts_are_checked_and_ordered():
    assert parse_parts("adversarial,encode") == ["encode", "adversarial"]
    with pytest.raises(ValueError, match="unknown defense part.*robust"):
        parse_parts("robust")
    with pytest.raises(ValueError, match="none given"):
        parse_parts(" , ")


def test_cli_defend_then_search_the_defended_victim(train_file, tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["defend", "--task", "tc", "--victim", "tc-tfidf", "--train", str(train_file),
                 "--out", str(out), "--parts", "encode", "-q"]) == 0
    assert "defended:" in capsys.readouterr().err
    test = tmp_path / "test.tsv"
    write_tweets(test, 6, 1)
    assert main(["search", "--task", "tc", "--victim", f"defended:{out}", "--input", str(test),
                 "--recipe", "deepwordbug", "--out", str(tmp_path / "run"), "-q"]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["examples"] == 6 and summary["clean_accuracy"] == 100.0
    assert main(["defend", "--task", "tc", "--victim", "tc-tfidf", "--train", str(train_file),
                 "--out", str(out), "--parts", "armour"]) == 2
    assert "unknown defense part(s) armour" in capsys.readouterr().err


@pytest.fixture(scope="module")
def monotone(train_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("defended") / "mono"
    defend("tc", "tc-monotone", train_file, out, "encode", progress=False)
    return out


def _holds(label, text: str, surface, tries: int = 30) -> None:
    """A certified text keeps its ``label`` under random perturbations of up to half its words,
    each one change of ``surface``."""
    rng, words = random.Random(0), text.split()
    before = label(text)
    for _ in range(tries):
        out = list(words)
        for i in rng.sample(range(len(words)), len(words) // 2):
            forms = sorted(surface.forms(words[i]))
            if forms:
                out[i] = rng.choice(forms)
        assert label(" ".join(out)) == before, out


@pytest.mark.parametrize("which", ["defended", "monotone"])
def test_certificates_hold_for_the_perturbations_they_cover(which, request):
    from zeroe_assets.defend.certify import Surface, certify, certify_text

    victim = load_defended(request.getfixturevalue(which))
    # tc-monotone's certificates come from its weights' bound, tc-tfidf's from queries
    surface = Surface(["swap", "truncate", "disemvowel", "intrude"] +
                      (["keyboard"] if which == "monotone" else []))
    texts = ["Disgusting pathetic idiot", "Wonderful lovely morning"]
    summary = certify(victim, texts, ["1", "0"], surface, rho=0.5, max_queries=64,
                      progress=False)
    assert summary["examples"] == 2 and summary["clean_accuracy"] == 100.0
    assert set(summary["unstable_words_by_family"]) <= set(surface.families)
    for text, cert in zip(texts, summary["certificates"]):
        if cert["certified"]:
            _holds(lambda t: victim.predict([t])[0] >= 0.5, text, surface)
    if which == "monotone":  # the weights' bound certifies without enumerating
        assert summary["certified"] > 0
    else:
        one = certify_text(victim, "You are a pathetic moron", "1", Surface(["keyboard"]), 0.4, 1)
        assert one.unstable and one.certified is None  # too many combinations for one query
    with pytest.raises(ValueError, match="unknown certificate surface.*typo"):
        Surface(["typo"])


def test_a_guarded_lookup_can_hide_a_weighty_word_but_never_make_one(monotone, tmp_path):
    import shutil

    from zeroe_assets.defend.surface import Surface

    victim = load_defended(monotone)
    encoder, model = victim.encoder, victim.victim
    assert {"moron", "idiot"} <= encoder.guarded  # the words tc-monotone weighs
    assert not encoder.guarded & set(FRIENDLY)  # words it does not weigh are still looked up
    assert encoder.token("lovly") == "lovely"
    surface, floor = Surface(), model.weight(UNKNOWN)
    for word in OFFENSIVE:  # no looked-up form of a weighty word reads as one (intruded
        for form, family in surface.forms(word).items():  # symbols are dropped, not looked up)
            if family != "intrude" and form.lower() not in encoder.vocabulary:
                assert all(model.weight(w) <= floor for w in encoder.token(form).split()), form
    friendly = "What a wonderful lovely morning today"
    assert victim.predict(["What a wonderful lovely moning today"]) <= victim.predict([friendly])
    old = tmp_path / "old"  # a folder built before the guard loads as it was built
    shutil.copytree(monotone, old)
    meta = json.loads((old / "defense.json").read_text())
    del meta["guard"]
    (old / "defense.json").write_text(json.dumps(meta))
    unguarded = load_defended(old).encoder
    assert not unguarded.guarded and unguarded.token("mroon") == "moron"
    assert encoder.token("mroon") == UNKNOWN


def test_cli_certify_writes_the_certificates(defended, tmp_path, capsys):
    test = tmp_path / "test.tsv"
    test.write_text("id\ttweet\tsubtask_a\n1\tYou are a pathetic moron\tOFF\n"
                    "2\tWhat a lovely morning\tNOT\n", encoding="utf-8")
    assert main(["certify", "--task", "tc", "--victim", f"defended:{defended}", "--input",
                 str(test), "--surface", "swap,truncate", "--out", str(tmp_path / "c.json"),
                 "-q"]) == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads((tmp_path / "c.json").read_text())
    assert printed["examples"] == saved["examples"] == 2
    assert len(saved["certificates"]) == 2 and "certificates" not in printed
    assert main(["certify", "--task", "tc", "--victim", "tc-tfidf", "--input", str(test)]) == 2


def _uncertified_tweet(tmp_path, monkeypatch):
    """One tweet to certify, with `certify` itself replaced by a failure: what a test passes it
    must be refused before any certificate is made."""
    import zeroe_assets.defend.certify as C

    test = tmp_path / "test.tsv"
    test.write_text("id\ttweet\tsubtask_a\n1\tYou are a pathetic moron\tOFF\n",
                    encoding="utf-8")
    monkeypatch.setattr(C, "certify", lambda *a, **k: pytest.fail("certified first"))
    return test


def test_cli_certify_refuses_a_folder_for_out_before_it_works(defended, tmp_path, capsys,
                                                              monkeypatch):
    test = _uncertified_tweet(tmp_path, monkeypatch)
    assert main(["certify", "--task", "tc", "--victim", f"defended:{defended}", "--input",
                 str(test), "--out", str(tmp_path), "-q"]) == 2
    assert f"--out {tmp_path} is a folder" in capsys.readouterr().err
    blocked = tmp_path / "a-file" / "certificates.json"  # a folder that cannot be made
    blocked.parent.write_text("")
    assert main(["certify", "--task", "tc", "--victim", f"defended:{defended}", "--input",
                 str(test), "--out", str(blocked), "-q"]) == 2
    assert f"error: cannot write {blocked}: Not a directory" in capsys.readouterr().err


def test_cli_certify_refuses_an_empty_surface_before_it_works(defended, tmp_path, capsys,
                                                            monkeypatch):
    test = _uncertified_tweet(tmp_path, monkeypatch)
    # `--surface ''` (or `,`) names no family: it certified the whole default surface, exit 0
    for empty in ("", ","):
        assert main(["certify", "--task", "tc", "--victim", f"defended:{defended}", "--input",
                     str(test), "--surface", empty, "-q"]) == 2
        assert capsys.readouterr().err == ("zeroe certify: error: --surface is empty (none "
                                           "given): name at least one, or leave it out for "
                                           "the default\n")


def test_a_defense_with_the_shield_in_front_is_not_certified(monotone):
    from zeroe_assets.defend.certify import Surface, certify_text
    from zeroe_assets.defend.victim import DefendedVictim
    from zeroe_assets.shield import get_shield

    # the shield reads a word from its neighbours (*heartfelt* → *heartofelt* turned back
    # otherwise): certificates that read words alone would claim what it does not hold
    plain = load_defended(monotone)
    shielded = DefendedVictim(plain.victim, "tc", plain.encoder, get_shield())
    with pytest.raises(ValueError, match="shield in front"):
        certify_text(shielded, "What a lovely morning", "0", Surface(["swap"]))


def test_sources_undo_every_change_of_the_surface():
    from zeroe_assets.defend.surface import Surface

    counts = {w: 2 + i for i, w in enumerate(OFFENSIVE + FRIENDLY + FILLER)}
    surface, families = Surface(), set()
    for word in ["idiot", "People", "wonderful", "THE", "government"]:
        forms = surface.forms(word)
        families |= set(forms.values())
        for form in forms:  # every one-change form leads back to its word, whatever the case
            assert word.lower() in surface.sources(form, counts), (word, form)
    assert families == set(surface.families)
    assert surface.sources("qxzv", counts) == set() and surface.sources("idiot", counts) == set()


def test_clusters_merge_rare_neighbours_but_never_two_frequent_words():
    from zeroe_assets.defend.clusters import build_clusters
    from zeroe_assets.defend.surface import Surface

    counts = {"duck": 3, "fuck": 90, "suck": 40, "luck": 2, "lick": 30, "moron": 50}
    surface = Surface(["keyboard", "insert", "delete"])
    assert build_clusters(counts, surface, 0) == {w: w for w in counts}
    clusters = build_clusters(counts, surface, 10)
    # duck (rare) touches fuck and suck (d–f, d–s keys): it joins the most frequent
    assert clusters["duck"] == "fuck" and clusters["suck"] == "suck"
    assert clusters["luck"] == "lick" and clusters["moron"] == "moron"
    for rep in set(clusters.values()):
        assert sum(counts[w] >= 10 for w in clusters if clusters[w] == rep) <= 1
    connected = build_clusters(counts, surface, 10**9)  # RobEn's connected components
    assert len({connected[w] for w in ("duck", "fuck", "suck")}) == 1  # two frequent words
    assert connected["luck"] == connected["lick"] != connected["duck"]  # no change links them


def test_an_encoding_with_counts_reads_one_change_back_to_the_word():
    counts = {"idiot": 40, "government": 9, "moron": 12, "morons": 2}
    encoder = RobustEncoder(counts, counts=counts, clusters={"morons": "moron"})
    for token in ("idoit", "iduot", "idi-ot", "ıdiot", "goverment", "gvrnmnt", "morons"):
        assert encoder.encode(token).split()[0] in ("idiot", "government", "moron"), token
    assert encoder.encode("moron morons") == "moron moron"
    assert encoder.token("morins") == "moron"  # one change from morons, whose cluster is moron


def test_symbols_between_pieces_never_split_a_word_into_other_words():
    counts = {"shootings": 30, "shit": 40, "still": 25, "and": 90, "or": 50, "censorship": 3}
    encoder = RobustEncoder(counts, counts=counts)
    for token in ("sho-ot-i-ngs", "#S#h#oot#i#n#gs,", "c_en_sor_shi_p"):
        assert "shit" not in encoder.encode(token).split(), token  # before: the piece *shi*
    assert encoder.encode("s*t*il*l") == "still"
    assert encoder.encode("and/or") == "and or"  # pieces that are all words stay words


def test_without_restorers_an_unknown_token_is_never_guessed_into_a_word():
    counts = {"follow": 30, "fuck": 40}
    guessing = RobustEncoder(counts, counts=counts)
    strict = RobustEncoder(counts, counts=counts, restore=False)
    assert strict.encode("fcuk follow") == guessing.encode("fcuk follow") == "fuck follow"
    for token in ("dudcu", "xqzzv", "qpzmt"):  # no lookup finds them: no word, whatever reads
        assert strict.encode(token) == UNKNOWN


def test_the_vocabulary_leaves_out_the_pieces_words_are_split_into():
    from zeroe_assets.defend.encoding import vocabulary
    from zeroe_assets.shield import get_shield

    texts = ["f ck you", "f ck him", "go to it"] * 2
    assert {"ck", "f"} <= set(vocabulary(texts))
    kept = vocabulary(texts, lexicon=get_shield().lexicon)
    assert "ck" not in kept and {"you", "him", "go", "to", "it"} <= set(kept)
    assert kept["you"] == 2


def test_the_combinations_are_counted_without_listing_them():
    import math
    from itertools import combinations

    from zeroe_assets.defend.certify import _combinations

    sizes = [3, 1, 4, 2, 5]
    for budget in range(1, 6):
        listed = sum(math.prod(c) for r in range(1, budget + 1) for c in combinations(sizes, r))
        assert _combinations(sizes, budget) == listed
    assert _combinations([50] * 40, 12) > 10**20  # counted at once where listing never ends


def test_a_guarded_cluster_is_not_read_into_its_rare_members():
    counts = {"hell": 90, "hill": 3, "will": 80, "still": 40, "stil": 2}
    clusters = {"hill": "hell", "stil": "still"}
    encoder = RobustEncoder(counts, counts=counts, clusters=clusters, restore=False)
    assert encoder.encode("hill will stil") == "hell will still"
    encoder.guard(["hell", "hill"])  # what a monotone victim weighs: hell's cluster
    assert encoder.encode("hill will stil hell") == f"{UNKNOWN} will still hell"
    assert encoder.token("hilk") == UNKNOWN  # one change from hill, which is no longer hell


def test_an_aware_attack_pays_only_for_what_the_model_has_not_seen(defended):
    from zeroe_assets.search import get_recipe

    class Recorder:  # the model behind the defense, noting what it is asked
        def __init__(self, model):
            self.model, self.got = model, []

        def predict(self, batch):
            self.got += batch
            return self.model.predict(batch)

    victim = load_defended(defended)
    examples = [(t, "1" if y == "OFF" else "0") for t, y in _tweets(12, 7)]
    plain, aware = (get_recipe("textfooler-zeroe", "tc", max_queries=400, aware=a)
                    for a in (False, True))
    saved = 0
    for i, example in enumerate(examples):
        a = plain.run(example, victim, index=i)
        model, victim.victim = victim.victim, Recorder(victim.victim)
        b = aware.run(example, victim, index=i)
        got, victim.victim = victim.victim.got, model
        # the same search (a text the model saw before has the same outcome), fewer queries:
        # one per text the model gets, never the same text twice
        assert (b.status, b.adversarial) == (a.status, a.adversarial)
        assert b.queries == len(got) == len(set(got)) and b.queries <= a.queries <= 400
        saved += a.queries - b.queries
    assert saved > 0
    bare = load_victim("tc-tfidf", defended / "victim.joblib")  # nothing in front: no saving
    assert aware.run(examples[0], bare).queries == plain.run(examples[0], bare).queries


def test_a_token_reads_as_the_one_word_its_letters_spell():
    counts = {"choir": 3, "married": 2, "shot": 4, "host": 5}
    encoder = RobustEncoder(counts, counts=counts, restore=False)
    assert encoder.encode("ricoh miaerrd") == "choir married"  # shuffles of one word
    assert encoder.encode("ꓚḥ0ir") == "choir"  # three look-alikes: more than one change
    assert encoder.encode("tohs") == UNKNOWN  # shot or host: either would be a guess
    assert encoder.encode("xjpor marr") == "choir married"  # every letter a key away; a cut
    assert encoder.encode("choirmarried") == "choir married"  # words joined: split again
    # a word's own shuffles, slips and cuts that are no words read as no other word: the word is
    # among their keys
    words = ["choir", "married", "shot", "host", "chair", "marries"]
    many = RobustEncoder(words, counts=dict.fromkeys(words, 3), restore=False)
    for word in words:
        for level in ("low", "mid", "high"):
            for attack in ("full-shuffle", "keyboard-typo", "truncate"):
                token = perturb([word], attack, level=level, seed=7)[0]
                if token not in words:  # shot → host is a word: kept as written
                    assert many.encode(token) in (word, UNKNOWN), (word, attack, token)
    encoder.guard(["married"])  # a word a monotone victim weighs: hidden, never made
    assert encoder.encode("miaerrd") == UNKNOWN


def test_a_hypothesis_token_that_perturbs_a_premise_word_is_that_word():
    counts = {"choir": 3, "church": 5, "sings": 4, "shot": 4, "host": 5}
    encoder = RobustEncoder(counts, counts=counts, restore=False)
    premise = "The church choir sings and a man shot a bird ."
    # a cut of two, a shuffle of two words' letters, a letter no key near: each beyond what a
    # token read alone can be
    for token, word in (("cho", "choir"), ("tohs", "shot"), ("sinqs", "sings")):
        clean = encoder.encode(f"The {word}")
        assert encoder.encode(f"The {token}", anchor=premise) == clean, token
        assert encoder.encode(f"The {token}") != clean, token
    # real words stay themselves; a token that could be two premise words is left to the encoding
    assert encoder.encode("The chorus sings", anchor=premise).split()[1] == "chorus"
    assert encoder.encode("sngs", anchor="she sings songs") == encoder.encode("sngs")


def _pair_defense(out):
    """A defended ``nli-tfidf`` trained on 60 templated pairs, with the defaults for pairs."""
    rng = random.Random(0)
    people, acts = ["man", "woman", "child", "dog"], ["running", "sleeping", "singing", "eating"]
    rows = []
    for i in range(60):
        who, act, other = rng.choice(people), rng.choice(acts), rng.choice(acts)
        premise = f"A {who} is {act} outside ."
        label, hyp = [("entailment", f"The {who} is {act} ."),
                      ("contradiction", f"The {who} is {other if other != act else 'flying'} ."),
                      ("neutral", f"The {who} is {act} with friends .")][i % 3]
        rows.append(f"{label}\t{premise}\t{hyp}\n")
    train = out.parent / "nli.tsv"
    train.write_text("gold_label\tsentence1\tsentence2\n" + "".join(rows), encoding="utf-8")
    return defend("nli", "nli-tfidf", train, out, progress=False)


def test_a_defended_pair_victim_reads_the_hypothesis_against_its_premise(tmp_path):
    out = tmp_path / "d"
    victim = _pair_defense(out)
    meta = json.loads((out / "defense.json").read_text())
    assert meta["anchors"] is True and meta["unknown_twins"] == 2  # the defaults for pairs
    premise = "A woman is sleeping outside ."
    clean = victim.seen([(premise, "The woman is sleeping .")])
    for hyp in ("The wmoan is sleeping .", "The womcn is sleeping .", "The woman is sle ."):
        assert victim.seen([(premise, hyp)]) == clean, hyp
    meta = json.loads((out / "defense.json").read_text())
    del meta["anchors"]  # a folder from before anchors loads as it was built: unanchored
    (out / "defense.json").write_text(json.dumps(meta), encoding="utf-8")
    assert load_defended(out).seen([(premise, "The womcn is sleeping .")]) != clean


def test_unknown_twins_hide_one_hypothesis_word_each():
    from zeroe_assets.defend.twins import with_unknown

    seen = [("a man sleeps", "the man is asleep"), ("a dog", "an animal"), ("x", "a b")]
    twins, labels = with_unknown(seen, ["e", "e", "n"], "pairs", 2, seed=0)
    assert labels == ["e", "e", "e", "e"]  # "a b" has no word to hide: no twin
    for (premise, hyp), (p0, h0) in zip(twins, seen[:2] * 2):
        assert premise == p0 and hyp.count(UNKNOWN) == 1 and len(hyp.split()) == len(h0.split())
        assert sum(a != b for a, b in zip(hyp.split(), h0.split())) == 1
    assert with_unknown(seen, ["e", "e", "n"], "pairs", 2, seed=0) == (twins, labels)
    texts, _ = with_unknown(["you are an idiot"], [1], "texts", 1, seed=3)
    words = texts[0].split()  # "an" is too short to hide: it stays
    assert words.count(UNKNOWN) == 1 and words[2] == "an" and len(words) == 4


def test_worst_twins_change_one_word_on_the_surface_and_are_the_lowest_scored(tmp_path,
                                                                              monkeypatch):
    """Each pair's twins are its encoding with one hypothesis word taking the encoding of one of
    its one-change forms, and the two the trained victim gives the lowest gold probability, also
    when the examples are scored in blocks of one; pairs are trained on three rounds of them."""
    from zeroe_assets.defend import twins as twins_module
    from zeroe_assets.defend.surface import Surface
    from zeroe_assets.shield.core import split

    victim = _pair_defense(tmp_path / "d")
    meta = json.loads((tmp_path / "d" / "defense.json").read_text())
    assert meta["worst_rounds"] == 3  # the default for pairs
    assert meta["trained_on"]["rows"] >= 60 + 2 * 60 + 3 * 60  # unknown twins, worst twins
    pairs = [("A man is sleeping outside .", "A man is in a tent ."),
             ("A dog is eating outside .", "The dog is at home with friends .")]
    gold = ["entailment", "neutral"]
    seen = victim.seen(pairs)
    surface = Surface()
    worst = twins_module.WorstTwins(victim.encoder, pairs, seen, "pairs", surface)
    monkeypatch.setattr(twins_module, "BLOCK", 1)
    found, labels = worst(victim.victim, gold, 2, "nli")
    assert labels == ["entailment", "entailment", "neutral", "neutral"]
    at = 0
    for j, (premise, hypothesis) in enumerate(pairs):
        words = split(hypothesis)[0]
        encoded = [victim.encoder.token(w, premise) for w in words]
        options = {" ".join(encoded[:i] + [victim.encoder.token(form)] + encoded[i + 1:])
                   for i, w in enumerate(words) for form in surface.forms(w)}
        options = sorted(options - {" ".join(encoded)})
        column = victim.victim.labels.index(gold[j])
        score = dict(zip(options, (row[column] for row in
                                   victim.victim.scores([(seen[j][0], h) for h in options]))))
        assert len(score) >= 3  # short words and words the victim never saw: unkword
        mine, at = found[at:at + 2], at + 2
        assert all(p == seen[j][0] and h in score for p, h in mine)
        assert [score[h] for _, h in mine] == sorted(score.values())[:2]
    with pytest.raises(ValueError, match="--parts encode"):
        defend("nli", "nli-tfidf", tmp_path / "nli.tsv", tmp_path / "x", "adversarial",
               worst_rounds=1, progress=False)


def test_pair_certificates_hold_for_the_perturbations_they_cover(tmp_path):
    from zeroe_assets.defend.certify import Surface, certify

    victim = _pair_defense(tmp_path / "d")
    surface = Surface(["swap", "truncate", "delete", "keyboard"])
    pairs = [("A woman is sleeping outside .", "The woman is sleeping ."),
             ("A dog is running outside .", "The dog is running with friends ."),
             ("A man is singing outside .", "The man is eating .")]
    gold = ["entailment", "neutral", "contradiction"]
    summary = certify(victim, pairs, gold, surface, rho=0.5, max_queries=4096, progress=False)
    assert summary["examples"] == 3 and summary["certified"] > 0
    for (premise, hyp), cert in zip(pairs, summary["certificates"]):
        if cert["certified"]:
            _holds(lambda h, p=premise: victim.predict([(p, h)])[0], hyp, surface)


def test_a_certificate_reads_each_word_as_the_victim_does(defended):
    from zeroe_assets.defend.certify import Surface, certify_text

    victim = load_defended(defended)
    encoder, surface = victim.encoder, Surface(["swap", "keyboard"])
    text = "#PatheticMoron what a lovely morning"  # a tag the encoding reads as its words
    assert encoder.encode(text).split()[:2] == ["pathetic", "moron"]
    for form in ["PatheticMoron", *sorted(surface.forms("PatheticMoron"))[:40]]:
        assert encoder.token(form) == encoder.encode(form), form
    cert = certify_text(victim, text, "1", surface)
    assert cert.correct == (victim.predict([text])[0] >= 0.5)
    # words the encoding joins (*morn ing*) cannot be enumerated one by one: undecided
    assert certify_text(victim, "What a lovely morn ing", "0", surface).certified is None


def test_a_refuted_certificate_keeps_a_perturbed_text_that_changes_the_label(defended):
    from zeroe_assets.defend.certify import Surface, certify, certify_text

    victim = load_defended(defended)
    surface = Surface(["truncate", "keyboard", "delete"])
    # mixed cues near the boundary: a few changed short words move the label
    texts = ["You are a stupid and lovely today", "You are a moron and wonderful morning"]
    # one query allowed: too many combinations to enumerate, so the greedy search decides
    summary = certify(victim, texts, ["1", "0"], surface, rho=0.5, max_queries=1, progress=False)
    refuted = [c for c in summary["certificates"] if c["certified"] is False]
    assert refuted and summary["refuted"] > 0
    for text, cert in zip(texts, summary["certificates"]):
        if cert["certified"] is False:  # the kept text really changes the whole victim's label
            assert (victim.predict([cert["counterexample"]])[0] >= 0.5) != \
                (victim.predict([text])[0] >= 0.5)
            assert cert["counterexample"] != text
    assert summary["certified_accuracy"] <= summary["certified_accuracy_at_most"]
    # a symbol links *far-right*: a perturbed piece joins both into one token, so never certified
    linked = certify_text(victim, "What a wonderful far-right morning", "0", surface, 0.5, 4096)
    assert linked.certified in (None, False)


def test_a_change_the_encoding_joins_with_a_neighbour_is_read_in_context(monotone):
    from zeroe_assets.defend.certify import Surface, _bounded, _in_context, _Sentence
    from zeroe_assets.shield.core import split

    victim = load_defended(monotone)
    encoder, surface = victim.encoder, Surface(["truncate"])
    # *are* cut to *ar* before *a* reads as *ara* in the sentence, not as *ar* + *a*
    assert encoder.encode("You ar a pathetic moron").split()[:2] == ["you", "ara"]
    words, gaps = split("You are a pathetic moron")
    encoded = [encoder.token(w) for w in words]
    sentence = _Sentence(encoder, "You are a pathetic moron", words, gaps, encoded, None)
    assert _in_context(encoder, sentence, encoded, 1, surface) == [
        encoder.encode("You ar a pathetic moron")]
    assert not _in_context(encoder, sentence, encoded, 4, surface)  # *moro*: no join
    # the weights' bound takes the sentence read in place: *a* gone with *are* counts too
    model, context = victim.victim, {1: [encoder.encode("You ar a pathetic moron")]}
    (z,) = model.logits([" ".join(encoded)])
    assert z >= 0 and _bounded(model, encoded, [], 1, context)  # *you*, *are*, *a* weigh 0
    assert model.logits([encoder.encode("You ar a pathetic moron")])[0] >= 0
    # a word with an apostrophe is read alone as `encode` reads it: *pa'role* is *parole*
    assert encoder.token("pa'role") == encoder.encode("pa'role")


def test_the_monotone_bound_reads_linked_and_joined_words_in_their_sentence(monotone):
    from zeroe_assets.defend.certify import Surface, _bounded, certify_text
    from zeroe_assets.shield.core import split
    from zeroe_assets.tokenize import join

    victim, surface, rng = load_defended(monotone), Surface(["truncate", "swap", "keyboard"]), \
        random.Random(0)
    label = (lambda text: victim.predict([text])[0] >= 0.5)
    # a symbol links *people-today*, the encoding joins *st ill*: no slots to read one by one,
    # so each form is read in its sentence and the weights' bound takes those sentences
    for text in ("What a lovely people-today morning", "What a lovely st ill morning",
                 "Thanks everyone, a wonderful weekend-morning"):
        cert = certify_text(victim, text, "0", surface, 0.5, 1)
        assert cert.certified and cert.correct and cert.unstable
        words, gaps = split(text)
        forms = [sorted(surface.forms(w)) for w in words]
        texts = [join(words[:i] + [f] + words[i + 1:], gaps)
                 for i in range(len(words)) for f in forms[i]]
        for _ in range(100):
            out = list(words)
            for i in rng.sample(range(len(words)), len(words) // 2):
                out[i] = rng.choice(forms[i]) if forms[i] else out[i]
            texts.append(join(out, gaps))
        assert not any(label(t) for t in texts)
    # a reading that drops one of two copies takes that word away: both dropped, it is gone
    model = victim.victim
    assert model.logits(["you idiot and idiot"])[0] >= 0 > model.logits(["you and"])[0]
    assert not _bounded(model, ["you idiot and idiot"], [], 2,
                        {1: ["you and idiot"], 3: ["you idiot and"]})


# words the encoding joins (*st ill*, *s.t.i.l.l*, *typic al*, *ov a*), symbols between pieces
# (*far-right*, *and/or*), #tags, @mentions, a URL, look-alikes, accents and digits
_TRICKY = ("the a of to is in on still st ill s.t.i.l.l go ing typical typic al ov you ar are "
           "moron idiot far-right and/or into some thing #tag @user http://x.co/y café naïve "
           "Ηello Α I x 42 wonderful morning people today").split()
_GAPS = [" "] * 12 + [", ", ". ", " - ", "  ", "--", " (", ") ", "-", "/", "."]


def _tricky(rng: random.Random, n: int) -> str:
    """A text of ``n`` words: mostly plain, with a share (drawn per text) of tricky words and
    gaps, repeated words included."""
    share = rng.random() * 0.4
    words = [rng.choice(_TRICKY) if rng.random() < share else rng.choice(FILLER + FRIENDLY)
             for _ in range(n)]
    return words[0] + "".join((rng.choice(_GAPS) if rng.random() < share else " ") + w
                              for w in words[1:])


@pytest.mark.parametrize("which", ["monotone", "pairs"])
def test_a_form_reads_in_a_window_as_in_its_whole_sentence(which, request, tmp_path):
    """Where a window of words around a form is read instead of the whole text, it reads as the
    whole text does, for every form tried (joinable pieces, symbols, anchors, unicode)."""
    from zeroe_assets.defend.certify import Surface, _joined, _Sentence
    from zeroe_assets.shield.core import split

    victim = load_defended(request.getfixturevalue("monotone")) if which == "monotone" \
        else _pair_defense(tmp_path / "d")
    encoder, surface, rng = victim.encoder, Surface(), random.Random(1)
    premise = "A woman is sleeping outside with a wonderful dog and still typical people ."
    windowed = tried = 0
    for _ in range(20):
        text = _tricky(rng, rng.randint(40, 70))
        anchor = premise if which == "pairs" else None
        words, gaps = split(text)
        encoded = [encoder.token(w, anchor) for w in words]
        sentence = _Sentence(encoder, text, words, gaps, encoded, anchor)
        assert sentence.whole == encoder.encode(text, anchor=anchor)
        for i in rng.sample(range(len(words)), 5):
            forms = sorted(surface.forms(words[i]))
            for form in rng.sample(forms, min(8, len(forms))):
                near, tried = sentence.near(i, form), tried + 1
                if near is not None:
                    windowed += 1
                    low, high, middle = near
                    assert _joined(sentence.encodings(0, low) + middle + sentence.encodings(
                        high, len(words))) == sentence.read(i, form), (text, i, form)
    assert windowed > tried / 4  # most forms are read in a window


def test_a_window_is_never_read_for_an_encoding_with_restorers(monotone):
    from zeroe_assets.defend.certify import _Sentence
    from zeroe_assets.shield.core import split

    encoder = load_defended(monotone).encoder
    guessing = RobustEncoder(encoder.vocabulary, counts=encoder.counts, restore=True)
    text = " ".join(FILLER * 6)
    words, gaps = split(text)
    for which, windows in ((encoder, True), (guessing, False)):
        sentence = _Sentence(which, text, words, gaps, [which.token(w) for w in words], None)
        assert (sentence.near(36, "peolpe") is not None) is windows


def _counting(encoder) -> list[int]:
    """How many words the encoding's units were made of, call by call (`Shield.units`)."""
    seen, units = [], encoder.shield.units

    def counted(words, gaps, *args, **kwargs):
        seen.append(len(words))
        return units(words, gaps, *args, **kwargs)

    encoder.shield.units = counted
    return seen


def test_a_long_text_is_certified_reading_windows_around_its_words(monotone):
    """A text of thousands of words: each form is read in a window, so the words the encoding
    reads grow with the text's length, not its square; a text of copies of one sentence has
    that sentence's unstable words, copy by copy."""
    from zeroe_assets.defend.certify import Surface, certify_text

    victim = load_defended(monotone)
    surface = Surface(["truncate", "swap", "keyboard"])
    block = "Thanks, you are a wonderful friend and a happy person today."  # *ar a*: *ara*
    one = certify_text(victim, block, "0", surface, 0.3, 4)
    seen = _counting(victim.encoder)
    copies = 300
    cert = certify_text(victim, " ".join([block] * copies), "0", surface, 0.3, 4)
    n = cert.words
    assert n == one.words * copies and sum(seen) < 100 * n  # the whole text per form: n * n
    assert cert.certified is one.certified is True
    assert cert.unstable == one.unstable * copies
    assert cert.families == {f: k * copies for f, k in one.families.items()}


@pytest.mark.parametrize("which", ["monotone", "defended"])
def test_certificates_are_the_same_read_in_windows_or_whole(which, request, monkeypatch):
    """The certificates with windows are those of reading each form's whole text."""
    from zeroe_assets.defend.certify import Surface, _Sentence, certify

    victim, rng = load_defended(request.getfixturevalue(which)), random.Random(2)
    texts = [_tricky(rng, rng.randint(30, 60)) for _ in range(6)]
    gold = ["1", "0"] * 3
    surface = Surface(["truncate", "swap", "keyboard"])
    windowed = certify(victim, texts, gold, surface, 0.3, 16, progress=False)
    monkeypatch.setattr(_Sentence, "near", lambda self, i, form: None)
    assert certify(victim, texts, gold, surface, 0.3, 16, progress=False) == windowed
