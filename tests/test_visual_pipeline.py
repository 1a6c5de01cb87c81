"""The visual pipeline end to end on a tiny font: configs compose, one smoke epoch trains and
exports, the runtime loads the assets and attacks with them; plus the failure modes users meet."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from zeroe_assets.assets import ArtifactError, load_component, write_component
from zeroe_assets.assets.index import VectorIndex, normalise
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.perturbers.visual import VisualPerturber
from zeroe_assets.visual import is_candidate, load_visual, neighbours

from .visual_fixtures import (CONF, SHAPES, build_font, compose_vaegan, smoke_run,  # noqa: F401
                              tiny_font)

LETTERS = "abcdefgh"


def write_space(root, reads=None):
    """A hand-made visual component in ``root``: each letter's neighbours are the next letters,
    cyclically, with similarities .9, .5, .1 (and ``reads``, the readers' shares, if given)."""
    keys = np.array([ord(c) for c in LETTERS], np.uint16)
    nb = np.stack([np.roll(keys, -j)[:len(keys)] for j in range(1, 4)], 1)
    scores = np.tile(np.array([0.9, 0.5, 0.1], np.float16), (len(keys), 1))
    vectors = normalise(np.random.default_rng(0).normal(size=(len(keys), 4)))
    files = {**VectorIndex.build(vectors, keys).files("index"),
             **NeighbourTable(keys, nb, scores, reads).files("table")}
    write_component("visual", files, {"dims": 4}, root=root)
    return root


@pytest.fixture
def space(tmp_path):
    return write_space(tmp_path)


def test_smoke_run_trains_draws_and_exports(smoke_run):
    tmp, cfg, result = smoke_run
    assert Path(result["best"]).is_file() and Path(result["last"]).name == "last.ckpt"
    assert all(Path(f).stat().st_size > 0 for f in result["figures"])
    header = (tmp / "run" / "csv" / "metrics.csv").read_text().splitlines()[0]
    assert all(f"train/{term}_epoch" in header for term in ("contrast", "align", "anchor", "kl", "gan"))
    comp = load_component("visual", tmp / "artifacts")
    meta = comp.meta
    assert meta["glyphs"] == 10 and meta["dims"] == cfg.model.latent
    assert meta["glyph_set"]["fonts"][0]["sha256"] and meta["glyph_set"]["coverage"]["glyphs"] == 10
    spaces = {"learned", "raw_pixels", "raw_pixels_every_font"}  # export.every_font: the default
    assert set(meta["quality"]["nfkd_recall"]) == set(meta["quality"]["confusables_recall"]) == spaces
    assert meta["export_config"]["every_font"] is True
    table = NeighbourTable.from_component(comp, "table")
    assert table.k == cfg.export.top_k and table.scores.dtype == np.float16
    assert not (table.neighbours == table.keys[:, None]).any()  # nobody is its own neighbour


def test_exported_assets_attack(smoke_run):
    tmp, _, _ = smoke_run
    perturber = VisualPerturber(top_n=3, root=tmp / "artifacts")
    out = perturber.perturb_word("aAol", 1.0, random.Random(0))
    assert len(out) == 4 and all(o != c for o, c in zip(out, "aAol"))
    assert neighbours("a", 2, root=tmp / "artifacts")[0][0] in "áàAÁoOlI."


def test_export_entry_point_rebuilds_from_a_checkpoint(smoke_run, tmp_path):
    """``python -m train.export export=visual ckpt=...``: the Hydra entry point users run."""
    _, _, result = smoke_run
    cmd = [sys.executable, "-m", "train.export", "export=visual", f"ckpt={result['last']}",
           "export_to=artifacts", f"paths.artifacts_dir={tmp_path}", "export.top_k=2",
           f"hydra.run.dir={tmp_path / 'run'}",
           "export.rerank=null"]  # the tiny font draws no words to read (test_visual_rerank.py)
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=Path(CONF).parent)
    assert out.returncode == 0, out.stderr[-2000:]
    meta = load_component("visual", tmp_path).meta
    assert meta["checkpoint"]["file"] == "last.ckpt" and meta["top_k"] == 2
    tried, chosen = meta["index_tried"], meta["index_factory"]
    assert tried[0]["factory"] == "SQ8" and chosen == tried[-1]["factory"]
    assert tried[-1]["agreement"] >= 0.95 or chosen == "Flat"  # quantised only when it agrees


