import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hydra.utils import instantiate

from tests.conftest import compose
from train.batching import BucketBatchSampler
from train.phonetic.lexicon import read_phones_tsv, split_lexicon
from train.phonetic.seq2seq import error_counts
from train.seq2seq import train
from zeroe_assets.assets.store import read_manifest
from zeroe_assets.cli import main
from zeroe_assets.phonetic.seq2seq import Vocab, load_transliterator

TINY = {
    "cat": ["K AE T"], "dog": ["D AO G"], "house": ["HH AW S"], "mouse": ["M AW S"],
    "phone": ["F OW N"], "photo": ["F OW T OW"], "night": ["N AY T"], "knight": ["N AY T"],
    "light": ["L AY T"], "right": ["R AY T"], "write": ["R AY T"], "table": ["T EY B AH L"],
    "water": ["W AO T ER"], "paper": ["P EY P ER"], "green": ["G R IY N"], "white": ["W AY T", "HH W AY T"],
    "yellow": ["Y EH L OW"], "orange": ["AO R AH N JH", "AO R IH N JH"], "river": ["R IH V ER"],
    "stone": ["S T OW N"], "laugh": ["L AE F"], "cough": ["K AO F", "K AA F"], "rough": ["R AH F"],
    "tomato": ["T AH M EY T OW", "T AH M AA T OW"], "music": ["M Y UW Z IH K"], "queen": ["K W IY N"],
}


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("lex") / "tiny.tsv"
    path.write_text("".join(f"{w}\t{p}\n" for w, ps in TINY.items() for p in ps))
    return path


def smoke_cfg(tiny_path, out, direction="g2p", extra=()):
    return compose("seq2seq", [
        "experiment=seq2seq_smoke", "lexicon=phones_tsv", f"lexicon.reader.path={tiny_path}",
        f"direction={direction}", f"out_dir={out}", "export_after=true", "export_to=artifacts",
        f"paths.artifacts_dir={out.parent / 'artifacts'}", *extra])


@pytest.fixture(scope="module")
def trained(tiny_path, tmp_path_factory):
    """Both directions trained by the smoke config and exported into one artifact root."""
    base = tmp_path_factory.mktemp("s2s")
    metrics = {d: train(smoke_cfg(tiny_path, base / d, d)) for d in ("g2p", "p2g")}
    return base, base / "artifacts", metrics


def test_smoke_training_overfits_and_exports(trained, tiny_path):
    base, root, metrics = trained
    train_words = split_lexicon(read_phones_tsv(tiny_path), (0.6, 0.2, 0.2))["train"]
    g2p = load_transliterator("g2p", root)
    for precision in ("fp32", "bf16"):
        hyps = g2p.translate([tuple(w) for w in train_words.entries], n=1, beam=1,
                             precision=precision)
        assert all(h[0].tokens in prons for h, prons in zip(hyps, train_words.entries.values()))
    with pytest.raises(ValueError, match="precision must be one of"):
        g2p.translate([tuple("bog")], precision="fp16")
    # weights are stored as float16 (half the file) and decoded in float32
    with np.load(root / "phonetic" / "seq2seq" / "g2p.npz") as arrays:
        assert {arrays[k].dtype for k in arrays.files} == {np.dtype(np.float16)}
    assert all(p.dtype == torch.float32 for p in g2p.net.parameters())
    saved = json.loads((base / "g2p" / "metrics.json").read_text())
    assert saved["split"]["train"]["words"] == len(train_words) and 0 <= saved["test"]["wer"] <= 1
    assert {"wer", "per", "wer_beam3", "per_beam3"} <= set(saved["test"])
    assert {"wer", "cer"} <= set(metrics["p2g"]["test"])
    component = read_manifest(root)["components"]["phonetic/seq2seq"]
    # exporting P2G kept the G2P model of the same component
    assert set(component["files"]) == {"g2p.npz", "g2p.json", "p2g.npz", "p2g.json"}
    assert component["meta"]["g2p"]["split"] == saved["split"]
    assert (base / "g2p" / "checkpoints" / "last.ckpt").exists()


