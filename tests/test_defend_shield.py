"""The shield part of a defended victim: its guess mode recorded in ``defense.json``
(``--shield-guess``), old folders loading as they were built, and the shield put in front of a
folder trained without it (``zeroe defend --from DIR --add-shield``) querying as ``zeroe search
--shield`` in front of ``defended:DIR`` does."""
from __future__ import annotations

import json
import os

import pytest

from zeroe_assets import perturb
from zeroe_assets.cli import main
from zeroe_assets.defend import add_shield, defend, load_defended
from zeroe_assets.shield import ShieldedVictim, get_shield

from .test_defend import write_tweets

ATTACKED = ["You are a pathteic moorn", "What a wodnerful lovley morning",
            "the presidnet is a lair", "thnaks everyone for a graet weekend"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("defguess")
    return {"train": write_tweets(root / "train.tsv", 60, 0),
            "test": write_tweets(root / "test.tsv", 4, 1), "root": root}


@pytest.fixture(scope="module")
def encoded(files):
    """A victim trained behind the encoding only (no shield), as the MiniLM of the MR row."""
    out = files["root"] / "encode"
    defend("tc", "tc-tfidf", files["train"], out, "encode", progress=False)
    return out


def _meta(folder) -> dict:
    return json.loads((folder / "defense.json").read_text(encoding="utf-8"))


def test_the_shield_part_records_its_guess_mode_and_loads_with_it(files, tmp_path):
    out = tmp_path / "guess"
    victim = defend("tc", "tc-tfidf", files["train"], out, "shield,encode", shield_guess=True,
                    progress=False)
    meta = _meta(out)
    assert meta["parts"] == ["encode", "shield"] and meta["shield_guess"] is True
    assert meta["shield_trained"] is True and meta["shield"] == list(get_shield().mechanisms)
    assert victim.shield.guess and load_defended(out).shield is get_shield(meta["shield"],
                                                                           guess=True)
    with pytest.raises(ValueError, match="in front already: trained behind it"):
        add_shield(out, tmp_path / "again")  # which shield would the model have seen?


def test_a_folder_from_before_the_guess_mode_loads_as_it_was_built(files, tmp_path):
    out = tmp_path / "old"
    defend("tc", "tc-tfidf", files["train"], out, "shield,encode", progress=False)
    meta = _meta(out)
    assert meta["shield_guess"] is False
    old = {k: v for k, v in meta.items() if k not in ("shield_guess", "shield_trained")}
    (out / "defense.json").write_text(json.dumps(old), encoding="utf-8")  # the format of before
    victim = load_defended(out)
    assert victim.shield is get_shield(meta["shield"]) and not victim.shield.guess
    assert victim.name == "defended[encode+shield] tc-tfidf"
    # and one without a shield, as the first folders wrote it ("shield": null)
    plain = tmp_path / "plain"
    defend("tc", "tc-tfidf", files["train"], plain, "encode", progress=False)
    assert _meta(plain)["shield"] is None and load_defended(plain).shield is None


def test_shield_guess_without_the_shield_is_refused_in_one_line(files, tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["defend", "--task", "tc", "--victim", "tc-tfidf", "--train",
                 str(files["train"]), "--out", str(out), "--parts", "encode",
                 "--shield-guess", "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--shield-guess" in err and "add shield to the parts" in err and "\n" not in err
    assert not (out / "defense.json").exists()


def test_the_shield_added_to_a_trained_folder_queries_as_the_shield_in_front(
        files, encoded, tmp_path, capsys):
    out = tmp_path / "shielded"
    assert main(["defend", "--from", str(encoded), "--add-shield", "--shield-guess",
                 "--out", str(out), "-q"]) == 0
    assert f"defended:{out}" in capsys.readouterr().err
    meta, before = _meta(out), _meta(encoded)
    assert meta["parts"] == ["encode", "shield"] and meta["shield_guess"] is True
    assert meta["shield_trained"] is False  # the victim never saw restored text
    assert meta["added_to"]["folder"] == str(encoded.resolve())
    assert meta["trained_on"] == before["trained_on"] and meta["seed"] == before["seed"]
    for name in ("victim.joblib", "vocabulary.txt"):  # linked, not trained again
        assert os.path.samefile(out / name, encoded / name)
    added = load_defended(out)
    front = ShieldedVictim(load_defended(encoded), "tc", get_shield(guess=True))
    texts = ATTACKED + perturb(ATTACKED, "rand", level="high", seed=4)
    assert added.seen(texts) == [front.victim.seen([t])[0] for t in front.seen(texts)]
    assert added.predict(texts) == front.predict(texts)


def test_search_through_the_added_shield_finds_what_search_shield_guess_finds(
        files, encoded, tmp_path):
    out = tmp_path / "shielded"
    add_shield(encoded, out, guess=True)
    runs = {}
    for name, victim, flags in (("folder", f"defended:{out}", []),
                                ("flag", f"defended:{encoded}", ["--shield-guess"])):
        runs[name] = tmp_path / name
        assert main(["search", "--task", "tc", "--victim", victim, "--input", str(files["test"]),
                     "--recipe", "deepwordbug", "--out", str(runs[name]), "-q", *flags]) == 0
    results = [(runs[n] / "results.jsonl").read_bytes() for n in ("folder", "flag")]
    assert results[0] == results[1] and results[0].count(b"\n") == 4


def test_adding_the_shield_is_refused_where_it_cannot_hold(files, encoded, tmp_path, capsys):
    shielded = tmp_path / "shielded"
    add_shield(encoded, shielded)
    refused = {
        "go together": ["--from", str(encoded), "--out", str(tmp_path / "a")],
        "go together ": ["--add-shield", "--out", str(tmp_path / "a")],
        "leave out --victim, --rounds": ["--from", str(encoded), "--add-shield", "--victim",
                                         "tc-tfidf", "--rounds", "2", "--out", str(tmp_path / "a")],
        f"in front already: add it to {encoded.resolve()} again": [
            "--from", str(shielded), "--add-shield", "--out", str(tmp_path / "a")],
        "is the folder the shield is added to": ["--from", str(encoded), "--add-shield",
                                                 "--out", str(encoded)],
        "a defense for tc, not nli": ["--from", str(encoded), "--add-shield", "--task", "nli",
                                      "--out", str(tmp_path / "a")],
        "needs --task, --victim, --train": ["--out", str(tmp_path / "a")],
    }
    for said, args in refused.items():
        assert main(["defend", *args, "-q"]) == 2, said
        err = capsys.readouterr().err.strip()
        assert said.strip() in err and "\n" not in err, err
    assert not (tmp_path / "a" / "defense.json").exists()
    assert _meta(encoded)["parts"] == ["encode"]  # the folder added to is left as it was