def test_perturber_replaces_by_neighbours_only(space):
    p = VisualPerturber(top_n=2, root=space)
    rng = random.Random(1)
    for _ in range(200):
        out = p.perturb_word("abz!", 0.5, rng)
        assert out[0] in "abc" and out[1] in "bcd" and out[2:] == "z!"
    assert p.perturb_word("abc", 0.0, rng) == "abc"
    assert p.can_change("xyzb") and not p.can_change("xyz")


def test_perturber_samples_in_proportion_to_similarity(space):
    p = VisualPerturber(top_n=3, root=space)
    rng = random.Random(2)
    counts = {c: 0 for c in "bcd"}
    for _ in range(3000):
        counts[p.perturb_word("a", 1.0, rng)] += 1
    assert counts["b"] > counts["c"] > counts["d"] > 0
    assert abs(counts["b"] / 3000 - 0.9 / 1.5) < 0.05


def test_perturber_draws_among_the_most_read_neighbours(space, tmp_path):
    """Where the table says how often readers read each neighbour (the export's re-ranking), a
    letter's draws come from its most read ones only, in proportion to similarity; a row where
    none is read fully draws among its best; each draw takes one random number as before, so
    the words after it draw the same."""
    reads = np.ones((len(LETTERS), 3), np.float16)
    reads[0] = [0.6, 1.0, 1.0]  # a: its nearest (b) is misread, c and d are read
    reads[1] = [0.2, 0.8, 0.8]  # b: none read fully: c and d, its best
    p = VisualPerturber(top_n=3, root=write_space(tmp_path / "read", reads))
    rng = random.Random(2)
    counts = {c: 0 for c in "bcd"}
    for _ in range(3000):
        counts[p.perturb_word("a", 1.0, rng)] += 1
    assert counts["b"] == 0 and counts["c"] > counts["d"] > 0
    assert p.look_alikes("a") == ("b", "c", "d")  # what defenses read: every one of the row
    assert p.look_alikes("z") == ()
    assert abs(counts["c"] / 3000 - 0.5 / 0.6) < 0.05
    assert {p.perturb_word("b", 1.0, rng) for _ in range(200)} == {"d", "e"}
    assert {p.perturb_word("c", 1.0, rng) for _ in range(200)} == {"d", "e", "f"}  # all read
    only_b = VisualPerturber(top_n=1, root=tmp_path / "read")
    assert only_b.perturb_word("a", 1.0, rng) == "b"  # the top 1 is all there is
    same = [random.Random(9), random.Random(9)]
    p.perturb_word("aaa", 1.0, same[0])
    VisualPerturber(top_n=3, root=space).perturb_word("aaa", 1.0, same[1])
    assert same[0].random() == same[1].random()


def test_perturber_is_deterministic_and_validates_top_n(space):
    a = [VisualPerturber(root=space, top_n=3).perturb_word("abcabc", 0.7, random.Random(5))
         for _ in range(2)]
    assert a[0] == a[1]
    with pytest.raises(ValueError, match="top_n"):
        VisualPerturber(top_n=4, root=space)


def test_neighbours_beyond_the_table_use_the_index(space):
    assert [c for c, _ in neighbours("a", 2, root=space)] == ["b", "c"]
    far = neighbours("a", 7, root=space)
    assert len(far) == 7 and "a" not in [c for c, _ in far]
    with pytest.raises(ValueError, match="U\\+0078"):
        neighbours("x", root=space)


