"""A defended folder damaged after it was built, or fed to a command that cannot use it: one
line, exit 2, nothing written (the 2026-12-07 reliability trial's faults, each failing before)."""
from __future__ import annotations

import json
import shutil

import pytest

from zeroe_assets.cli import main
from zeroe_assets.defend import add_shield, defend, load_defended
from zeroe_assets.shield import ShieldedVictim

from .test_defend import write_tweets


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("damaged")
    train = write_tweets(root / "train.tsv", 60, 0)
    other = write_tweets(root / "other.tsv", 60, 1)
    folder = root / "encode"
    defend("tc", "tc-tfidf", train, folder, "encode", progress=False)
    another = root / "another"
    defend("tc", "tc-tfidf", other, another, "encode", progress=False)
    return {"root": root, "train": train, "folder": folder, "another": another}


def _copy(folder, to):
    shutil.copytree(folder, to)
    return to


def _damaged(files, tmp_path):
    """(what was done, the damaged copy) of a good folder, each loading as something else."""
    out = []
    vocabulary = _copy(files["folder"], tmp_path / "truncated") / "vocabulary.txt"
    words = vocabulary.read_text(encoding="utf-8").splitlines(keepends=True)
    vocabulary.write_text("".join(words[: len(words) // 2]), encoding="utf-8")  # whole lines
    out.append(("vocabulary cut to half its lines", vocabulary.parent))
    swapped = _copy(files["folder"], tmp_path / "swapped")
    shutil.copy(files["another"] / "victim.joblib", swapped / "victim.joblib")
    out.append(("another defense's model", swapped))
    emptied = _copy(files["folder"], tmp_path / "emptied")
    (emptied / "vocabulary.txt").write_text("", encoding="utf-8")
    out.append(("vocabulary emptied", emptied))
    return out


def test_a_file_changed_since_the_folder_was_saved_is_refused(files, tmp_path):
    for what, folder in _damaged(files, tmp_path):
        name = "victim.joblib" if "model" in what else "vocabulary.txt"
        with pytest.raises(ValueError, match=f"{folder / name} is not the file defense.json"):
            load_defended(folder)
    assert load_defended(files["folder"]).predict(["you idiot"])  # the good one loads


@pytest.mark.parametrize("field, value", [
    ("task", 5), ("task", "bogus"), ("parts", [1]), ("parts", ["encode", "bogus"]),
    ("shield", 5), ("shield", "visual"), ("victim", "os:getcwd"), ("victim", 5),
    ("files", [])])
def test_a_defense_json_of_wrong_fields_is_corrupt(files, tmp_path, field, value):
    folder = _copy(files["folder"], tmp_path / "f")
    meta = json.loads((folder / "defense.json").read_text(encoding="utf-8"))
    meta[field] = value
    if field == "shield":
        meta["parts"] = ["encode", "shield"]
    (folder / "defense.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match=f"corrupt .*defense.json: {field} is"):
        load_defended(folder)


def test_the_shield_is_added_to_an_undamaged_folder_only(files, tmp_path):
    for what, folder in _damaged(files, tmp_path):
        out = tmp_path / f"out-{folder.name}"
        with pytest.raises(ValueError, match="is not the file defense.json"):
            add_shield(folder, out)
        assert not out.exists(), what
    garbled = _copy(files["folder"], tmp_path / "garbled")
    (garbled / "vocabulary.txt").write_text("a sentence pasted over it\n", encoding="utf-8")
    assert main(["defend", "--from", str(garbled), "--add-shield", "--out",
                 str(tmp_path / "g")]) == 2
    assert not (tmp_path / "g").exists()


def test_a_second_shield_in_front_of_a_shielded_defense_is_refused(files, tmp_path, capsys):
    shielded = tmp_path / "shielded"
    add_shield(files["folder"], shielded)
    with pytest.raises(ValueError, match="has the shield in front already"):
        ShieldedVictim(load_defended(shielded), "tc")
    for flag in ("--shield", "--shield-guess"):
        out = tmp_path / f"run{flag}"
        assert main(["search", "--task", "tc", "--victim", f"defended:{shielded}", "--input",
                     str(files["train"]), "--recipe", "deepwordbug", "--limit", "1", flag,
                     "--out", str(out), "-q"]) == 2
        assert "in front already" in capsys.readouterr().err and not out.exists()


def test_defend_refuses_what_it_cannot_train_before_it_makes_out(files, tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["defend", "--task", "tc", "--victim", "nli-tfidf", "--train",
                 str(files["train"]), "--out", str(out), "-q"]) == 2
    assert "is for task nli, not tc" in capsys.readouterr().err and not out.exists()
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("gold_label\tsentence1\tsentence2\n" + "".join(
        f"{g}\ta man sleeps {i}\ta {w} sleeps\n" for i, (g, w) in enumerate(
            [("entailment", "man"), ("contradiction", "dog")] * 10)), encoding="utf-8")
    assert main(["defend", "--task", "nli", "--victim", "nli-tfidf", "--train", str(pairs),
                 "--parts", "encode,adversarial", "--rounds", "1", "--out", str(out), "-q"]) == 2
    assert "single-text tasks" in capsys.readouterr().err and not out.exists()
