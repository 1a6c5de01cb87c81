"""issue 21, "The CLI": Ctrl-C and leftovers of bench generate, empty CoNLL-U forms, silent drops
(`zeroe list`, rand, --perturbers all, --strict), and paper cuts (-j cap, bench help, g2p)."""
import argparse
import io
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from zeroe_assets.assets import ArtifactError, write_component
from zeroe_assets.bench import generate as gen
from zeroe_assets.cli import build_parser, main
from zeroe_assets.spec import get_perturbation

from .test_assets_store import dead_pid

FIX = Path(__file__).parent / "fixtures" / "bench"
ROOT = Path(__file__).resolve().parents[1]


def big_tsv(path: Path, lines: int = 20_000) -> Path:
    words = "the quick brown fox jumps over a lazy dog and sleeps under warm trees".split()
    rows = (" ".join(words[(i + k) % len(words)] for k in range(12)) for i in range(lines))
    path.write_text("id\ttweet\tsubtask_a\n" + "".join(f"{i}\t{r}\tOFF\n"
                                                         for i, r in enumerate(rows)))
    return path


@pytest.mark.parametrize("processes", ["1", "2"])
def test_ctrl_c_during_bench_generate_is_one_line_130_and_leaves_no_temporaries(tmp_path,
                                                                               processes):
    source, out, log = big_tsv(tmp_path / "big.tsv"), tmp_path / "sets", tmp_path / "stderr"
    levels = ",".join(f"{p / 20:g}" for p in range(1, 21))
    with open(log, "wb") as err:  # a file, not a pipe: nothing can block on a full pipe
        proc = subprocess.Popen(
            [sys.executable, "-m", "zeroe_assets.cli", "bench", "generate", "--task", "tc",
             "--input", f"test={source}", "--perturbers", "intrude,truncate", "--levels", levels,
             "--out", str(out), "-j", processes],
            stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        deadline = time.monotonic() + 60
        while "[1/" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole process group
        assert proc.wait(60) == 130
    lines = log.read_text().splitlines()
    assert lines[-1] == "zeroe bench generate: interrupted"
    assert lines[0].startswith("40 outputs") and all(line.startswith("[") for line in lines[1:-1])
    assert len(lines) < 42  # interrupted before the end
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


def test_bench_generate_removes_stale_temporaries_but_not_a_live_writers(tmp_path):
    from zeroe_assets.assets import temp_prefix

    out = tmp_path / "sets"
    out.mkdir()
    stale = out / f".test_truncate_high.tsv.tmp{dead_pid()}.k0_9abcd"  # a kill -9's leftover
    live = out / f"{temp_prefix('test_truncate_low.tsv')}a1b2c3d4"  # this process: at work
    unrelated = out / ".test_truncate_high.tsv.notes"
    for path in (stale, live, unrelated):
        path.write_text("partial")
    assert main(["bench", "generate", "--task", "tc", "--input", f"test={FIX / 'olid.tsv'}",
                 "--perturbers", "truncate", "--levels", "high", "--out", str(out)]) == 0
    assert not stale.exists() and live.exists() and unrelated.exists()
    assert (out / "test_truncate_high.tsv").exists()


@pytest.mark.parametrize("fmt, line", [
    ("conllu", "3\t\tsleep\tVERB\tVBZ\t_\t0\troot\t_\t_\n"),
    ("tags", "\tVERB\n"),
])
def test_an_empty_form_is_named_up_front(tmp_path, capsys, fmt, line):
    lines = (FIX / f"pos.{fmt}").read_text().splitlines(keepends=True)
    # in the last sentence: found before any job runs, not once the jobs reach it
    bad = (max(i for i, text in enumerate(lines) if text.startswith("3\t")) if fmt == "conllu"
           else len(lines) - 2)
    lines[bad] = line
    path = tmp_path / f"test.{fmt}"
    path.write_text("".join(lines))
    out = tmp_path / "sets"
    code = main(["bench", "generate", "--task", "pos", "--input", str(path), "--perturbers",
                 "truncate", "--levels", "0,high", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:{bad + 1}:" in err and "empty form" in err
    assert "sentence at line" in err and err.count("\n") == 1
    assert not out.exists()  # no job ran


def test_list_verifies_checksums(empty_artifacts, capsys):
    write_component("visual", {"glyphs.npy": b"good bytes"}, {}, root=empty_artifacts)
    (empty_artifacts / "visual" / "glyphs.npy").write_bytes(b"evil bytes")  # same size
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("visual"))
    assert " yes " not in row and "no (" in row
    assert "glyphs.npy does not match its sha256" in out
    assert main(["list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert not rows["visual"]["available"] and "sha256" in rows["visual"]["problem"]
    assert rows["truncate"]["available"] and rows["truncate"]["problem"] == ""


def test_rand_names_what_it_leaves_out_and_strict_makes_it_an_error(empty_artifacts):
    with pytest.warns(UserWarning) as caught:
        get_perturbation("rand")
    said = [str(w.message) for w in caught]
    assert len(said) == 2 and all(s.startswith("rand leaves out ") for s in said)
    assert "phonetic" in said[0] and "visual" in said[1] and "no artifacts at" in said[0]
    with pytest.raises(ArtifactError, match="rand needs phonetic"):
        get_perturbation("rand", strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        get_perturbation("truncate", strict=True)  # nothing to leave out: no warning


def test_perturb_rand_warns_in_one_line_and_strict_exits_1(empty_artifacts, monkeypatch, capfd):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello world\n")))
    assert main(["perturb", "-p", "rand"]) == 0
    captured = capfd.readouterr()
    assert captured.out.count("\n") == 1
    err = captured.err.splitlines()
    assert len(err) == 2 and all(e.startswith("zeroe: warning: rand leaves out ") for e in err)
    assert main(["perturb", "-p", "rand", "--strict"]) == 1
    assert capfd.readouterr().err.startswith("zeroe perturb: error: rand needs phonetic")


def test_perturbers_all_names_what_it_leaves_out_and_strict_exits_1(empty_artifacts, tmp_path,
                                                                   capsys):
    with pytest.warns(UserWarning) as caught:
        names = gen.resolve_perturbers("tc", "all")
    assert [str(w.message)[:35] for w in caught] == ["--perturbers all leaves out phoneti",
                                                     "--perturbers all leaves out visual:"]
    assert "visual" not in names and "truncate" in names
    with pytest.raises(ArtifactError, match="--perturbers all needs phonetic"):
        gen.resolve_perturbers("tc", "all", strict=True)
    args = ["bench", "generate", "--task", "tc", "--input", f"test={FIX / 'olid.tsv'}",
            "--levels", "0", "--out", str(tmp_path / "sets")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "zeroe: warning: --perturbers all leaves out phonetic" in err
    assert "zeroe: warning: --perturbers all leaves out visual" in err
    assert main(args + ["--strict"]) == 1
    assert "zeroe bench generate: error: --perturbers all needs" in capsys.readouterr().err
    assert not (tmp_path / "sets" / "test_visual_0.tsv").exists()


@pytest.mark.parametrize("command", ["perturb", "bench generate"])
def test_processes_are_capped_at_the_cores_with_a_note(command, tmp_path, monkeypatch, capfd):
    from zeroe_assets import parallel
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    seen = []
    if command == "perturb":
        real = parallel.stream
        monkeypatch.setattr(parallel, "stream", lambda *a: seen.append(a[3]) or real(*a))
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello world\n")))
        args = ["perturb", "-p", "truncate", "-j", "1000"]
    else:
        real = gen.run
        monkeypatch.setattr(gen, "run", lambda jobs, n: seen.append(n) or real(jobs, n))
        args = ["bench", "generate", "--task", "tc", "--input", f"test={FIX / 'olid.tsv'}",
                "--perturbers", "truncate", "--levels", "high", "--out", str(tmp_path), "-j", "1000"]
    assert main(args) == 0
    err = capfd.readouterr().err
    assert f"zeroe {command}: note: -j 1000 capped at {cores}, the CPU cores available" in err
    assert seen == [cores]


def _actions(parser: argparse.ArgumentParser, path: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        else:
            yield path, action


def test_every_bench_option_has_help():
    bench = [(path, a) for path, a in _actions(build_parser(), "zeroe") if
             path.startswith("zeroe bench ")]
    assert {path for path, _ in bench} == {f"zeroe bench {s}" for s in
                                          ("generate", "train-victim", "evaluate", "heatmap",
                                           "constraints", "readability")}
    assert [f"{path} {a.option_strings or a.dest}" for path, a in bench if not a.help] == []


def test_g2p_answers_the_words_it_can_and_names_the_others(monkeypatch, capsys):
    pytest.importorskip("torch")
    code = main(["g2p", "night", "naïve", "day", "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert [line.split('"input": ')[1][:7] for line in captured.out.splitlines()] == \
        ['"night"', '"day", ']
    assert captured.err == "zeroe g2p: 'naïve' not answered: unknown symbol(s) ï\n"
    assert main(["g2p", "night"]) == 0


def test_an_engine_whose_package_is_missing_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as where it is not installed
    path = tmp_path / "in.txt"
    path.write_text("the dog\n", encoding="utf-8")
    assert main(["perturb", "-p", "intrude", "--engine", "ray", str(path)]) == 2
    err = capsys.readouterr().err
    assert "needs Ray" in err and "pip install" in err and "Traceback" not in err
