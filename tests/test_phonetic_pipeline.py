"""Phonetic pipeline end to end on a tiny lexicon: pairs → smoke training (with resume) →
export (sound index + table, with tiny G2P/P2G models) → load → perturb, neighbours, OOV path."""
import csv
import hashlib
import json
import random
import shutil

import numpy as np
import pytest

from tests.conftest import compose
from tests.test_phonetic_pairs import TINY, write_tiny
from train.phonetic.__main__ import train
from train.phonetic.pairs import word_distance
from train.seq2seq import train as train_seq2seq
from zeroe_assets import ZeroePerturbation
from zeroe_assets.assets import ArtifactError, load_component, read_manifest
from zeroe_assets.assets.index import VectorIndex
from zeroe_assets.assets.tables import SOURCES
from zeroe_assets.cli import main as cli
from zeroe_assets.perturbers.phonetic import PhoneticPerturber
from zeroe_assets.phonetic import load_phonetic
from zeroe_assets.phonetic.embedder import CLASSES, load_embedder
from zeroe_assets.phonetic.sound import DIM
from zeroe_assets.registry import get_perturber
from zeroe_assets.validate import NeedsTorch


def phonetic_cfg(lexicon, out, root, extra=()):
    return compose("phonetic", ["experiment=phonetic_smoke", "lexicon=phones_tsv",
                                f"lexicon.reader.path={lexicon}", f"out_dir={out}",
                                "export_after=true", "export_to=artifacts",
                                f"paths.artifacts_dir={root}", *extra])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Tiny G2P/P2G models and the smoke embedder, exported into one artifact root."""
    base = tmp_path_factory.mktemp("phonetic")
    lexicon, root = write_tiny(base / "tiny.tsv"), base / "artifacts"
    for direction in ("g2p", "p2g"):
        train_seq2seq(compose("seq2seq", [
            "experiment=seq2seq_smoke", "lexicon=phones_tsv", f"lexicon.reader.path={lexicon}",
            f"direction={direction}", f"out_dir={base / direction}", "export_after=true",
            "export_to=artifacts", f"paths.artifacts_dir={root}", "trainer.max_epochs=4",
            "trainer.check_val_every_n_epoch=4"]))
    metrics = train(phonetic_cfg(lexicon, base / "run", root))
    return base, root, metrics


def test_training_writes_checkpoints_metrics_and_figure(built):
    base, _, metrics = built
    run = base / "run"
    assert (run / "checkpoints" / "last.ckpt").exists() and (run / "confusion.png").stat().st_size
    saved = json.loads((run / "metrics.json").read_text())
    assert 0 <= saved["test"]["acc"] <= 1
    assert {f"f1_{c}" for c in CLASSES} <= set(saved["test"])
    held_out = sum(saved["pairs"]["per_split"]["test"].values())
    assert np.array(saved["test_confusion"]).sum() == held_out
    header = (run / "logs" / "version_0" / "metrics.csv").read_text().splitlines()[0]
    assert "val/macro_f1" in header
    assert len((run / "pairs.tsv").read_text().splitlines()) == saved["pairs"]["pairs"] + 1
    assert metrics["export"]["words"] == len(TINY)


def test_resume_from_last_checkpoint(built, tmp_path):
    base, _, _ = built
    out = tmp_path / "resumed"
    last = base / "run" / "checkpoints" / "last.ckpt"
    metrics = train(phonetic_cfg(base / "tiny.tsv", out, tmp_path / "unused", [
        f"ckpt_path={last}", "trainer.max_epochs=4", "export_after=false"]))
    with open(out / "logs" / "version_0" / "metrics.csv") as f:
        epochs = {row["epoch"] for row in csv.DictReader(f) if row["train/loss"]}
    assert epochs == {"3"}  # epochs 0-2 came from the checkpoint
    assert metrics["test"]["acc"] >= 0


def test_export_writes_index_table_and_embedder(built):
    _, root, _ = built
    component = load_component("phonetic", root)
    assert "phonetic/seq2seq" in read_manifest(root)["components"]  # the nested models stayed
    assert (root / "phonetic" / "seq2seq" / "g2p.npz").exists()
    space = load_phonetic(root)
    sound = space.sound
    assert space.table.words == list(TINY) and len(sound.index) == len(TINY)  # one pronunciation each
    assert isinstance(sound.index, VectorIndex) and sound.index.dim == DIM
    assert all(sound.pronunciations(w) == (tuple(p.split()),) for w, p in TINY.items())
    for i, word in enumerate(space.table.words):
        for cand, score, flags in space.table.row(i):
            assert cand.lower() != word and flags and 0 <= score <= 1.001
    night = {c: f for c, _, f in space.table.row(space.rows["night"])}
    assert night["nite"] & SOURCES["slang"]  # curated slang is kept whatever the judge says
    prons = {w: [p.split()] for w, p in TINY.items()}
    for i, word in enumerate(space.table.words):  # lexicon words are judged by the lexicon
        for cand, _, flags in space.table.row(i):
            if cand in TINY and not flags & SOURCES["slang"]:
                assert word_distance(prons, word, cand) <= 0.1
    meta = component.meta
    assert meta["table"]["candidates"] == len(space.table.candidates)
    assert meta["seq2seq"]["g2p"]["lexicon_sha256"] and meta["export_seconds"] >= 0  # rounded: a tiny export can take 0.0 s
    assert meta["embedder"]["heldout"]["acc"] >= 0
    vectors = load_embedder(root).embed(["night", "knight"])
    assert vectors.shape == (2, 16)


def test_reexport_goes_into_the_run_folder_reading_the_shipped_models(built, tmp_path):
    from train.export import export

    base, root, metrics = built
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    common = ["export=phonetic", "pipeline=phonetic", "lexicon=phones_tsv",
              f"lexicon.reader.path={base / 'tiny.tsv'}", f"paths.artifacts_dir={root}"]
    export(compose("export", [*common, f"ckpt={metrics['checkpoint']}",
                              f"out_dir={tmp_path / 'a'}"]))
    export(compose("export", [*common, "ckpt=unused", "export.sound_only=true",
                              f"out_dir={tmp_path / 'b'}"]))
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    for run in ("a", "b"):  # the G2P/P2G models were read from the shipped root, not copied
        assert set(read_manifest(tmp_path / run / "artifacts")["components"]) == {"phonetic"}
        assert load_phonetic(tmp_path / run / "artifacts").table.words == list(TINY)


def test_perturb_keeps_case_and_draws_from_the_table(built):
    _, root, _ = built
    perturber = get_perturber("phonetic", root=root, oov="off")
    options = perturber.lookup["night"]
    rng = random.Random(0)
    seen = {perturber.perturb_word("Night", 1.0, rng) for _ in range(50)}
    assert seen <= {o[:1].upper() + o[1:] for o in options} and "Nite" in seen
    assert perturber.perturb_word("NIGHT", 1.0, rng) in {o.upper() for o in options}
    assert perturber.perturb_word("night", 1.0, rng) in options
    attacker = ZeroePerturbation(perturber, level=1.0)
    text = "Night light, and the white queen!"
    out = attacker(text, seed=1)
    assert out != text and out.endswith("!") and ZeroePerturbation(perturber, level=0.0)(text, seed=1) == text
    assert attacker(text, seed=1) == out  # deterministic


def test_stopwords_are_skipped_unless_asked(built):
    _, root, _ = built
    skip = PhoneticPerturber(root=root, oov="off")
    keep = PhoneticPerturber(root=root, oov="off", skip_stopwords=False)
    assert skip.lookup["too"] == () and not skip.can_change("too")
    assert skip.perturb_word("Too", 1.0, random.Random(0)) == "Too"
    assert "2" in keep.lookup["too"] and keep.can_change("Too")  # slang: too -> 2


def test_oov_off_is_not_attackable(built):
    _, root, _ = built
    perturber = PhoneticPerturber(root=root, oov="off")
    assert not perturber.can_change("zyxwv")
    assert perturber.perturb_word("zyxwv", 1, random.Random(0)) == "zyxwv"
    assert not perturber.can_change("2024")


def test_oov_is_respelled_in_batches_with_torch(built):
    _, root, _ = built
    perturber = PhoneticPerturber(root=root)
    assert perturber.prepare(["nyght", "Kat", "night", "the", "kat"]) == 2  # one batch, cached
    assert perturber.prepare(["kat"]) == 0
    assert perturber.can_change("nyght") == bool(perturber.lookup["nyght"])  # what was decoded
    for word in ("nyght", "kat"):
        assert all(c != word for c in perturber.lookup[word])
        out = perturber.perturb_word(word.capitalize(), 1.0, random.Random(0))
        assert out == word.capitalize() or out[0].isupper()


def test_respellings_are_shared_by_perturbers_with_the_same_settings(built):
    _, root, _ = built
    assert PhoneticPerturber(root=root).prepare(["nyghtly"]) == 1
    again = PhoneticPerturber(root=root)  # a new job, a forked worker: nothing to decode
    assert "nyghtly" in again.lookup and again.prepare(["nyghtly"]) == 0
    assert again._respeller is None  # the models were not even loaded
    assert "nyghtly" not in PhoneticPerturber(root=root, n_best=1).lookup
    off = PhoneticPerturber(root=root, oov="off")  # the table only, whatever others decoded
    assert "nyghtly" not in off.lookup and not off.can_change("nyghtly")


def test_oov_without_torch_is_not_attackable(built, monkeypatch):
    _, root, _ = built

    def no_torch(*args):  # what the respeller's torch models raise where torch is missing
        raise NeedsTorch("the G2P/P2G models needs PyTorch, which is not installed here")

    from zeroe_assets.phonetic import respell

    monkeypatch.setattr(respell, "Respeller", no_torch)
    perturber = PhoneticPerturber(root=root)
    with pytest.warns(UserWarning, match="not attackable"):  # (a word no test respelled yet)
        assert not perturber.can_change("knyght")
    assert perturber.oov == "off" and perturber.perturb_word("Knyght", 1, random.Random(0)) == "Knyght"
    assert perturber.perturb_word("Night", 1, random.Random(0)) != "Night"  # the table still works


def test_the_space_places_words_by_sound_not_spelling(built):
    _, root, _ = built
    sound = load_phonetic(root).sound
    near = sound.neighbours("knight", 3)
    assert near[0] == ("night", 1.0)
    assert [w for w, s in sound.neighbours("night", 10) if s == 1.0] == ["knight"]  # not "light"
    assert {w for w, s in sound.neighbours("write", 4) if s == 1.0} == {"right", "rite"}
    ranked = sound.neighbours("organizations", 6)
    assert ranked[0] == ("organization", pytest.approx(1 - 1 / 11))  # one phone added to 11
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True)
    assert sound.distance("cat", "cut") == pytest.approx(1 / 3) and sound.distance("x", "cat") is None
    out_of_lexicon = sound.neighbours("nyght", 3)  # pronounced by the G2P
    assert len(out_of_lexicon) == 3 and all(w in TINY for w, _ in out_of_lexicon)


def test_neighbours_cli(built, monkeypatch, capsys):
    _, root, _ = built
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(root))
    assert cli(["neighbours", "--space", "phonetic", "night", "-k", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.split("\t")[1] != "night" for line in lines)
    assert cli(["neighbours", "--space", "phonetic", "--all", "-k", "2"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [r[0] for r in rows] == list(TINY) and all(len(r) == 3 and r[0] not in r[1:] for r in rows)
    assert cli(["neighbours", "--space", "phonetic", "nyght", "-k", "2"]) == 0  # pronounced by the G2P
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_models_that_do_not_fit_their_weights_are_a_clear_error(built, tmp_path):
    _, root, _ = built
    copy = tmp_path / "artifacts"
    shutil.copytree(root, copy)
    path = copy / "phonetic" / "embedder.json"
    spec = json.loads(path.read_text())
    spec["net"]["dim"] += 4
    path.write_text(json.dumps(spec))
    manifest = read_manifest(copy)  # a consistent manifest: the files themselves disagree
    manifest["components"]["phonetic"]["files"]["embedder.json"] = {
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "bytes": path.stat().st_size}
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ArtifactError, match="embedder.npz and embedder.json do not make a model"):
        load_embedder(copy)


def test_corrupt_table_is_a_clear_error(built, tmp_path):
    _, root, _ = built
    copy = tmp_path / "artifacts"
    shutil.copytree(root, copy)
    path = copy / "phonetic" / "table.candidates.txt"
    path.write_bytes(path.read_bytes().replace(b"nite", b"nyte"))
    with pytest.raises(ArtifactError, match="sha256"):
        PhoneticPerturber(root=copy)


def test_resume_in_the_run_folder_keeps_the_earlier_logs(built, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(built[0] / "run", run)
    train(phonetic_cfg(built[0] / "tiny.tsv", run, tmp_path / "unused", [
        f"ckpt_path={run / 'checkpoints' / 'last.ckpt'}", "trainer.max_epochs=4",
        "export_after=false"]))
    epochs = []
    for version in ("version_0", "version_1"):
        with open(run / "logs" / version / "metrics.csv") as f:
            epochs.append(sorted({r["epoch"] for r in csv.DictReader(f) if r["train/loss"]}))
    assert epochs == [["0", "1", "2"], ["3"]]


def test_checkpoint_of_another_model_is_a_clear_error(built):
    from train.phonetic.embed import load_embedder_checkpoint
    from train.visual.embed import load_checkpoint

    base = built[0]
    g2p = base / "g2p" / "checkpoints" / "last.ckpt"
    with pytest.raises(ValueError, match=f"{g2p} is not a phonetic embedder checkpoint"):
        load_embedder_checkpoint(g2p)
    embedder = base / "run" / "checkpoints" / "last.ckpt"
    with pytest.raises(ValueError, match=f"{embedder} is not a VAE-GAN checkpoint"):
        load_checkpoint(embedder)
    with pytest.raises(FileNotFoundError, match="checkpoint .*nope.ckpt does not exist"):
        load_embedder_checkpoint(base / "nope.ckpt")


def test_missing_lexicon_and_bad_export_numbers_fail_before_training(tmp_path):
    from hydra.errors import InstantiationException

    missing = tmp_path / "missing.tsv"
    with pytest.raises(InstantiationException,
                       match=rf"lexicon file {missing} does not exist \(set lexicon.reader.path\)"):
        train(phonetic_cfg(missing, tmp_path / "run", tmp_path / "artifacts"))
    tiny = write_tiny(tmp_path / "tiny.tsv")
    with pytest.raises(ValueError, match="export.neighbours must be an integer at least 1, got 0"):
        train(phonetic_cfg(tiny, tmp_path / "run", tmp_path / "artifacts", ["export.neighbours=0"]))
    with pytest.raises(ValueError, match="data.batch_size must be an integer at least 1, got 0"):
        train(phonetic_cfg(tiny, tmp_path / "run", tmp_path / "artifacts", ["data.batch_size=0"]))
    assert not (tmp_path / "run" / "checkpoints").exists()


@pytest.mark.slow
def test_ddp_on_two_cpu_processes_tests_the_whole_split_once(tmp_path):
    import subprocess
    import sys

    lexicon = write_tiny(tmp_path / "tiny.tsv")
    # ``python -m``: Lightning starts rank 1 by running the command line again
    run = subprocess.run([sys.executable, "-m", "train.phonetic", "experiment=phonetic_smoke",
                          "lexicon=phones_tsv", f"lexicon.reader.path={lexicon}", "trainer=ddp",
                          "trainer.accelerator=cpu", "trainer.devices=2",
                          f"hydra.run.dir={tmp_path / 'run'}"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    saved = json.loads((tmp_path / "run" / "metrics.json").read_text())
    # rank 0 tested every held-out pair, not its half of them
    held_out = sum(saved["pairs"]["per_split"]["test"].values())
    assert np.array(saved["test_confusion"]).sum() == held_out
    printed = [line for line in run.stdout.splitlines() if line.startswith('{"acc": ')]
    assert len(printed) == 1  # the scores, printed by rank 0 alone


def test_typographic_apostrophes_are_looked_up_straight_and_kept(built):
    _, root, _ = built
    perturber = PhoneticPerturber(root=root)
    perturber.lookup["teacher's"] = ("teecher's",)
    assert perturber.can_change("Teacher’s")
    assert perturber.perturb_word("Teacher’s", 1.0, random.Random(0)) == "Teecher’s"


def test_words_with_letters_the_g2p_never_saw_are_not_attackable(built):
    _, root, _ = built
    perturber = PhoneticPerturber(root=root)
    assert not perturber.can_change("caf\u00e9")  # é is not in the tiny lexicon's letters


def test_an_outer_apostrophe_is_not_a_respelling(built):
    from zeroe_assets.phonetic.respell import sound_alikes

    _, root, _ = built
    kept = sound_alikes(load_embedder(root), ["night"], [["night'", "'night", "nite"]],
                        keep=CLASSES, min_score=0.0)
    assert [c for c, _ in kept[0]] == ["nite"]


# --- can_change and candidates agree with perturb_word -------------------------------------

WORDS = ["night", "Night", "NIGHT", "nite", "kat", "Kat", "nyght", "zyxwv", "too", "The",
         "teacher's", "Teacher’s", "don’t", "café", "2024", "x2", "Привет", "日本", "I", "a"]


def assert_agrees(p, word, seed=0):
    """can_change iff some of 50 draws at φ = 1 change the word; the candidates are the distinct
    changed forms perturb_word gives, none missing."""
    rng = random.Random(seed)
    draws = {p.perturb_word(word, 1.0, rng) for _ in range(50)}
    assert p.can_change(word) == (draws != {word}), (word, draws)
    reachable = draws | {p.perturb_word(word, 1.0, rng) for _ in range(300)}
    found = p.candidates(word, 100, rng)
    assert len(set(found)) == len(found) and set(found) == reachable - {word}, (word, found)
    assert p.candidates(word, 2, rng) == found[:2]


def test_can_change_and_candidates_with_respelled_unknown_words(built):
    _, root, _ = built
    p = PhoneticPerturber(root=root)
    for word in WORDS + [w.capitalize() for w in TINY] + [w.upper() for w in TINY]:
        assert_agrees(p, word)
    assert p.candidates("night", 100, random.Random(0)) == list(p.lookup["night"])  # its row
    assert p.candidates("Night", 1, random.Random(0)) == [p.lookup["night"][0].capitalize()]
    p = PhoneticPerturber(root=root)  # rows edited below: before its per-word caches fill
    p.lookup["teacher's"] = ("teecher's", "Teacher’s", "teecher's")  # collapses to one change
    assert p.candidates("Teacher’s", 5, random.Random(0)) == ["Teecher’s"]
    assert_agrees(p, "Teacher’s")
    p.lookup["aaaaa"] = ("AAAAA",)  # a form equal to the word in its case is no change
    assert not p.can_change("AAAAA") and p.can_change("aaaaa")
    assert p.candidates("AAAAA", 3, None) == []


def test_can_change_and_candidates_on_the_shipped_table():
    from zeroe_assets.assets import component_available

    if not component_available("phonetic"):
        pytest.skip("no phonetic artifacts in the default root ($ZEROE_ARTIFACTS)")
    p = PhoneticPerturber(oov="off")
    table = [w for w in p.space.table.words[:3000:10] if p.lookup.get(w)]
    for word in WORDS + table + [w.capitalize() for w in table] + ["McDonald", "o’clock"]:
        assert_agrees(p, word)


# --- issue 21: bounded OOV decoding, draws independent of the OOV path, corrupt models -----

def test_words_far_longer_than_the_training_words_are_not_decoded(built, monkeypatch):
    from zeroe_assets.phonetic import respell

    _, root, _ = built
    decoded = []
    real = respell.back_transliterate
    monkeypatch.setattr(respell, "back_transliterate",
                        lambda g2p, p2g, words, *a, **k: decoded.extend(words) or
                        real(g2p, p2g, words, *a, **k))
    p = PhoneticPerturber(root=root)
    assert p._can_respell()
    longest = load_component("phonetic/seq2seq", root).meta["g2p"]["config"]["lexicon"]["filter"]["max_len"]
    limit = p._respeller.max_letters
    assert limit == longest * 5 // 4  # the training filter plus a quarter, from the manifest
    huge, over, under = "nyght" * 1000, "k" + "a" * limit, "k" + "a" * (limit - 1)
    assert p.perturb_word(huge.capitalize(), 1.0, random.Random(0)) == huge.capitalize()
    assert not p.can_change(over) and p.prepare([under]) == 1
    assert decoded == [under]  # the 5,000 letters and the limit + 1 never reached a decoder


def test_a_cut_off_decoding_is_never_a_respelling(built, monkeypatch):
    from zeroe_assets.phonetic import seq2seq

    from zeroe_assets.phonetic.respell import back_transliterate

    _, root, _ = built
    g2p, p2g = (seq2seq.load_transliterator(d, root) for d in ("g2p", "p2g"))
    assert back_transliterate(g2p, p2g, ["nyghtz"]) != [[]]  # these models do spell it
    monkeypatch.setattr(seq2seq, "EOS", -1)  # no hypothesis ever ends: each one hits the cap
    assert back_transliterate(g2p, p2g, ["nyghtz"]) == [[]]


def _sentences(rng: random.Random, n: int) -> list[str]:
    words = list(TINY) + ["nyght", "katt", "lyght", "whyte", "kween", "zzxq"]  # + OOV
    return [" ".join(rng.choice(words).capitalize() if rng.random() < 0.2 else rng.choice(words)
                     for _ in range(rng.randrange(1, 12))) for _ in range(n)]


def test_table_words_get_the_same_respelling_with_or_without_the_oov_path(built, tmp_path,
                                                                          monkeypatch):
    from zeroe_assets.phonetic import respell
    from zeroe_assets.tokenize import words as split_words

    root = tmp_path / "artifacts"  # its own copy: the respellings said below are not cached for others
    shutil.copytree(built[1], root)
    texts = _sentences(random.Random(5), 150)
    # the tiny models find no sound-alike for these: say they found two, the path is what counts
    monkeypatch.setattr(respell.Respeller, "__call__",
                        lambda self, words: [(w + "e", w + "h") for w in words])
    with_oov = PhoneticPerturber(root=root)
    assert with_oov.prepare(w for t in texts for w in split_words(t)) > 0

    def no_torch(*args):  # what the respeller's torch models raise where torch is missing
        raise NeedsTorch("the G2P/P2G models needs PyTorch, which is not installed here")

    monkeypatch.setattr(respell, "Respeller", no_torch)
    without = PhoneticPerturber(root=root, oov="off")  # what an install without torch does
    table = without.space.options
    oov_changed = 0
    for seed in range(6):
        for level in ("low", "mid", "high"):
            a = ZeroePerturbation(with_oov, level)(texts, seed=seed)
            b = ZeroePerturbation(without, level)(texts, seed=seed)
            for text, x, y in zip(texts, a, b):  # respellings replace words in place
                assert len(x.split(" ")) == len(y.split(" ")) == len(text.split(" "))
                for w, u, v in zip(text.split(" "), x.split(" "), y.split(" ")):
                    if w.lower() in table:
                        assert u == v, (seed, level, text, x, y)
                    else:
                        oov_changed += u != w
                        assert v == w
    assert oov_changed  # the OOV path did respell words, and shifted nothing


def test_a_corrupt_or_missing_seq2seq_model_is_a_clean_cli_error(built, tmp_path, monkeypatch,
                                                                capsys):
    _, root, _ = built
    copy = tmp_path / "artifacts"
    shutil.copytree(root, copy)
    path = copy / "phonetic" / "seq2seq" / "g2p.npz"
    path.write_bytes(path.read_bytes()[:-10] + b"corrupted!")
    text = tmp_path / "in.txt"
    text.write_text("the nyght is kwiet\n")
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(copy))
    assert cli(["perturb", "-p", "phonetic", "-l", "high", str(text)]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "rebuild" in err and "Traceback" not in err
    path.unlink()
    assert cli(["perturb", "-p", "phonetic", "-l", "high", str(text)]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err


def test_without_torch_the_oov_path_is_off_with_one_warning_line(built, tmp_path, monkeypatch,
                                                                capsys):
    from zeroe_assets.perturbers import phonetic
    from zeroe_assets.phonetic import respell

    _, root, _ = built
    copy = tmp_path / "artifacts"
    shutil.copytree(root, copy)
    (copy / "phonetic" / "seq2seq" / "g2p.npz").write_bytes(b"not read without torch")

    def no_torch(*args):  # what the respeller's torch models raise where torch is missing
        raise NeedsTorch("the G2P/P2G models needs PyTorch, which is not installed here")

    monkeypatch.setattr(respell, "Respeller", no_torch)
    monkeypatch.setattr(phonetic, "oov_available", lambda: False)
    text = tmp_path / "in.txt"
    text.write_text("the nyght is kwiet\nnyght and lyght\n")
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(copy))
    assert cli(["perturb", "-p", "phonetic", "-l", "high", str(text)]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 2
    assert err.count("\n") == 1 and "warning" in err and "PyTorch" in err
