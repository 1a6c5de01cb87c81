"""The tweet counts behind the shield's lexicon (`train.shield.tweets`, `data/tweets.tsv`): words
of insult and slang count as often as OLID's training tweets use them, no word is added, and the
packaged table is what the generator writes from the training split."""
from __future__ import annotations

import csv

from tests.conftest import DATA, needs_data
from train.shield.tweets import MIN_COUNT, SOURCE, count_words, write_table
from zeroe_assets.data import data_path
from zeroe_assets.shield import get_shield
from zeroe_assets.shield.lexicon import _tweets, load_lexicon


def test_counts_stems_in_lower_case_without_the_placeholders():
    counts, total = count_words(["@USER That's crap!! URL", "CRAP crap café"])
    assert counts == {"that": 1, "crap": 3}  # 's cut off; @USER, URL, café not counted
    assert total == 4


def test_only_known_words_rarer_than_in_tweets_are_raised(tmp_path):
    counts, total = count_words(["crap " * MIN_COUNT + "blorf " * MIN_COUNT + "the " * 9])
    path = tmp_path / "tweets.tsv"
    write_table(counts, total, path)
    books = {"crap": 1, "the": 10 ** 6, "house": 50}
    raised = _tweets(books, 10 ** 7, path)
    assert raised == {"crap": int(MIN_COUNT / total * 10 ** 7)}  # the: commoner in books


@needs_data(SOURCE)
def test_the_packaged_table_is_the_training_split_counted():
    with open(DATA / SOURCE, encoding="utf-8", newline="") as f:
        tweets = [row["tweet"] for row in csv.DictReader(f, delimiter="\t",
                                                         quoting=csv.QUOTE_NONE)]
    counts, total = count_words(tweets)
    lines = data_path("tweets.tsv").read_text(encoding="utf-8").splitlines()
    assert f"# total\t{total}" in lines
    table = dict(line.split("\t") for line in lines if not line.startswith("#"))
    assert table == {w: str(c) for w, c in counts.items() if c >= MIN_COUNT}


# TextAttack's texts on OLID test tweets 200–400 (the transfer benchmark's dev split): the
# insult the attack hid is no longer rated rarer than another reading (hsit was *hist*)
HIDDEN = {"females b on the same hsit URL": "females b on the same shit URL",
          "When she takes her niyga name out her bio. URL":
          "When she takes her nigga name out her bio. URL"}


def test_a_hidden_insult_is_read_back():
    shield = get_shield()
    for attacked, clean in HIDDEN.items():
        assert shield.restore(attacked) == clean
    text = "That naïve café owner is full of crap, damn it ."  # spelled right: kept
    assert shield.restore(text) == text


def test_the_books_total_stays_and_raised_words_only_rise():
    lexicon = load_lexicon()
    raised = _tweets(lexicon.counts, lexicon.total)  # already raised: nothing rises again
    assert raised == {}
    for word in ("shit", "crap", "nigga"):
        assert lexicon.logfreq(word) > -4.1  # Google's books: -4.59, -4.88, -5.66
    assert lexicon.logfreq("caught") > -4.5  # the books' scale: the noisy channel's bound holds
