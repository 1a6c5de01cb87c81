import io
import json
import subprocess
import sys

import pytest

from zeroe_assets.cli import main


def run_cli(args, stdin: bytes = b"", monkeypatch=None, capsys=None):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_perturb_keeps_line_count_and_endings(monkeypatch, capsys):
    data = "Hello world, how are you?\r\n\nsecond line here\nlast line without newline"
    code, out, _ = run_cli(["perturb", "-p", "intrude", "-l", "high", "--seed", "1"],
                           data.encode(), monkeypatch, capsys)
    assert code == 0
    assert out.count("\n") == data.count("\n") and out.count("\r\n") == 1
    assert not out.endswith("\n") and out != data


def test_perturb_p_zero_round_trip(monkeypatch, capsys):
    data = "Ünïcödé 😀 text\n\tindented\r\n  \n"
    code, out, _ = run_cli(["perturb", "-p", "rand", "-l", "0"], data.encode(), monkeypatch, capsys)
    assert code == 0 and out == data


def test_perturb_file_and_processes_identical(tmp_path, monkeypatch, capsys):
    path = tmp_path / "in.txt"
    path.write_text("".join(f"line number {i} with some words\n" for i in range(500)))
    _, one, _ = run_cli(["perturb", "-p", "keyboard-typo", str(path)], b"", monkeypatch, capsys)
    _, two, _ = run_cli(["perturb", "-p", "keyboard-typo", "-j", "2", str(path)], b"",
                        monkeypatch, capsys)
    assert one == two and one.count("\n") == 500


def test_perturb_jsonl(monkeypatch, capsys):
    data = '{"text": "hello there friend", "id": 1}\n{"text": "second one", "label": "x"}\n'
    code, out, _ = run_cli(["perturb", "-p", "truncate", "-l", "1", "--jsonl"], data.encode(),
                           monkeypatch, capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and rows == [{"text": "hell ther frien", "id": 1},
                                  {"text": "secon on", "label": "x"}]
    data = '{"premise": "cats sleep", "hypothesis": "dogs bark"}\n'
    code, out, _ = run_cli(["perturb", "-p", "truncate", "-l", "1", "--jsonl", "--fields",
                            "premise,hypothesis"], data.encode(), monkeypatch, capsys)
    assert json.loads(out) == {"premise": "cat slee", "hypothesis": "dog bar"}


def test_invalid_utf8_names_the_line(monkeypatch, capsys):
    data = b"fine line\nbad \xff line\n"
    code, _, err = run_cli(["perturb", "-p", "truncate"], data, monkeypatch, capsys)
    assert code == 2 and "line 2" in err and "--errors replace" in err
    code, out, _ = run_cli(["perturb", "-p", "truncate", "-l", "0", "--errors", "replace"], data,
                           monkeypatch, capsys)
    assert code == 0 and out == "fine line\nbad \ufffd line\n"


@pytest.mark.parametrize("args, message", [
    (["perturb", "-p", "nope"], "choose from"),
    (["perturb", "-p", "truncate", "-l", "7"], "[0, 1]"),
    (["perturb", "-p", "truncate", "-o", "novalue"], "KEY=VALUE"),
    (["perturb", "-p", "truncate", "--fields", "x"], "--jsonl"),
    (["perturb", "-p", "inner-shuffle", "-o", "min_length=four"], "min_length must be int"),
    (["perturb", "-p", "inner-shuffle", "-o", "min_length=3.5"], "min_length must be int"),
    (["demo", "-o", "nope=1"], "nope not accepted"),
    (["perturb", "-p", "intrude", "-o", "phi=0.1"], "use --phi"),
])
def test_usage_errors_exit_2(args, message, monkeypatch, capsys):
    code, _, err = run_cli(args, b"text\n", monkeypatch, capsys)
    assert code == 2 and message in err


def test_options_are_read_as_their_parameters_types(monkeypatch, capsys):
    # text where the parameter takes text: "5" is the symbol to insert, not the number 5
    code, out, _ = run_cli(["perturb", "-p", "intrude", "-l", "1", "-o", "symbols=5"],
                           b"wonderful\n", monkeypatch, capsys)
    assert code == 0 and set(out) - set("wonderful\n") == {"5"}
    code, out, _ = run_cli(["perturb", "-p", "inner-shuffle", "-l", "1", "-o", "min_length=12"],
                           b"wonderful\n", monkeypatch, capsys)
    assert code == 0 and out == "wonderful\n"  # 9 letters: below min_length, so untouched
    # the demo hands each attacker the options it takes (r to mischief only)
    code, out, _ = run_cli(["demo", "-o", "r=0.3", "-o", "symbols=#"], b"", monkeypatch, capsys)
    assert code == 0 and "mischief" in out and "#" in out


def test_jsonl_last_line_without_newline_stays_so(monkeypatch, capsys):
    code, out, _ = run_cli(["perturb", "-p", "truncate", "-l", "1", "--jsonl"],
                           b'{"text": "hello wonderful world"}', monkeypatch, capsys)
    assert code == 0 and json.loads(out)["text"] == "hell wonderfu worl" and not out.endswith("\n")


def test_jsonl_errors(monkeypatch, capsys):
    code, _, err = run_cli(["perturb", "-p", "truncate", "--jsonl"], b'{"id": 1}\n', monkeypatch,
                           capsys)
    assert code == 2 and "line 1" in err and "text" in err


def test_list_and_demo(monkeypatch, capsys, empty_artifacts):
    code, out, _ = run_cli(["list", "--json"], b"", monkeypatch, capsys)
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0 and rows["truncate"]["available"] and not rows["visual"]["available"]
    assert rows["inner-shuffle"]["aliases"] == ["inner-swap"]
    code, out, _ = run_cli(["list"], b"", monkeypatch, capsys)
    assert code == 0 and "visual: no artifacts at" in out and "set ZEROE_ARTIFACTS" in out
    code, out, _ = run_cli(["demo", "--seed", "3"], b"", monkeypatch, capsys)
    assert code == 0 and "inner-shuffle" in out and "not available here" in out


def test_g2p_without_torch_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "zeroe_assets.phonetic.seq2seq", None)  # what a torch-less install sees
    code, _, err = run_cli(["g2p", "night"], b"", monkeypatch, capsys)
    assert code == 2 and "need torch" in err