def test_neighbours_beyond_the_table_start_with_the_table(space):
    far = [c for c, _ in neighbours("a", 7, root=space)]
    assert far[:3] == ["b", "c", "d"] and len(set(far)) == 7


def test_defaults_follow_a_table_exported_with_fewer_than_20(space, monkeypatch, capsys):
    from zeroe_assets.cli import main

    assert VisualPerturber(root=space).top_n == 3
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(space))
    assert main(["neighbours", "--all"]) == 0
    assert all(len(line.split("\t")) == 4 for line in capsys.readouterr().out.splitlines())


def test_candidates_exclude_invisible_and_combining():
    assert is_candidate("a") and is_candidate("∂")
    assert not any(map(is_candidate, [" ", "\u00a0", "\u200b", "\u0301", "\n", "\ue000"]))
    assert not any(map(is_candidate, "\u115f\u1160\u3164\uffa0"))  # Hangul fillers: Lo, unseen


def test_a_font_without_accented_letters_trains_and_exports(tmp_path):
    from train.vaegan import train

    font = build_font(tmp_path / "plain.ttf", {c: SHAPES[c] for c in "oOlI."})
    result = train(compose_vaegan(tmp_path, font))
    assert result["export"]["quality"]["nfkd_recall"]["learned"]["macro"] is None
    assert load_visual(tmp_path / "artifacts").k >= 1