def test_export_only_reexports_a_checkpoint(trained, tiny_path):
    base, root, metrics = trained
    ckpt = base / "g2p" / "checkpoints" / "last.ckpt"
    again = train(smoke_cfg(tiny_path, base / "g2p_again", extra=["export_only=true", f"ckpt_path={ckpt}"]))
    assert again["fit_seconds"] is None and again["global_step"] > 0
    with pytest.raises(ValueError, match="needs ckpt_path"):
        train(smoke_cfg(tiny_path, base / "g2p_none", extra=["export_only=true"]))
    other = base / "other.ckpt"  # a checkpoint of another model
    torch.save({"hyper_parameters": {"latent": 8}, "state_dict": {}}, other)
    with pytest.raises(ValueError, match="not a G2P/P2G checkpoint"):
        train(smoke_cfg(tiny_path, base / "g2p_other", extra=["export_only=true",
                                                               f"ckpt_path={other}"]))


def test_export_goes_into_the_run_folder_by_default(trained, tiny_path, tmp_path):
    base, root, _ = trained
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    train(compose("seq2seq", [
        "experiment=seq2seq_smoke", "lexicon=phones_tsv", f"lexicon.reader.path={tiny_path}",
        f"out_dir={tmp_path}", f"paths.artifacts_dir={root}", "export_only=true",
        "export_after=true",
        f"ckpt_path={base / 'g2p' / 'checkpoints' / 'last.ckpt'}"]))
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    assert load_transliterator("g2p", tmp_path / "artifacts").direction == "g2p"
    assert set(read_manifest(tmp_path / "artifacts")["components"]) == {"phonetic/seq2seq"}


def test_beam_search_distinct_nbest_in_score_order(trained):
    g2p = load_transliterator("g2p", trained[1])
    for hyps in g2p.translate([tuple("white"), tuple("tomato"), tuple("bog")], n=5, beam=5):
        assert len(hyps) == 5 and len({h.tokens for h in hyps}) == 5
        scores = [h.score for h in hyps]
        assert scores == sorted(scores, reverse=True) and scores[0] <= 0
    greedy = g2p.translate([tuple("knight")], n=1, beam=1)[0][0]
    assert greedy.tokens == ("N", "AY", "T")


def test_batched_search_matches_one_word_at_a_time(trained):
    # inputs leave the batch as they finish; that must not change anyone's n-best
    g2p = load_transliterator("g2p", trained[1])
    words = [tuple(w) for w in ("a", "bog", "knight", "tomato", "white", "bookkeeping")]
    together = g2p.translate(words, n=3, beam=3, precision="fp32")
    for word, hyps in zip(words, together):
        alone = g2p.translate([word], n=3, beam=3, precision="fp32")[0]
        assert [h.tokens for h in hyps] == [h.tokens for h in alone]
        assert [h.score for h in hyps] == pytest.approx([h.score for h in alone], abs=1e-4)


def test_unknown_symbols_are_a_clear_error(trained):
    g2p = load_transliterator("g2p", trained[1])
    with pytest.raises(ValueError, match=r"unknown symbol\(s\) \['7'\]"):
        g2p.translate([tuple("r7d")])
    with pytest.raises(ValueError, match="empty"):
        g2p.translate([()])
    with pytest.raises(ValueError, match="unknown symbol"):
        Vocab(["a", "b"]).encode(["a", "c"])