def test_console_script_usage_error_exit_code():
    proc = subprocess.run([sys.executable, "-m", "zeroe_assets.cli", "perturb"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "--perturbers" in proc.stderr


@pytest.mark.parametrize("good", [3, 700])
def test_every_line_before_invalid_utf8_is_written_under_processes(tmp_path, monkeypatch, capsys,
                                                                   good):
    path = tmp_path / "in.txt"
    path.write_bytes(b"".join(b"line %d with some words\n" % i for i in range(good)) + b"\xff\n")
    outs = []
    for j in ("1", "2", "3"):
        code, out, err = run_cli(["perturb", "-p", "truncate", "-j", j, str(path)], b"",
                                 monkeypatch, capsys)
        assert code == 2 and f"line {good + 1} is not valid UTF-8" in err
        outs.append(out)
    assert outs[0].count("\n") == good and outs[1] == outs[0] and outs[2] == outs[0]


def test_a_bad_sample_in_a_stream_keeps_the_output_before_it():
    import zeroe_assets as z

    attack = z.get_perturbation("truncate", level=1.0)
    for processes in (1, 2):
        done = []
        with pytest.raises(ValueError, match="expected str samples"):
            for out in attack.stream(["words here"] * 100 + [None], seed=1, processes=processes,
                                     chunksize=64):
                done.append(out)
        assert done == ["word her"] * 100, processes


@pytest.mark.parametrize("processes", ["1", "2"])
def test_ctrl_c_is_one_line_and_exit_130(processes):
    import signal
    import threading

    proc = subprocess.Popen([sys.executable, "-m", "zeroe_assets.cli", "perturb", "-p", "truncate",
                             "-j", processes], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    started = threading.Event()

    def feed():  # more than a window of work, and stdin stays open: the run waits for more
        try:
            proc.stdin.write(b"some words here\n" * 20_000)
            proc.stdin.flush()
        except BrokenPipeError:
            pass

    def drain():
        while proc.stdout.read(4096):
            started.set()

    threads = [threading.Thread(target=f, daemon=True) for f in (feed, drain)]
    for t in threads:
        t.start()
    assert started.wait(60)  # it is running
    proc.send_signal(signal.SIGINT)
    assert proc.wait(60) == 130
    assert proc.stderr.read().decode().strip() == "zeroe perturb: interrupted"


def test_closed_stdout_and_version():
    closed = subprocess.run([sys.executable, "-c", "import os, sys; os.close(1); sys.stdout = None;"
                             "from zeroe_assets.cli import main; sys.exit(main(['list']))"],
                            capture_output=True, text=True)
    assert closed.returncode == 2 and closed.stderr.strip() == \
        "zeroe list: error: standard output is closed"
    version = subprocess.run([sys.executable, "-m", "zeroe_assets.cli", "--version"],
                             capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("zeroe ")


@pytest.mark.parametrize("old, new", [
    (["perturb", "-a", "truncate", "-l", "1"], ["perturb", "-p", "truncate", "-l", "1"]),
    (["perturb", "--attacker", "truncate", "-l", "1", "--jsonl", "--field", "a", "--field", "b"],
     ["perturb", "-p", "truncate", "-l", "1", "--jsonl", "--fields", "a,b"]),
    (["shield", "--mechanisms", "intrude"], ["shield", "--perturbers", "intrude"]),
])
def test_old_option_spellings_still_work_with_a_note(old, new, monkeypatch, capsys):
    data = b'{"a": "one two three", "b": "four five six"}\n' if "--jsonl" in new else \
        b"one two three four\n"
    code, expected, quiet = run_cli(new, data, monkeypatch, capsys)
    assert code == 0 and "note" not in quiet
    code, out, err = run_cli(old, data, monkeypatch, capsys)
    assert code == 0 and out == expected
    assert "is now" in err and "goes in 0.3" in err


def test_the_old_command_name_attack_runs_search_with_a_note(capsys):
    with pytest.raises(SystemExit):  # --help exits 0 after printing the search's help
        main(["attack", "--help"])
    assert "zeroe search" in capsys.readouterr().out
    code = main(["attack", "--task", "tc", "--victim", "x", "--recipe", "deepwordbug",
                 "--out", "o"])
    err = capsys.readouterr().err
    assert "`zeroe attack` is now `zeroe search`" in err
    assert code == 2 and "the following arguments are required: --input" in err


def test_the_version_is_the_installed_distributions(capsys):
    import re
    from pathlib import Path

    import zeroe_assets

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    declared = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    assert zeroe_assets.__version__ == declared, \
        "reinstall (`pip install -e .`): the installed metadata is older than pyproject.toml"
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"zeroe {declared}\n"


def test_lines_read_a_batch_at_a_time_give_the_library_s_output(tmp_path, monkeypatch, capsys):
    """`zeroe perturb` with one process reads 1,024 lines at a time and decodes them at once
    where it can: the output is the library's, line for line, whatever the endings, with invalid
    UTF-8 replaced or named by its line after the lines before it."""
    import zeroe_assets as z

    texts = [f"line number {i} with some wörds, don't they?" if i % 7 else f"plain {i} here"
             for i in range(2500)]
    expected = z.perturb(texts, "keyboard-typo", level="mid", seed=4)
    path = tmp_path / "in.txt"
    path.write_bytes("".join(t + "\n" for t in texts).encode())  # the batch path throughout
    code, out, _ = run_cli(["perturb", "-p", "keyboard-typo", "--seed", "4", str(path)], b"",
                           monkeypatch, capsys)
    assert code == 0 and out == "".join(t + "\n" for t in expected)
    endings = ["\r\n" if i % 500 == 3 else "\n" for i in range(2500)]
    endings[-1] = ""  # batches with a CRLF or without a final newline go line by line
    path.write_bytes("".join(t + e for t, e in zip(texts, endings)).encode())
    code, out, _ = run_cli(["perturb", "-p", "keyboard-typo", "--seed", "4", str(path)], b"",
                           monkeypatch, capsys)
    assert code == 0 and out == "".join(t + e for t, e in zip(expected, endings))
    raw = [t.encode() for t in texts]
    raw[1500] = b"bad \xff byte"
    path.write_bytes(b"".join(r + b"\n" for r in raw))
    code, out, err = run_cli(["perturb", "-p", "keyboard-typo", "--seed", "4", str(path)], b"",
                             monkeypatch, capsys)
    assert code == 2 and "line 1501 is not valid UTF-8" in err
    assert out == "".join(t + "\n" for t in expected[:1500])
    code, out, _ = run_cli(["perturb", "-p", "keyboard-typo", "--seed", "4", "--errors",
                            "replace", str(path)], b"", monkeypatch, capsys)
    replaced = z.perturb(texts[:1500] + ["bad \ufffd byte"] + texts[1501:], "keyboard-typo",
                         level="mid", seed=4)
    assert code == 0 and out == "".join(t + "\n" for t in replaced)