def test_cli_neighbours(space, monkeypatch, capsys):
    from zeroe_assets.cli import main

    monkeypatch.setenv("ZEROE_ARTIFACTS", str(space))
    assert main(["neighbours", "a", "-k", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == ["1\tb\tU+0062\t0.8999", "2\tc\tU+0063\t0.5000"]
    assert main(["neighbours", "--all", "-k", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(LETTERS) and lines[0].split("\t") == ["a", "b", "c", "d"]
    assert main(["neighbours", "x"]) == 2 and "U+0078" in capsys.readouterr().err
    assert main(["neighbours", "a", "--space", "phonetic"]) == 1  # no phonetic assets here
    assert "phonetic" in capsys.readouterr().err
    assert main(["neighbours"]) == 2
    reads = np.ones((len(LETTERS), 3), np.float16)
    reads[0, 1] = 0.6
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(write_space(space / "read", reads)))
    assert main(["neighbours", "a", "-k", "2"]) == 0  # the share read back, where measured
    assert capsys.readouterr().out.splitlines() == ["1\tb\tU+0062\t0.8999\t1.00",
                                                    "2\tc\tU+0063\t0.5000\t0.60"]


def test_missing_and_corrupt_assets_say_how_to_rebuild(space, tmp_path_factory):
    empty = tmp_path_factory.mktemp("empty")
    with pytest.raises(ArtifactError, match="train.vaegan"):
        VisualPerturber(root=empty)
    scores = space / "visual" / "table.scores.npy"
    scores.write_bytes(scores.read_bytes()[:-2] + b"\0\0")
    with pytest.raises(ArtifactError, match="table.scores.npy.*sha256.*train.vaegan"):
        VisualPerturber(root=space)
    (space / "manifest.json").write_text("{not json")
    with pytest.raises(ArtifactError, match="manifest.json is corrupt"):
        VisualPerturber(root=space)


def test_runtime_does_not_import_torch(space):
    code = ("import sys, zeroe_assets, zeroe_assets.perturbers.visual as v, zeroe_assets.visual; "
            f"v.VisualPerturber(top_n=3, root={str(space)!r}); "
            f"zeroe_assets.visual.neighbours('a', 5, root={str(space)!r}); "
            "print(sorted(m for m in ('torch', 'pytorch_lightning', 'hydra') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.replace("'", '"')) == []


@pytest.mark.slow
def test_resume_from_last_checkpoint(smoke_run, tmp_path):
    from train.vaegan import train

    _, _, result = smoke_run
    cfg = compose_vaegan(tmp_path, Path(smoke_run[1].data.glyphs.fonts[0]),
                         "trainer.max_epochs=2", f"ckpt_path={result['last']}")
    resumed = train(cfg)
    import torch

    state = torch.load(resumed["last"], map_location="cpu", weights_only=True)
    assert state["epoch"] == 1 and state["global_step"] > 0


def test_split_is_seeded_and_disjoint():
    from train.visual.datamodule import split

    train_a, val_a = split(100, 0.1, seed=3)
    train_b, val_b = split(100, 0.1, seed=3)
    assert val_a.tolist() == val_b.tolist() and len(val_a) == 10
    assert sorted(train_a.tolist() + val_a.tolist()) == list(range(100))
    assert split(100, 0.1, seed=4)[1].tolist() != val_a.tolist()


def test_balanced_sampling_weights_fonts():
    from train.visual.datamodule import balanced_weights

    assert balanced_weights(np.array([0, 0, 0, 1]), 1.0).tolist() == [1 / 3, 1 / 3, 1 / 3, 1.0]
    assert balanced_weights(np.array([0, 0, 1]), 0.0).tolist() == [1.0, 1.0, 1.0]


def test_augment_keeps_range_and_is_reproducible():
    import torch

    from train.visual.augment import GlyphAugment

    x = torch.zeros(16, 1, 24, 24)
    x[:, :, 6:18, 10:14] = 1
    aug = GlyphAugment(prob=1.0)
    a = aug(x, torch.Generator().manual_seed(0))
    assert a.shape == x.shape and 0 <= a.min() and a.max() <= 1 and not torch.equal(a, x)
    assert torch.equal(a, aug(x, torch.Generator().manual_seed(0)))
    assert torch.equal(GlyphAugment(prob=0.0)(x), x)


def test_stretch_changes_widths_only():
    import torch

    from train.visual.augment import GlyphAugment

    x = torch.zeros(64, 1, 24, 24)
    x[:, :, 6:18, 10:14] = 1
    still = dict(scale=(1.0, 1.0), shift=0.0, rotate=0.0, stroke=0.0, marks=0.0)
    out = GlyphAugment(prob=1.0, stretch=1.7, **still)(x, torch.Generator().manual_seed(0))
    widths = (out[:, 0, 12] > 0.5).sum(1)
    assert widths.min() < 4 < widths.max() <= 7
    assert ((out[:, 0, :, 12] > 0.5).sum(1) == 12).all()  # heights stay
    with pytest.raises(ValueError, match="stretch"):
        GlyphAugment(stretch=0.5)


def test_second_views_come_from_other_fonts_of_train_glyphs_only():
    import torch

    from train.visual.datamodule import Alternates

    images = np.arange(4, dtype=np.uint8)[:, None, None].repeat(24, 1).repeat(24, 2)
    alt = Alternates(images, rows=np.array([2, 0, 2, 3]), n=5, allowed=np.array([0, 1, 2]))
    assert alt.count.tolist() == [1, 0, 2, 0, 0]  # row 3 is held out: its rendering is unused
    rows = torch.tensor([0, 1, 2, 2, 2, 2, 3, 4] * 8)
    mask, picked = alt.pick(rows, 1.0)
    assert mask.tolist() == [r in (0, 2) for r in rows.tolist()]
    values = picked[:, 0, 0, 0].tolist()
    assert {v for v, r in zip(values, rows[mask].tolist()) if r == 0} == {1}
    assert {v for v, r in zip(values, rows[mask].tolist()) if r == 2} == {0, 2}
    assert not alt.pick(rows, 0.0)[0].any()


def test_stray_marks_add_a_few_pixels_of_ink():
    import torch

    from train.visual.augment import GlyphAugment

    x = torch.zeros(64, 1, 24, 24)
    x[:, :, 6:18, 10:14] = 1
    still = dict(scale=(1.0, 1.0), shift=0.0, rotate=0.0, stroke=0.0)
    added = GlyphAugment(prob=1.0, marks=1.0, **still)(x, torch.Generator().manual_seed(0)) - x
    assert added.min() > -1e-4 and (added.flatten(1).sum(1) <= 4 + 1e-3).all() and added.sum() > 64
    assert torch.allclose(GlyphAugment(prob=1.0, marks=0.0, **still)(x), x, atol=1e-4)


def test_a_character_is_the_mean_direction_of_its_renderings_in_every_font():
    from train.visual.embed import over_fonts

    first = np.array([[3.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    alts, rows = np.array([[0.0, 5.0], [0.0, -2.0], [4.0, 0.0]]), np.array([0, 2, 0])
    out = over_fonts(first, alts, rows)
    # row 0: (1,0) + (0,1) + (1,0) in unit steps, whatever each rendering's norm; row 1 has no alternate
    assert np.allclose(out[0], np.array([2.0, 1.0]) / np.sqrt(5)) and np.allclose(out[1], [0, 1])
    assert np.allclose(out[2], normalise(np.array([[1 / np.sqrt(2), 1 / np.sqrt(2) - 1]]))[0])
    assert np.allclose(over_fonts(first, alts[:0], rows[:0]), normalise(first))
    assert np.allclose(first[0], [3.0, 0.0])  # the inputs are left alone


def test_yardsticks_group_look_alikes_of_each_letter():
    from train.visual.quality import confusable_groups, group_recall, nfkd_groups, top_k_shares

    cps = np.array([ord(c) for c in "aäɑаａbo"])  # Latin, Cyrillic а, fullwidth ａ
    assert nfkd_groups(cps) == {"a": [ord("ä"), ord("ａ")]}
    groups = confusable_groups(cps)
    assert {ord("а"), ord("ａ"), ord("ɑ")} <= set(groups["a"]) and ord("ä") not in groups["a"]
    vectors = np.eye(len(cps), dtype=np.float32)
    vectors[1:5] += vectors[0]  # a's four look-alikes share its direction
    scores = group_recall(vectors, cps, {"a": [ord("а"), ord("b")]}, k=4)
    assert scores["per_letter"] == {"a": 0.5} and scores["micro"] == 0.5
    # a's top 4: ä and ａ (NFKD), ɑ and а (confusables only)
    assert top_k_shares(vectors, cps, k=4) == {"nfkd": 2.0, "confusable": 2.0, "other": 0.0}
    assert top_k_shares(vectors, cps, k=6) == {"nfkd": 2.0, "confusable": 2.0, "other": 2.0}


def test_recall_curve_reads_group_recall_off_member_ranks():
    from train.visual.quality import group_recall, member_ranks, nfkd_groups, recall_curve

    cps = np.array([ord(c) for c in "abcdAàáâãäåçĀāĂăĄą"])
    vectors = np.random.default_rng(0).normal(size=(len(cps), 8)).astype(np.float32)
    groups = nfkd_groups(cps)
    ranks = member_ranks(vectors, cps, groups)
    assert sorted(ranks) == ["A", "a", "c"] and all(len(ranks[c]) == len(groups[c]) for c in ranks)
    curve = recall_curve(ranks, (1, 3, 20))
    for k in (1, 3):
        assert curve[k] == group_recall(vectors, cps, groups, k)["macro"]
    assert curve[20] == 1.0  # every member found once k reaches the glyph count


def test_accented_only_and_letter_by_letter_comparison():
    from train.visual.quality import accented_only, compare_letters

    # a: ä accented, ａ ᵃ compatibility forms; b: ḃ accented only
    cps = np.array([ord(c) for c in "aäａᵃbḃ"])
    assert accented_only(cps, k=20) == {"macro": round((1 / 3 + 1) / 2, 4), "micro": 0.5}
    assert accented_only(cps, k=1) == {"macro": 1.0, "micro": 1.0}
    ours, theirs = {c: 0.5 for c in "abcdefghij"}, {c: 0.5 for c in "abcdefghij"}
    assert compare_letters(ours, theirs) == {"better": 0, "same": 10, "worse": 0, "sign_test_p": 1.0,
                                             "macro_difference": 0.0, "ci95": [0.0, 0.0]}
    ours.update(a=0.6, b=0.6, c=0.6, d=0.6, e=0.6, f=0.6, g=0.4)
    # 6 better, 1 worse: two-sided p = 2 · (C(7,6) + C(7,7)) / 2^7 = 0.125
    found = compare_letters(ours, theirs)
    assert {k: found[k] for k in ("better", "same", "worse", "sign_test_p")} == \
        {"better": 6, "same": 3, "worse": 1, "sign_test_p": 0.125}
    assert found["macro_difference"] == 0.05  # (6 · 0.1 − 0.1) / 10
    low, high = found["ci95"]
    assert -0.1 < low < 0.05 < high <= 0.1 and found == compare_letters(ours, theirs)


def test_view_invariance_scores_each_view_against_the_glyph():
    from train.visual.quality import VIEWS, raw_pixels, view_invariance

    images = np.zeros((3, 24, 24), np.uint8)
    images[0, 2:14, 2:4] = images[1, 20:22, 4:20] = images[2, 8:16, 12:20] = 255  # |, — and ■
    scores = view_invariance(raw_pixels, images)
    assert set(scores) == {*VIEWS, "different glyphs"}
    assert scores["different glyphs"] == 0.0  # no shared pixels
    # moved 2 px: | no longer overlaps itself, — keeps 14 of 16 columns, ■ 6 of 8
    assert scores["2 px right"] == round((0 + 14 / 16 + 6 / 8) / 3, 3)
    assert 0.5 < scores["bold"] < 1
    # a space that sees only how much ink there is: every view of a glyph is that glyph
    assert set(view_invariance(lambda im: im.reshape(len(im), -1).sum(1, keepdims=True) + 1.0,
                               images).values()) == {1.0}


def test_ink_box_tells_the_decoder_where_the_glyph_sits():
    import torch

    from train.visual.nets import Decoder, ink_box

    x = torch.zeros(2, 1, 24, 24)
    x[0, 0, 0:12, 23] = 1  # a bar in the top half of the last column; x[1] is blank
    assert torch.allclose(ink_box(x), torch.tensor([[-1, 11 / 23 * 2 - 1, 1, 1], [0, 0, 0, 0.]]))
    with pytest.raises(ValueError, match="ink box"):
        Decoder(8, pose=True)(torch.zeros(2, 8))
    assert Decoder(8, pose=True)(torch.zeros(2, 8), ink_box(x)).shape == (2, 1, 24, 24)


def test_pooled_encoder_sees_a_feature_wherever_it_sits():
    import torch

    from train.visual.nets import Encoder

    x = torch.zeros(2, 1, 24, 24)
    x[0, 0, 8:13, 5:9] = 1
    x[1, 0, 8:13, 13:17] = 1  # the same blob 8 px (one cell of the last feature map) to the right
    for pool in (True, False):
        torch.manual_seed(0)
        encoder = Encoder(16, (4, 8, 8), pool=pool)
        for conv in encoder.conv.modules():  # no bias: blank canvas and zero padding look alike
            if isinstance(conv, torch.nn.Conv2d):
                torch.nn.init.zeros_(conv.bias)
        mu, _ = encoder(x)
        # pooled: the same features, one cell over, give the same code; flattened: a different one
        assert torch.allclose(mu[0], mu[1], atol=1e-6) is pool


def test_nt_xent_rewards_matching_views():
    import torch

    from train.visual.module import nt_xent

    a = torch.randn(32, 64, generator=torch.Generator().manual_seed(0))
    same = nt_xent(a, a + 0.01 * torch.randn_like(a), 0.1)
    shuffled = nt_xent(a, a[torch.randperm(32)], 0.1)
    assert same < 0.5 < shuffled
    assert torch.allclose(nt_xent(a, a.flip(0), 0.1), nt_xent(a.flip(0), a, 0.1))


def test_accents_sit_just_above_or_below_the_ink():
    import torch

    from train.visual.augment import GlyphAugment
    from train.visual.glyphs import GlyphSpec, diacritics

    inks, below = diacritics(GlyphSpec(fonts=("dejavu",)))  # matplotlib's copy: always there
    assert len(inks) > 40 and 0 < sum(below) < len(inks)
    assert all(ink.max() > 0 and ink.shape[0] <= 8 for ink in inks)  # cropped marks, not letters
    x = torch.zeros(256, 1, 24, 24)
    x[:, :, 8:18, 9:15] = 1  # an x-height letter: rows 8–17
    still = dict(scale=(1.0, 1.0), shift=0.0, rotate=0.0, stroke=0.0, marks=0.0)
    aug = GlyphAugment(prob=1.0, accents=1.0, **still)
    with pytest.raises(RuntimeError, match="set_diacritics"):
        aug(x)
    aug.set_diacritics(inks, below)
    added = aug(x, torch.Generator().manual_seed(0)) - x
    rows = (added[:, 0] > 0).any(2)  # (B, rows) inked by the accent
    assert rows.any(1).all()  # every view got one
    assert not rows[:, 8:18].any()  # never on the letter
    above, below_ = rows[:, :8].any(1), rows[:, 18:].any(1)
    assert (above ^ below_).all() and above.any() and below_.any()
    assert rows[:, 7].sum() == 0 and rows[:, 18].sum() == 0  # 1 px gap
    assert rows[above, 6].all() and rows[below_, 19].all()  # and no more
    cols = (added[:, 0] > 0).any(1).float()
    centre = (cols * torch.arange(24)).sum(1) / cols.sum(1)
    assert ((centre - 11.5).abs() <= 2).all()  # over the letter's middle
    assert torch.allclose(GlyphAugment(prob=1.0, accents=0.0, **still)(x), x, atol=1e-4)


def test_ranks_by_kind_tells_accented_from_compatibility_forms():
    from train.visual.quality import nfkd_kind, ranks_by_kind

    assert [nfkd_kind(c) for c in "áᵃａⓐ"] == ["accented", "super", "wide", "circle"]
    cps = np.array([ord(c) for c in "aáᵃbx"])
    # a space where á is a's nearest, ᵃ the farthest
    vectors = np.array([[1, 0], [0.9, 0.1], [-1, 0.1], [0, 1], [0.5, 0.5]], dtype=np.float32)
    ranks = ranks_by_kind(vectors, cps, k=2)
    assert ranks["accented"] == {"members": 1, "median_rank": 1, "in_top_k": 1.0}
    assert ranks["super"] == {"members": 1, "median_rank": 4, "in_top_k": 0.0}


@pytest.mark.parametrize("key", ["model.latent=0", "data.batch_size=0", "data.batch_size=-4",
                                 "export.top_k=-5", "export.batch_size=0"])
def test_non_positive_numbers_fail_before_training(tmp_path, tiny_font, key):
    """Not after a whole run: ``model.latent=0`` used to fail drawing the t-SNE at the end."""
    from hydra.errors import InstantiationException

    from train.vaegan import train

    name, value = key.split("=")
    with pytest.raises((ValueError, InstantiationException),
                       match=f"{name} must be an integer at least 1, got {value}"):
        train(compose_vaegan(tmp_path, tiny_font, key))
    assert not (tmp_path / "run").exists()


def test_export_checks_top_k_and_the_kind_of_checkpoint(smoke_run, tmp_path):
    import torch
    from omegaconf import OmegaConf

    from train.phonetic.embed import load_embedder_checkpoint
    from train.publish import Destination
    from train.visual.export import export_visual

    _, cfg, result = smoke_run
    bad = OmegaConf.merge(cfg.export, {"top_k": -5})
    dest = Destination.of(OmegaConf.merge(cfg, {"out_dir": str(tmp_path), "export_to": "run"}))
    with pytest.raises(ValueError, match="export.top_k must be an integer at least 1, got -5"):
        export_visual(result["last"], bad, dest)
    with pytest.raises(ValueError, match=f"{result['last']} is not a phonetic embedder checkpoint"):
        load_embedder_checkpoint(result["last"])
    phonetic = tmp_path / "phonetic.ckpt"  # what a phonetic embedder checkpoint holds
    torch.save({"hyper_parameters": {"vocab": ["a"], "net": {"dim": 4}}, "state_dict": {}},
               phonetic)
    with pytest.raises(ValueError, match=f"{phonetic} is not a VAE-GAN checkpoint"):
        export_visual(phonetic, cfg.export, dest)
    assert not (tmp_path / "artifacts").exists()


@pytest.mark.slow
def test_ddp_on_two_cpu_processes_draws_and_exports_once(tiny_font, tmp_path):
    # ``python -m``: Lightning starts rank 1 by running the command line again
    cmd = [sys.executable, "-m", "train.vaegan", "experiment=visual_smoke",
           f"data.glyphs.fonts=[{tiny_font}]", f"data.glyphs.cache_dir={tmp_path / 'cache'}",
           "export_to=artifacts", f"paths.artifacts_dir={tmp_path / 'artifacts'}", "trainer=ddp",
           "trainer.accelerator=cpu",
           "trainer.devices=2", f"hydra.run.dir={tmp_path / 'run'}"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=Path(CONF).parent, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert all((tmp_path / "run" / f).is_file() for f in ("tsne.png", "reconstructions.png"))
    assert load_component("visual", tmp_path / "artifacts").meta["glyphs"] == 10
    assert "exported" not in (tmp_path / "run" / "train_ddp_process_1.log").read_text()


# --- can_change and candidates agree with perturb_word -------------------------------------

WORDS = ["abc", "Abc", "ABC", "hah", "xyz", "x", "h", "night", "Café", "teacher’s", "don't",
         "2024", "x2", "Привет", "日本", "𝐛𝐨𝐥𝐝", "\ue000", "\u200b", "e\u0301", "naïve"]


def assert_agrees(p, word, seed=0):
    """can_change iff some of 50 draws at φ = 1 change the word; every candidate is a form
    perturb_word gives: each character kept or one of its top-n look-alikes."""
    rng = random.Random(seed)
    draws = {p.perturb_word(word, 1.0, rng) for _ in range(50)}
    assert p.can_change(word) == (draws != {word}), (word, draws)
    found = p.candidates(word, 8, rng)
    assert len(set(found)) == len(found) and word not in found and bool(found) == p.can_change(word)
    for form in found:
        assert len(form) == len(word) and all(
            a == b or (a in p.space.rows and b in {n for n, _ in p.space.neighbours(a, p.top_n)})
            for a, b in zip(word, form)), (word, form)


def test_can_change_is_exact_and_candidates_are_reachable(tmp_path):
    # a, b and c look like the next letter; h has a row, but every look-alike is h itself
    keys = np.array([ord(c) for c in "abch"], np.uint16)
    nb = np.array([[ord(c)] * 2 for c in "bcah"], np.uint16)
    files = {**VectorIndex.build(np.eye(4), keys).files("index"),
             **NeighbourTable(keys, nb, np.ones((4, 2), np.float16)).files("table")}
    write_component("visual", files, {"dims": 4}, root=tmp_path)
    p = VisualPerturber(root=tmp_path)
    assert p.can_change("xa") and not p.can_change("h") and not p.can_change("hxh")
    assert p.perturb_word("hxh", 1.0, random.Random(0)) == "hxh"
    for word in WORDS:
        assert_agrees(p, word)


def test_can_change_and_candidates_on_the_shipped_table():
    from zeroe_assets.assets import component_available

    if not component_available("visual"):
        pytest.skip("no visual artifacts in the default root ($ZEROE_ARTIFACTS)")
    p = VisualPerturber()
    for word in WORDS:
        for variant in {word, word.upper(), word.capitalize()}:
            assert_agrees(p, variant)
