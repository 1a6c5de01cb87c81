"""issue 37: a folder another run writes is refused, split names cannot point outside --out, tc
labels are read or refused (never a silent NOT), failures are one line with their exit status,
``--jsonl`` keeps every byte it does not attack, and the minor ones (seeds, shield(None), token
lists and segment, workers of a killed parent)."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zeroe_assets.cli import main
from zeroe_assets.rng import base_seed
from zeroe_assets.tasks import get_task

from .conftest import ROOT
from .test_runs import held_by_another_process

FIX = Path(__file__).parent / "fixtures" / "bench"
OLID = (FIX / "olid.tsv").read_text(encoding="utf-8")


def run(args, capsys, monkeypatch=None, stdin: bytes = b""):
    """``main(args)`` with ``stdin``: (status, stdout, stderr)."""
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(args)
    return (code, *capsys.readouterr())


def one_line(err: str) -> str:
    """The one line of ``err`` (asserted so): no traceback, no second line."""
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err.strip()


def generate(folder, *inputs):
    """``zeroe bench generate`` of ``inputs`` into ``folder``/sets (truncate, high)."""
    return ["bench", "generate", "--task", "tc", "--input", *inputs, "--perturbers", "truncate",
            "--levels", "high", "--out", str(folder / "sets")]


# -- 1. run folders are locked ---------------------------------------------------------------

def test_bench_generate_on_a_folder_another_process_writes_exits_75(tmp_path, capsys):
    out = tmp_path / "sets"
    with held_by_another_process(out) as pid:
        code, _, err = run(generate(tmp_path, f"test={FIX / 'olid.tsv'}"), capsys)
    assert code == 75 and "Traceback" not in err
    assert err.splitlines()[-1] == (f"zeroe bench generate: error: {out} is in use by process "
                                    f"{pid} (zeroe toy): wait for it to end, or choose another "
                                    "--out")  # after the plan's line
    assert sorted(p.name for p in out.iterdir()) == []  # nothing written, the lock file gone
    assert run(generate(tmp_path, f"test={FIX / 'olid.tsv'}"), capsys)[0] == 0  # free again


# -- 2. split names are names ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../escaped", "/abs", "a/b", "a\\b", "..", ".", "",
                                  "tab\there", "bell\x07", "line\nbreak"])
def test_a_split_name_that_is_no_plain_name_is_refused(name, tmp_path, capsys):
    work = tmp_path / "work"
    work.mkdir()
    code, _, err = run(generate(work, f"{name}={FIX / 'olid.tsv'}"), capsys)
    assert code == 2 and "is not a plain name" in one_line(err) and repr(name) in err
    assert not any(tmp_path.rglob("*.tsv*")) and not (work / "sets").exists()  # nothing at all


def test_split_names_of_the_file_stem_and_plain_names_still_work(tmp_path, capsys):
    code, _, err = run(generate(tmp_path, str(FIX / "olid.tsv"),
                                f"my.split-2={FIX / 'olid.tsv'}"), capsys)
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "sets").glob("*.tsv")) == [
        "my.split-2_truncate_high.tsv", "olid_truncate_high.tsv"]


# -- 4. tc gold labels -----------------------------------------------------------------------

@pytest.mark.parametrize("label, message", [
    ("MAYBE", "subtask_a is 'MAYBE', not an OLID label: OFF or NOT"),
    ("", "subtask_a is '', not an OLID label"),
    ("off", "subtask_a is 'off', not an OLID label: OFF or NOT (upper case"),
])
def test_an_unknown_olid_label_names_file_and_line(label, message, tmp_path, capsys):
    lines = OLID.splitlines(keepends=True)
    lines[3] = lines[3].replace("\tOFF\t", f"\t{label}\t")
    data = tmp_path / "olid.tsv"
    data.write_text("\ufeff" + "".join(lines), encoding="utf-8")  # a BOM shifts no line
    code, _, err = run(["bench", "train-victim", "--task", "tc", "--victim", "tc-tfidf",
                        "--train", str(data), "--out", str(tmp_path / "v.joblib")], capsys)
    assert code == 2 and f"{data}: line 4: {message}" in one_line(err)
    assert not (tmp_path / "v.joblib").exists()


@pytest.mark.parametrize("victim", ["tc-tfidf", "tc-monotone"])
@pytest.mark.parametrize("command", ["bench train-victim", "defend"])
def test_training_data_of_one_label_is_refused_before_training(victim, command, tmp_path,
                                                               capsys):
    # tc-tfidf stopped in scikit-learn's words, tc-monotone learned to say NOT always
    data = tmp_path / "one.tsv"
    data.write_text("tweet\tsubtask_a\nyou are kind\tNOT\nhave a nice day\tNOT\n")
    out = tmp_path / "victim"
    code, _, err = run([*command.split(), "--task", "tc", "--victim", victim, "--train",
                        str(data), "--out", str(out)], capsys)
    assert code == 2 and one_line(err).endswith(
        f"{data}: the training examples have one label (0): a victim needs examples of at least "
        "two")
    assert not out.exists()


def test_olid_and_jigsaw_labels_are_read_as_the_datasets_write_them(tmp_path):
    tc = get_task("tc")
    ex = tc.examples(FIX / "olid.tsv", tc.format_for(FIX / "olid.tsv"))
    assert ex.gold == [1, 0, 1, 0]
    named = str(FIX / "olid.tsv")  # a path as a string, as Python users pass it
    assert tc.examples(named, tc.format_for(named)).gold == ex.gold
    jigsaw = tmp_path / "jigsaw.csv"
    jigsaw.write_text('id,comment_text,toxic,insult\n1,"fine, and\nkind",0,0.0\n'
                      '2,"stupid",1,1\n3,"who knows",0.5,0\n', encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        tc.examples(jigsaw, tc.format_for(jigsaw))
    assert str(refused.value) == (f"{jigsaw}: line 5: toxic is '0.5', not a label: tc labels "
                                  "are 0 or 1")  # line 5: the first record has two
    jigsaw.write_text('id,comment_text,toxic,insult\n1,"fine",0,0.0\n2,"stupid",1,1\n')
    assert tc.examples(jigsaw, tc.format_for(jigsaw)).gold == [[0, 0], [1, 1]]
    labelled = tmp_path / "labelled.tsv"
    labelled.write_text("text\tlabel\nfine\t0\nstupid\tyes\n")
    with pytest.raises(ValueError, match="labelled.tsv: line 3: label is 'yes', not a label"):
        tc.examples(labelled, tc.format_for(labelled))


def test_an_unknown_label_in_a_dataset_names_its_row(tmp_path):
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    data = tmp_path / "olid.parquet"
    pq.write_table(pa.table({"tweet": ["fine", "rude", "hm"], "subtask_a": ["NOT", "OFF", "Off"]}),
                   data)
    tc = get_task("tc")
    with pytest.raises(ValueError, match=r"olid.parquet: row 2: subtask_a is 'Off', not an OLID"):
        tc.examples(data, tc.format_for(data))


# -- 5. one line, never a traceback ----------------------------------------------------------

@pytest.mark.parametrize("content", [b"", bytes(range(233, 256)) * 40, None])
def test_a_victim_file_that_is_no_victim_is_named_in_one_line(content, tmp_path, capsys):
    model = tmp_path / "tc.joblib"
    if content is None:  # a real victim, cut in half
        assert run(["bench", "train-victim", "--task", "tc", "--victim", "tc-tfidf", "--train",
                    str(FIX / "olid.tsv"), "--out", str(model)], capsys)[0] == 0
        content = model.read_bytes()[:len(model.read_bytes()) // 2]
    model.write_bytes(content)
    code, _, err = run(["search", "--task", "tc", "--victim", "tc-tfidf", "--victim-path",
                        str(model), "--input", str(FIX / "olid.tsv"), "--recipe", "zeroe-random",
                        "--out", str(tmp_path / "run")], capsys)
    assert code == 2 and len(err) < len(str(model)) + 400  # not the file's bytes quoted whole
    assert f"{model} is not a victim saved by `zeroe bench train-victim`" in one_line(err)
    assert not (tmp_path / "run").exists()


def test_a_model_file_is_written_whole_or_not_at_all(tmp_path, capsys, monkeypatch):
    import joblib

    import zeroe_assets.victims.sklearn as S

    model = tmp_path / "tc.joblib"
    train = ["bench", "train-victim", "--task", "tc", "--victim", "tc-tfidf", "--train",
             str(FIX / "olid.tsv")]
    assert run([*train, "--out", str(model)], capsys)[0] == 0
    before = model.read_bytes()

    def disk_full(obj, target, *args, **kwargs):  # half a pickle, then the failure
        if hasattr(target, "write"):
            target.write(b"half")
        else:
            Path(target).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(joblib, "dump", disk_full)
    assert run([*train, "--out", str(model)], capsys)[0] == 2
    assert model.read_bytes() == before  # the old model, not half a new one
    monkeypatch.setattr(S, "train_victim", lambda *a, **k: pytest.fail("trained first"))
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    for out, said in ((tmp_path, "is a folder"), (blocked / "tc.joblib", "Not a directory")):
        code, _, err = run([*train, "--out", str(out)], capsys)
        assert code == 2 and said in one_line(err) and str(out) in one_line(err)


class Raising:
    """A tc victim whose model server has fallen over."""

    task = "tc"

    def predict(self, batch):
        raise ConnectionError("model server at localhost:8080 refused the connection")


raising = Raising()


class Constant:
    """A tc victim that calls every text offensive."""

    task = "tc"

    def predict(self, batch):
        return [0.9] * len(batch)


constant = Constant()


def test_progress_lines_go_to_stderr_as_it_is_when_the_command_runs(tmp_path, monkeypatch):
    """Not the stream of whoever first imported the module (a closed test capture, a notebook's
    old cell): `bench generate` and `bench evaluate` print to the current sys.stderr."""
    for k in range(2):
        monkeypatch.setattr(sys, "stderr", io.StringIO())
        assert main(generate(tmp_path / str(k), f"test={FIX / 'olid.tsv'}")) == 0
        assert main(["bench", "evaluate", "--task", "tc", "--victim",
                     "tests.test_cli_safety:constant", "--sets", str(tmp_path / str(k) / "sets"),
                     "--out", str(tmp_path / str(k) / "results")]) == 0
        err = sys.stderr.getvalue()
        assert "test_truncate_high.tsv: " in err and "s* = " in err, err


def test_bench_evaluate_with_a_victim_that_raises_exits_3_naming_it(tmp_path, capsys):
    assert run(generate(tmp_path, f"test={FIX / 'olid.tsv'}"), capsys)[0] == 0
    code, _, err = run(["bench", "evaluate", "--task", "tc", "--victim",
                        "tests.test_cli_safety:raising", "--sets", str(tmp_path / "sets"),
                        "--out", str(tmp_path / "results")], capsys)
    assert code == 3 and err.splitlines()[-1] == (
        "zeroe bench evaluate: error: victim tests.test_cli_safety:raising failed on a batch of "
        "4: ConnectionError: model server at localhost:8080 refused the connection")
    assert "Traceback" not in err and not (tmp_path / "results").exists()


@pytest.mark.parametrize("command", ["perturb", "shield"])
def test_deeply_nested_json_names_its_line(command, monkeypatch, capsys):
    deep = '{"text": "x", "n": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    args = [command, "--jsonl"] + (["-p", "intrude", "-l", "0"] if command == "perturb" else [])
    code, out, err = run(args, capsys, monkeypatch, ('{"text": "fine"}\n' + deep).encode())
    assert code == 2 and out == '{"text": "fine"}\n'  # the line before it, written
    assert one_line(err) == f"zeroe {command}: error: line 2: JSON nested too deeply to read"


def test_invalid_json_names_line_and_column(monkeypatch, capsys):
    code, _, err = run(["perturb", "-p", "intrude", "--jsonl"], capsys, monkeypatch,
                       b'{"text": "a"}\n{"text": "b",}\n')
    assert code == 2 and one_line(err) == ("zeroe perturb: error: line 2: invalid JSON at column "
                                           "14 (Expecting property name enclosed in double "
                                           "quotes)")


def test_a_jsonl_file_whose_first_line_is_no_json_is_named_with_its_line(tmp_path, capsys):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"text": "a", "label": "x",}\n{"text": "b", "label": "y"}\n')
    code, _, err = run(["bench", "generate", "--task", "generic", "--input", str(data),
                        "--perturbers", "truncate", "--out", str(tmp_path / "sets")], capsys)
    assert code == 2 and one_line(err) == (f"zeroe bench generate: error: {data}:1: invalid JSON "
                                           "at column 28 (Expecting property name enclosed in "
                                           "double quotes)")  # not "no text column in []"


# -- 6. --jsonl keeps what it does not attack ------------------------------------------------

LINES = ('{"id": 1e999999, "p": 1.00000000000000000000001, "text": "The quick brown fox jumps '
         'over the lazy dog", "n": -0.0, "caf\\u00e9": "caf\\u00e9",  "deep": {"a": [1,2]}}\r\n'
         '  {"text":"T h e dog jmups oevr it" ,"x":NaN, "big": 123456789012345678901234567890, '
         '"x": 2}\n')  # a repeated key: JSON readers keep the last, the line keeps both


@pytest.mark.parametrize("args", [["perturb", "-p", "intrude", "-l", "high"],
                                  ["shield", "--perturbers", "intrude"]])
def test_jsonl_writes_untouched_fields_byte_for_byte(args, monkeypatch, capsys):
    code, out, _ = run([*args, "--jsonl"], capsys, monkeypatch, LINES.encode())
    assert code == 0 and out != LINES  # some text field attacked (or restored)
    for line, written in zip(LINES.splitlines(keepends=True), out.splitlines(keepends=True)):
        old, new = json.loads(line)["text"], json.loads(written)["text"]
        assert written == line.replace(json.dumps(old), json.dumps(new, ensure_ascii=False), 1)


@pytest.mark.parametrize("args, words", [
    (["perturb", "-p", "intrude", "-l", "high"], "Such fun \\ud800 today"),
    (["shield", "--perturbers", "intrude"], "S-u-c-h f-u-n \\ud800 t-o-d-a-y")])
def test_jsonl_writes_a_lone_surrogate_of_a_changed_value_as_its_escape(args, words, monkeypatch,
                                                                        capsys):
    # "\ud800" is valid JSON and reads as a lone surrogate, which no UTF-8 carries: written as
    # read, it stopped the run with "'utf-8' codec can't encode character '\ud800'"
    line = f'{{"text": "{words}"}}\n'
    code, out, err = run([*args, "--jsonl"], capsys, monkeypatch, line.encode())
    assert code == 0 and "error" not in err and out != line
    out.encode("utf-8")  # no lone surrogate in what is written
    assert "\ud800" in json.loads(out)["text"] and '\\ud800' in out


SEARCH = ["search", "--task", "tc", "--victim", "tc-tfidf", "--input", str(FIX / "olid.tsv"),
          "--recipe", "deepwordbug"]


@pytest.mark.parametrize("args, option", [
    (["perturb", "-p", "intrude", "--jsonl", "--fields", ""], "--fields"),
    (["shield", "--jsonl", "--fields", ","], "--fields"),
    (SEARCH + ["--perturbers", ""], "--perturbers"),  # was the recipe's own, exit 0
    (SEARCH + ["--fields", ""], "--fields"),
    (SEARCH + ["--shield-perturbers", ","], "--shield-perturbers"),
    (["certify", "--task", "tc", "--victim", "defended:d", "--input", str(FIX / "olid.tsv"),
      "--surface", ""], "--surface"),  # was the whole surface, exit 0
])
def test_a_list_option_that_names_nothing_is_refused_not_read_as_its_default(
        args, option, tmp_path, monkeypatch, capsys):
    out = tmp_path / "o"
    if args[0] == "search":
        args = [*args, "--out", str(out)]
    code, written, err = run(args, capsys, monkeypatch,
                             b'{"text": "A man sleeps", "premise": "x"}\n')
    assert code == 2 and written == "" and not out.exists()
    assert one_line(err).endswith(f"error: {option} is empty (none given): name at least one, "
                                  "or leave it out for the default")


# -- 12. the minor ones ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", ["-1", str(2 ** 64)])
def test_out_of_range_seeds_are_refused(seed, monkeypatch, capsys):
    code, out, err = run(["perturb", "-p", "intrude", "--seed", seed], capsys, monkeypatch,
                         b"hello world\n")
    assert code == 2 and out == ""
    assert one_line(err) == (f"zeroe perturb: error: seed must be an integer between 0 and "
                             f"{2 ** 64 - 1}, got {int(seed)}")
    with pytest.raises(ValueError, match="seed must be an integer between 0 and"):
        base_seed(int(seed))
    assert base_seed(2 ** 64 - 1) == 2 ** 64 - 1


def test_the_shield_says_what_it_takes():
    from zeroe_assets.shield import get_shield

    with pytest.raises(ValueError, match="^the shield restores a str or a sequence of str, got "
                                         "NoneType$"):
        get_shield(["intrude"])(None)


def test_segment_on_a_token_list_column_is_refused():
    datasets = pytest.importorskip("datasets")
    from zeroe_assets.integrations.hf_datasets import perturb_dataset

    ds = datasets.Dataset.from_dict({"tokens": [["The", "quick", "brown", "fox"]]})
    with pytest.raises(ValueError, match="^segment changes the number of tokens, so it cannot "
                                         "perturb the list column.s. tokens"):
        perturb_dataset(ds, "segment", ["tokens"], level=1.0, seed=0)
    chain = perturb_dataset(ds, "intrude+truncate", ["tokens"], level=1.0, seed=0)
    assert len(chain["tokens"][0]) == 4  # token-preserving chains still run


def _state(pid: int) -> str:
    """A process's state letter ("" when it is gone; "Z": ended, not yet reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal")
def test_workers_of_a_killed_parent_end_quietly(tmp_path):
    source, log = tmp_path / "big.txt", tmp_path / "stderr"
    source.write_text("the quick brown fox jumps over the lazy dog\n" * 400_000)
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "zeroe_assets.cli", "perturb", "-p",
                                 "intrude", "-j", "2", str(source)], stdout=subprocess.PIPE,
                                stderr=err, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        proc.stdout.read(1 << 16)  # the workers are at work
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        workers = [int(pid) for pid in children]
        assert len(workers) == 2
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        deadline = time.monotonic() + 120
        while any(_state(w) not in ("", "Z") for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
    assert all(_state(w) in ("", "Z") for w in workers)
    assert log.read_text() == ""  # no BrokenPipeError traceback from the workers
