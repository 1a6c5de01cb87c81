"""``zeroe attack`` end to end on OLID tweets against a trained tc-tfidf victim: the files it
writes, resuming, -j, and a clear exit 2 (results intact) for each kind of bad input."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from zeroe_assets.cli import main
from zeroe_assets.search.results import AttackResult, summarize

from .attack_fixtures import needs_olid, olid  # noqa: F401  (olid: a fixture)
from .conftest import ROOT

pytestmark = needs_olid
LIMIT = 10  # examples per run
# the cheap Zéroe perturbers (phonetic and visual look up their assets: slower)
CHEAP = "intrude,keyboard-typo,disemvowel,truncate,inner-shuffle"


def attack(capsys, data, model, out, *extra, recipe="textfooler-zeroe", victim="tc-tfidf"):
    code = main(["search", "--task", "tc", "--victim", victim, "--victim-path", str(model),
                 "--input", str(data), "--recipe", recipe, "--out", str(out), "--limit",
                 str(LIMIT), "--perturbers", CHEAP, "-q", *extra])
    return (code, *capsys.readouterr())


@pytest.fixture(scope="module")
def reference(olid, tmp_path_factory):
    """One uninterrupted run: its folder."""
    out = tmp_path_factory.mktemp("reference")
    data, model = olid
    assert main(["search", "--task", "tc", "--victim", "tc-tfidf", "--victim-path", str(model),
                 "--input", str(data), "--recipe", "textfooler-zeroe", "--out", str(out),
                 "--limit", str(LIMIT), "--perturbers", CHEAP, "-q"]) == 0
    return out


def test_outputs_parse_and_agree(reference):
    lines = (reference / "results.jsonl").read_text(encoding="utf-8").splitlines()
    results = [AttackResult.from_json(json.loads(line)) for line in lines]
    assert [r.index for r in results] == list(range(LIMIT))
    summary = json.loads((reference / "summary.json").read_text(encoding="utf-8"))
    metrics = summarize(results)
    assert {k: summary[k] for k in metrics} == metrics
    assert sum(summary["counts"].values()) == LIMIT and summary["counts"]["successful"] > 0
    assert summary["settings"]["recipe"] == "textfooler-zeroe"
    timing = summary["timing"]
    assert timing["examples"] == LIMIT and timing["victim_seconds"] > 0
    assert timing["overhead_seconds"] == pytest.approx(
        timing["attack_seconds"] - timing["victim_seconds"])
    assert "seconds" not in lines[0]  # timings live in summary.json only
    report = (reference / "report.md").read_text(encoding="utf-8")
    assert f"| {summary['clean_accuracy']:.1f} | {summary['accuracy_under_attack']:.1f} |" in report
    won = next(r for r in results if r.status == "successful")
    assert f"- adversarial: {won.adversarial}" in report


def test_resume_gives_identical_files(reference, olid, tmp_path, capsys):
    full = (reference / "results.jsonl").read_bytes()
    out, moved = tmp_path / "run", tmp_path / "moved" / olid[0].name  # elsewhere: resumed
    out.mkdir()
    moved.parent.mkdir()
    moved.write_bytes(olid[0].read_bytes())
    (out / "run.json").write_bytes((reference / "run.json").read_bytes())
    lines = full.splitlines(keepends=True)
    for partial in (b"".join(lines[:-4]), full[:len(full) - len(lines[-1]) // 2]):
        (out / "results.jsonl").write_bytes(partial)  # lines deleted, or a last line cut mid-way
        code, stdout, _ = attack(capsys, moved, olid[1], out)
        assert code == 0 and str(out / "results.jsonl") in stdout
        assert (out / "results.jsonl").read_bytes() == full
        for name in ("report.md", "report.html"):
            assert (out / name).read_bytes() == (reference / name).read_bytes()
    code, _, _ = attack(capsys, *olid, out)  # nothing left to attack
    assert code == 0 and (out / "results.jsonl").read_bytes() == full
    assert json.loads((out / "summary.json").read_text())["timing"]["examples"] == 0


def test_a_larger_limit_extends_a_run(reference, olid, tmp_path, capsys):
    assert attack(capsys, *olid, tmp_path, "--limit", "6")[0] == 0
    assert (tmp_path / "results.jsonl").read_bytes().count(b"\n") == 6
    assert attack(capsys, *olid, tmp_path)[0] == 0  # --limit 16
    assert (tmp_path / "results.jsonl").read_bytes() == (reference / "results.jsonl").read_bytes()
    code, _, err = attack(capsys, *olid, tmp_path, "--limit", "6")
    assert code == 2 and "more than the 6 examples" in err


def test_processes_give_identical_results(reference, olid, tmp_path, capsys):
    code, _, _ = attack(capsys, *olid, tmp_path, "-j", "2")
    assert code == 0
    for name in ("results.jsonl", "report.md", "report.html"):
        assert (tmp_path / name).read_bytes() == (reference / name).read_bytes()


def test_other_settings_refused_unless_restart(reference, olid, tmp_path, capsys):
    for name in ("run.json", "results.jsonl"):
        (tmp_path / name).write_bytes((reference / name).read_bytes())
    code, _, err = attack(capsys, *olid, tmp_path, "--seed", "3")
    assert code == 2 and "other settings (seed: 0 then, 3 now)" in err and "--restart" in err
    assert (tmp_path / "results.jsonl").read_bytes() == (reference / "results.jsonl").read_bytes()
    code, _, _ = attack(capsys, *olid, tmp_path, "--seed", "3", "--restart", "--limit", "2")
    assert code == 0 and (tmp_path / "results.jsonl").read_bytes().count(b"\n") == 2
    assert json.loads((tmp_path / "summary.json").read_text())["settings"]["seed"] == 3


@pytest.mark.parametrize("extra, message", [
    (["--recipe", "textfool"], "textfool"),
    (["--perturbers", "intrude,nope"], "nope"),
    (["--target", "purple"], "purple"),
    (["--max-queries", "0"], "0"),
    (["--edit-capitals"], "edit_capitals cannot apply to textfooler-zeroe with intrude|"),
    (["--min-word-length", "0"], "min_word_length must be an integer at least 1"),
])
def test_bad_options_exit_2(extra, message, olid, tmp_path, capsys):
    code, _, err = attack(capsys, *olid, tmp_path / "run", *extra)
    assert code == 2 and "zeroe search: error:" in err and message in err
    assert "Traceback" not in err and not (tmp_path / "run" / "results.jsonl").exists()


@pytest.mark.parametrize("content, message", [
    (None, "not found"),
    ("", "no text column"),
    ("id\tsentence\tlabel\n1\thello\tOFF\n", "no text column"),
    ("id\ttweet\tsubtask_a\n", "no labelled examples"),
])
def test_bad_data_exit_2(content, message, olid, tmp_path, capsys):
    data = tmp_path / "data.tsv"
    if content is not None:
        data.write_text(content, encoding="utf-8")
    code, _, err = attack(capsys, data, olid[1], tmp_path / "run")
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("victim", ["nan_victim", "short_victim", "improbable_victim"])
def test_broken_victim_exit_2_results_intact(victim, reference, olid, tmp_path, capsys):
    code, _, err = attack(capsys, *olid, tmp_path, victim=f"tests.attack_fixtures:{victim}")
    assert code == 2 and f"tests.attack_fixtures:{victim}" in err and "Traceback" not in err
    written = (tmp_path / "results.jsonl").read_bytes()
    assert written.endswith(b"\n")  # whole lines: the results before the failure
    assert (reference / "results.jsonl").read_bytes().startswith(written)


def test_interrupt_keeps_results_and_resumes(reference, olid, tmp_path, capsys):
    data, model = olid
    proc = subprocess.Popen(
        [sys.executable, "-m", "zeroe_assets.cli", "search", "--task", "tc", "--victim",
         "tc-tfidf", "--victim-path", str(model), "--input", str(data), "--recipe",
         "textfooler-zeroe", "--out", str(tmp_path), "--limit", str(LIMIT), "--perturbers",
         CHEAP, "-q"], env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE,
        text=True,  # Ctrl-C reaches it even when the tests run in the background (SIG_IGN)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    results = tmp_path / "results.jsonl"
    while proc.poll() is None and not (results.exists() and results.read_bytes()):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)  # after the first result, long before the last
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "zeroe search: interrupted" in err
    full, kept = (reference / "results.jsonl").read_bytes(), results.read_bytes()
    assert kept.endswith(b"\n") and full.startswith(kept) and kept != full
    assert attack(capsys, data, model, tmp_path)[0] == 0
    assert results.read_bytes() == full


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_victim_that_raises_exits_3_naming_it_results_intact(processes, reference, olid,
                                                                tmp_path, capsys, terminated):
    """issue 37: one line naming the victim (no traceback), exit 3, the results before it kept;
    with -j 2 the workers end on their own (a terminate could hang: tests/test_parallel.py)."""
    victim = "tests.attack_fixtures:raising_victim"
    code, _, err = attack(capsys, *olid, tmp_path, "-j", processes, victim=victim)
    assert code == 3 and "Traceback" not in err and terminated == []
    line = err.splitlines()[-1]
    assert line.startswith(f"zeroe search: error: victim {victim} failed on a batch of ")
    assert line.endswith(": RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB")
    written = (tmp_path / "results.jsonl").read_bytes()
    assert written.endswith(b"\n")
    assert (reference / "results.jsonl").read_bytes().startswith(written)


def test_two_runs_started_together_on_one_folder_never_interleave(reference, olid, tmp_path):
    """issue 37: the second to reach the folder is refused (exit 75) while the first writes, or
    finds the run complete; either way every example is there once."""
    data, model = olid
    command = [sys.executable, "-m", "zeroe_assets.cli", "search", "--task", "tc", "--victim",
               "tc-tfidf", "--victim-path", str(model), "--input", str(data), "--recipe",
               "textfooler-zeroe", "--out", str(tmp_path), "--limit", str(LIMIT),
               "--perturbers", CHEAP, "-q"]
    procs = [subprocess.Popen(command, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outcomes = [(proc.wait(120), proc.stderr.read()) for proc in procs]
    for code, err in outcomes:
        assert code in (0, 75) and "Traceback" not in err
        if code == 75:
            assert f"{tmp_path} is in use by process " in err and "(zeroe search)" in err
    assert 0 in [code for code, _ in outcomes]
    assert (tmp_path / "results.jsonl").read_bytes() == \
        (reference / "results.jsonl").read_bytes()


def test_a_lone_surrogate_in_the_input_is_written_as_its_escape(tmp_path, capsys):
    # JSON's "\ud800" reads as a lone surrogate, which no UTF-8 carries: results.jsonl and the
    # reports stopped the run with "'utf-8' codec can't encode character '\ud800'", exit 2
    data = tmp_path / "tweets.jsonl"
    data.write_text('{"tweet": "you are an idiot \\ud800 go home", "subtask_a": "OFF"}\n'
                    '{"tweet": "have a lovely day", "subtask_a": "NOT"}\n', encoding="utf-8")
    out = tmp_path / "run"
    code = main(["search", "--task", "tc", "--victim", "tests.attack_fixtures:word_victim",
                 "--input", str(data), "--recipe", "deepwordbug", "--out", str(out), "-q"])
    assert code == 0, capsys.readouterr().err
    first = json.loads((out / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["status"] == "successful" and "\ud800" in first["adversarial"]
    assert "\\ud800" in (out / "report.md").read_text(encoding="utf-8")
    assert (out / "report.html").read_text(encoding="utf-8")
    # a rerun reads the line back and resumes: nothing left to attack, the same files
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix != ".json"}
    assert main(["search", "--task", "tc", "--victim", "tests.attack_fixtures:word_victim",
                 "--input", str(data), "--recipe", "deepwordbug", "--out", str(out), "-q"]) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.suffix != ".json"} == before