def test_cli_g2p_and_p2g(trained, monkeypatch, capsys):
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(trained[1]))
    assert main(["g2p", "Knight", "cat", "-n", "2", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["input"] for r in lines] == ["Knight", "cat"] and len(lines[0]["nbest"]) == 2
    assert lines[0]["nbest"][0]["output"] == "N AY T"
    assert main(["p2g", "K AE T", "-n", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "K AE T" and len(out) == 4
    assert main(["p2g", "K AE1 T", "-n", "1"]) == 0  # CMUdict stress digits, stress-free model
    assert capsys.readouterr().out.splitlines()[0] == "K AE1 T"
    assert main(["p2g", "K QQ T"]) == 1  # named on stderr, exit 1 (zeroe g2p --help)
    assert "unknown symbol" in capsys.readouterr().err


def test_cli_registration_does_not_import_torch():
    code = ("import sys; from zeroe_assets.cli import build_parser; build_parser(); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_error_counts_any_reference_and_silent_marks():
    refs = [[("R", "IY", "D"), ("R", "EH", "D")], [("K", "AE", "T")], [tuple("ri5+")]]
    items, wrong, edits, length = error_counts([("R", "EH", "D"), ("K", "AE"), tuple("ri5")], refs,
                                               frozenset("+"))
    assert (items, wrong, edits, length) == (3, 1, 1, 9)


def test_bucket_sampler_covers_once_and_reshuffles_per_epoch():
    lengths = np.random.default_rng(0).integers(1, 20, 1000)
    sampler = BucketBatchSampler(lengths, 32, shuffle=True, seed=3, bucket=4)
    first = list(sampler)
    assert sorted(i for b in first for i in b) == list(range(1000)) and len(first) == len(sampler)
    assert first == list(sampler)
    sampler.set_epoch(1)
    assert list(sampler) != first
    spread = np.mean([np.ptp(lengths[b]) for b in first])
    assert spread < np.ptp(lengths) / 2  # batches are length-homogeneous


@pytest.mark.slow
def test_resume_from_last_checkpoint(tiny_path, tmp_path):
    out = tmp_path / "run"
    extra = ["export_after=false", "trainer.check_val_every_n_epoch=1"]
    train(smoke_cfg(tiny_path, out, extra=[*extra, "trainer.max_epochs=10"]))
    last = out / "checkpoints" / "last.ckpt"
    before = torch.load(last, weights_only=True)
    train(smoke_cfg(tiny_path, out, extra=[*extra, "trainer.max_epochs=20", f"ckpt_path={last}"]))
    after = torch.load(last, weights_only=True)
    assert after["epoch"] == before["epoch"] + 10
    assert after["global_step"] == 2 * before["global_step"] > 0


def test_padding_does_not_change_an_encoding():
    # an unpadded batch takes the unpacked GRU, a padded one the packed GRU: same numbers
    from zeroe_assets.phonetic.seq2seq import PAD, Seq2SeqNet

    torch.manual_seed(0)
    net = Seq2SeqNet(12, 9, emb_dim=8, hidden=16, enc_layers=2, dropout=0.0).eval()
    word = torch.randint(3, 12, (1, 6))
    alone = net.encode(word, torch.tensor([6]))
    padded = torch.cat([word, torch.tensor([[4, 5, 6, PAD, PAD, PAD]])])
    batched = net.encode(padded, torch.tensor([6, 3]))
    for a, b in zip(alone, batched):
        assert torch.allclose(a[0], b[0], atol=1e-6)


def test_ensemble_of_identical_members_decodes_like_one():
    from zeroe_assets.phonetic.seq2seq import Ensemble, Seq2SeqNet, beam_search

    torch.manual_seed(0)
    net = Seq2SeqNet(12, 9, emb_dim=8, hidden=16, enc_layers=1, dropout=0.0).eval()
    src = torch.randint(3, 12, (5, 6))
    lengths = torch.tensor([6, 5, 4, 3, 2])
    single = beam_search(net, src, lengths, beam=4, n=3)
    both = beam_search(Ensemble([net, net]), src, lengths, beam=4, n=3)
    assert [[ids for ids, _ in h] for h in single] == [[ids for ids, _ in h] for h in both]
    assert np.allclose([s for h in single for _, s in h], [s for h in both for _, s in h], atol=1e-5)
    with pytest.raises(ValueError, match="at least two"):
        Ensemble([net])


def test_members_train_in_parallel_and_export_as_an_ensemble(tiny_path, tmp_path):
    from zeroe_assets.phonetic.seq2seq import Ensemble

    out = tmp_path / "ens"
    metrics = train(smoke_cfg(tiny_path, out, extra=["members=2", "export_after=true"]))
    assert metrics["members"] == 2 and len(metrics["checkpoint"]) == 2
    assert [Path(c).parts[-3] for c in metrics["checkpoint"]] == ["member0", "member1"]
    assert (out / "member1" / "train.log").exists()
    assert (out / "member0" / "logs" / "version_0" / "metrics.csv").exists()
    g2p = load_transliterator("g2p", tmp_path / "artifacts")
    assert isinstance(g2p.net, Ensemble) and [m.reverse for m in g2p.nets] == [False, True]
    train_words = split_lexicon(read_phones_tsv(tiny_path), (0.6, 0.2, 0.2))["train"]
    hyps = g2p.translate([tuple(w) for w in train_words.entries], n=1, beam=1)
    assert all(h[0].tokens in prons for h, prons in zip(hyps, train_words.entries.values()))
    # the same members again, export only; a checkpoint list must match the members
    again = train(smoke_cfg(tiny_path, tmp_path / "again",
                            extra=["members=2", "export_only=true",
                                   f"ckpt_path=[{','.join(metrics['checkpoint'])}]"]))
    assert again["test"] == metrics["test"] and again["fit_seconds"] is None
    with pytest.raises(ValueError, match="a list, one per member"):
        train(smoke_cfg(tiny_path, tmp_path / "bad", extra=["members=2", "export_only=true",
                                                             f"ckpt_path={metrics['checkpoint'][0]}"]))


def test_member_progress_line_survives_a_half_written_log(tmp_path):
    from train.members import _latest

    assert _latest(tmp_path, "val/wer") == "starting"
    for version in (2, 10):  # the newest version is the running one, in numeric order
        (tmp_path / "logs" / f"version_{version}").mkdir(parents=True)
    (tmp_path / "logs" / "version_2" / "metrics.csv").write_text("epoch,step,val/wer\n0,10,0.5\n")
    log = tmp_path / "logs" / "version_10" / "metrics.csv"
    log.write_text("epoch,step,val/wer\n0,10,0.5\n1,20,0.4\n")
    assert _latest(tmp_path, "val/wer") == "epoch 1 val/wer 0.4000"
    log.write_text("epoch,step,val/wer\n0,10,0.5\n1,20,0.4x")
    assert _latest(tmp_path, "val/wer") == "…"


def test_reverse_targets_flips_each_row_before_its_end():
    from train.phonetic.seq2seq import reverse_targets

    tgt_out = torch.tensor([[5, 6, 7, 2, 0], [8, 9, 2, 0, 0], [4, 2, 0, 0, 0]])
    tgt_in, out = reverse_targets(tgt_out)
    assert out.tolist() == [[7, 6, 5, 2, 0], [9, 8, 2, 0, 0], [4, 2, 0, 0, 0]]
    assert tgt_in.tolist() == [[1, 7, 6, 5, 2], [1, 9, 8, 2, 0], [1, 4, 2, 0, 0]]


def test_decode_scores_are_sequence_log_probabilities_in_both_orders():
    from zeroe_assets.phonetic.seq2seq import Ensemble, Seq2SeqNet, beam_search, decode, sequence_logprob

    torch.manual_seed(0)
    l2r = Seq2SeqNet(12, 9, emb_dim=8, hidden=16, enc_layers=1, dropout=0.0).eval()
    r2l = Seq2SeqNet(12, 9, emb_dim=8, hidden=16, enc_layers=1, dropout=0.0, reverse=True).eval()
    with torch.no_grad():  # short outputs, so that every hypothesis ends within the search
        for net in (l2r, r2l):
            net.out.bias[2] += 2.0
    src = torch.randint(3, 12, (4, 6))
    lengths = torch.tensor([6, 5, 3, 2])
    # a right-to-left net's output comes back in reading order, scored as the net sees it
    raw = beam_search(r2l, src, lengths, beam=3, n=3)
    assert decode(r2l, src, lengths, beam=3, n=3) == [[(ids[::-1], s) for ids, s in h] for h in raw]
    for row, hyps in enumerate(decode(r2l, src, lengths, beam=3, n=3)):
        scored = sequence_logprob(r2l, src[[row] * len(hyps)], lengths[[row] * len(hyps)],
                                  [ids for ids, _ in hyps])
        assert np.allclose(scored.numpy(), [s for _, s in hyps], atol=1e-4)
    # both orders: every proposal ranked by the members' mean log-probability
    both = Ensemble([l2r, r2l])
    with pytest.raises(ValueError, match="both orders"):
        beam_search(both, src, lengths)
    for row, hyps in enumerate(decode(both, src, lengths, beam=3, n=4)):
        ids = [h for h, _ in hyps]
        assert len(set(map(tuple, ids))) == len(ids) and 3 <= len(ids) <= 4
        index = [row] * len(ids)
        mean = (sequence_logprob(l2r, src[index], lengths[index], ids)
                + sequence_logprob(r2l, src[index], lengths[index], ids)) / 2
        assert np.allclose(mean.numpy(), [s for _, s in hyps], atol=1e-4)
        assert [s for _, s in hyps] == sorted((s for _, s in hyps), reverse=True)


@pytest.mark.parametrize("reverse", [False, True])
def test_sequence_logprob_scores_each_row_as_the_padded_teacher_forced_pass(reverse):
    """Re-scoring steps only the rows whose target has not ended: each row, in the given order,
    keeps the log-probability the full padded pass gives it."""
    from zeroe_assets.phonetic.seq2seq import BOS, EOS, PAD, Seq2SeqNet, pad_batch, sequence_logprob

    torch.manual_seed(0)
    net = Seq2SeqNet(12, 9, emb_dim=8, hidden=16, enc_layers=1, dropout=0.0, reverse=reverse).eval()
    src = torch.randint(3, 12, (5, 6))
    lengths = torch.tensor([6, 5, 4, 3, 2])
    targets = [[3, 4], [5, 6, 7, 8, 3, 4], [6], [3, 4, 5, 6], [7, 8, 8]]  # unsorted lengths
    with torch.no_grad():
        tgt, _ = pad_batch([[BOS, *(t[::-1] if reverse else t), EOS] for t in targets])
        logp = torch.log_softmax(net(src, lengths, tgt[:, :-1]).float(), -1)
        gold = tgt[:, 1:]
        padded = logp.gather(-1, gold.unsqueeze(-1)).squeeze(-1).masked_fill(gold == PAD, 0).sum(1)
        scored = sequence_logprob(net, src, lengths, targets)
        alone = [sequence_logprob(net, src[[i]], lengths[[i]], [t]).item()
                 for i, t in enumerate(targets)]
    assert np.allclose(scored.numpy(), padded.numpy(), atol=1e-5)
    assert np.allclose(scored.numpy(), alone, atol=1e-5)
    assert len(set(scored.tolist())) == len(targets)  # rows are not mixed up


def test_right_to_left_model_overfits_in_reading_order(tiny_path, tmp_path):
    out = tmp_path / "r2l"
    train(smoke_cfg(tiny_path, out, extra=["model.net.reverse=true"]))
    g2p = load_transliterator("g2p", tmp_path / "artifacts")
    assert g2p.nets[0].reverse
    train_words = split_lexicon(read_phones_tsv(tiny_path), (0.6, 0.2, 0.2))["train"]
    hyps = g2p.translate([tuple(w) for w in train_words.entries], n=1, beam=1)
    assert all(h[0].tokens in prons for h, prons in zip(hyps, train_words.entries.values()))


def test_bucket_sampler_shards_batches_over_ddp_ranks():
    lengths = np.random.default_rng(0).integers(1, 20, 100)
    whole = list(BucketBatchSampler(lengths, 8, shuffle=True, seed=3, bucket=2))  # 13 batches
    for replicas in (2, 3, 20):
        ranks = [BucketBatchSampler(lengths, 8, shuffle=True, seed=3, bucket=2, replicas=replicas,
                                    rank=r) for r in range(replicas)]
        shards = [list(s) for s in ranks]
        # every rank as many batches (a rank short of one would hang the gradient sync) ...
        assert {len(s) for s in shards} == {len(ranks[0])} and len(ranks[0]) == -(-13 // replicas)
        # ... dealt from the same shuffled batches, each at least once, the remainder wrapped round
        dealt = [b for i in range(len(ranks[0])) for s in shards for b in s[i:i + 1]]
        assert dealt[:13] == whole and all(b in whole for b in dealt[13:])
        assert [list(s) for s in ranks] == shards  # deterministic
    with pytest.raises(ValueError, match="rank must be in"):
        BucketBatchSampler(lengths, 8, shuffle=True, replicas=2, rank=2)


@pytest.mark.parametrize("key", ["data.batch_size=-4", "data.batch_size=0", "data.bucket=0",
                                 "data.eval_batch_size=0"])
def test_non_positive_sizes_name_their_key(tiny_path, tmp_path, key):
    name, value = key.split("=")
    with pytest.raises(ValueError, match=f"{name} must be an integer at least 1, got {value}"):
        train(smoke_cfg(tiny_path, tmp_path, extra=[key]))


def test_missing_member_checkpoints_fail_before_members_start(tiny_path, tmp_path):
    cfg = smoke_cfg(tiny_path, tmp_path / "run",
                    extra=["members=2", f"ckpt_path=[{tmp_path}/nope0.ckpt,{tmp_path}/nope1.ckpt]"])
    with pytest.raises(FileNotFoundError, match="nope0.ckpt, .*nope1.ckpt"):
        train(cfg)
    assert not (tmp_path / "run").exists()  # no member started
    with pytest.raises(ValueError, match="set members=1"):  # one DDP launcher per member: no
        train(smoke_cfg(tiny_path, tmp_path / "run", extra=["members=2", "trainer=ddp"]))
    with pytest.raises(ValueError, match="set members=1"):  # auto: every GPU, so DDP again
        train(smoke_cfg(tiny_path, tmp_path / "run", extra=["members=2", "trainer.devices=auto"]))


def test_resume_logs_to_a_new_version_and_keeps_the_history(tiny_path, tmp_path):
    out = tmp_path / "run"
    extra = ["export_after=false", "trainer.check_val_every_n_epoch=1"]
    train(smoke_cfg(tiny_path, out, extra=[*extra, "trainer.max_epochs=2"]))
    train(smoke_cfg(tiny_path, out, extra=[*extra, "trainer.max_epochs=3",
                                           f"ckpt_path={out / 'checkpoints' / 'last.ckpt'}"]))
    epochs = []
    for version in ("version_0", "version_1"):
        with open(out / "logs" / version / "metrics.csv") as f:
            epochs.append(sorted({int(r["epoch"]) for r in csv.DictReader(f) if r["train/loss"]}))
    assert epochs == [[0, 1], [2]]


def test_one_device_trainer_tests_after_a_ddp_fit():
    from train.distributed import one_device_trainer

    cfg = compose("seq2seq", ["trainer=ddp", "trainer.accelerator=cpu", "trainer.devices=2"]).trainer
    assert instantiate(cfg).world_size == 2
    tester = one_device_trainer(cfg)
    assert tester.world_size == 1 and tester.logger is None and tester.checkpoint_callback is None


@pytest.mark.slow
def test_ddp_on_two_cpu_processes_trains_tests_and_exports_once(tiny_path, tmp_path):
    # ``python -m``: Lightning starts rank 1 by running the command line again
    run = subprocess.run([sys.executable, "-m", "train.seq2seq", "experiment=seq2seq_smoke",
                          "lexicon=phones_tsv", f"lexicon.reader.path={tiny_path}", "trainer=ddp",
                          "trainer.accelerator=cpu", "trainer.devices=2", "export_after=true",
                          "export_to=artifacts", f"paths.artifacts_dir={tmp_path / 'artifacts'}",
                          f"hydra.run.dir={tmp_path}"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]).keys() >= {"wer", "per"}
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert "exported g2p" in run.stdout and run.stdout.count("exported g2p") == 1
    assert metrics["split"]["test"]["words"] > 0
    assert (tmp_path / "artifacts" / "phonetic" / "seq2seq" / "g2p.npz").exists()


def test_outputs_cut_off_at_the_length_cap_are_dropped():
    """A hypothesis that hits the cap has no end symbol: an incomplete word, never an output
    (Supercalifragilisticexpialidocious must not come back cut)."""
    from zeroe_assets.phonetic.seq2seq import Seq2SeqNet, beam_search

    short = 0
    for seed in range(8):
        torch.manual_seed(seed)
        net = Seq2SeqNet(12, 9, emb_dim=8, hidden=16, enc_layers=1, dropout=0.0).eval()
        src = torch.randint(3, 12, (6, 3))
        for hyps in beam_search(net, src, torch.full((6,), 3), beam=6, n=6):
            assert all(len(ids) < 2 * 3 + 5 for ids, _ in hyps)  # each ended within the cap
            short += len(hyps) < 6
    assert short  # some were cut off and dropped: the case this is about did come up
