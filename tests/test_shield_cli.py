"""``zeroe shield``: attacked lines restored, clean ones kept, one line out for every line in
whatever it holds (empty, 1 MB, astral, combining, RTL, other languages, CRLF, invalid UTF-8),
``-j`` with the same output, JSONL fields, one-line errors, and missing or corrupt ranker
artifacts; ``zeroe search --shield`` and ``zeroe bench evaluate --shield`` end to end. The
in-process runs share the module's shield (``get_shield()``'s cache)."""
from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest

import zeroe_assets as z
from zeroe_assets.cli import main
from zeroe_assets.shield import MECHANISMS, get_shield

from .attack_fixtures import needs_olid, olid  # noqa: F401  (olid: a fixture)
from .conftest import DATA, ROOT, needs_data

SNLI_TEST = DATA / "bench" / "snli" / "snli_test.tsv"
needs_snli = needs_data("bench/snli/snli_test.tsv")
SHIELD = [sys.executable, "-m", "zeroe_assets.cli", "shield"]


def run_cli(args, stdin: bytes, monkeypatch, capsys):
    from io import BytesIO, TextIOWrapper

    monkeypatch.setattr(sys, "stdin", TextIOWrapper(BytesIO(stdin)))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    """The first 40 distinct hypotheses of SNLI test (held-out clean English)."""
    found: list[str] = []
    with open(SNLI_TEST, encoding="utf-8") as f:
        next(f)
        for line in f:
            text = line.rstrip("\n").split("\t")[2]
            if text not in found:
                found.append(text)
            if len(found) == 40:
                return found
    return found


@needs_snli
@pytest.mark.parametrize("attacker", ["intrude", "visual"])
def test_attacked_lines_are_restored_and_clean_ones_kept(sentences, attacker, tmp_path,
                                                         monkeypatch, capsys):
    attacked = z.perturb(sentences, attacker, level="mid", seed=3)
    path = tmp_path / "in.txt"
    path.write_text("".join(f"{line}\n" for line in sentences + attacked), encoding="utf-8")
    code, out, err = run_cli(["shield", str(path)], b"", monkeypatch, capsys)
    assert code == 0
    lines = out.split("\n")
    assert lines[-1] == "" and len(lines) == 2 * len(sentences) + 1
    clean_out, attacked_out = lines[:len(sentences)], lines[len(sentences):-1]
    assert clean_out + attacked_out == get_shield()(sentences + attacked)  # what the API says
    kept = sum(a == b for a, b in zip(clean_out, sentences))
    restored = sum(a == b for a, b in zip(attacked_out, sentences))
    before = sum(a == b for a, b in zip(attacked, sentences))
    assert kept >= 0.9 * len(sentences), f"{len(sentences) - kept} clean lines changed"
    assert restored >= 0.5 * len(sentences) and restored >= before + 10, (before, restored)
    assert err.count("hand-set ranker") == (0 if get_shield().learned else 1)


HARD = ["", "   ", "\t", "😀 𝄞 astral 🇩🇪 👍🏽 text", "e\u0301cole cafe\u0301 and nai\u0308ve",
        "שלום עולם", "مرحبا بالعالم", "Der schnelle braune Fuchs springt über den faulen Hund",
        "速い茶色の狐が怠け者の犬を飛び越える", "Привет, мир, как дела?", "\u200b\u200d\ufeff",
        "see " + "x" * 1_000_000 + " here"]
UNTOUCHED = HARD[:3] + HARD[5:11]  # nothing to restore, or not English: left alone


def test_every_line_comes_out_with_its_ending(tmp_path, monkeypatch, capsys):
    endings = ["\n", "\r\n"] * (len(HARD) // 2) + ["\n"] * (len(HARD) % 2)
    data = "".join(line + end for line, end in zip(HARD, endings)) + "T h e last one, no ending"
    path = tmp_path / "hard.txt"
    path.write_bytes(data.encode("utf-8"))
    code, out, _ = run_cli(["shield", "--perturbers", "visual,intrude", str(path)], b"",
                           monkeypatch, capsys)
    assert code == 0
    lines = out.splitlines(keepends=True)
    assert len(lines) == len(HARD) + 1
    assert [line[len(line.rstrip("\r\n")):] for line in lines] == endings + [""]
    got = [line.rstrip("\r\n") for line in lines]
    assert got == get_shield(["visual", "intrude"])(HARD + ["T h e last one, no ending"])
    assert [g for g, h in zip(got, HARD) if h in UNTOUCHED] == UNTOUCHED
    assert len(got[HARD.index(HARD[-1])]) > 1_000_000 and got[-1] == "The last one, no ending"


def test_invalid_utf8_names_the_line_after_writing_the_ones_before(monkeypatch, capsys):
    data = b"T h e first\nbad \xff line\nnever read\n"
    code, out, err = run_cli(["shield", "--perturbers", "intrude"], data, monkeypatch, capsys)
    assert code == 2 and out == "The first\n"
    assert "line 2 is not valid UTF-8" in err and "--errors replace" in err
    code, out, _ = run_cli(["shield", "--perturbers", "intrude", "--errors", "replace"], data,
                           monkeypatch, capsys)
    assert code == 0 and out == "The first\nbad \ufffd line\nnever read\n"


@needs_snli
def test_processes_give_the_same_output(sentences, tmp_path, monkeypatch, capsys):
    lines = [z.perturb(s, "intrude|inner-shuffle|visual", level="mid", seed=i)
             for i, s in enumerate(sentences * 8)]  # 320 lines: more than one chunk per worker
    path = tmp_path / "in.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outs = [run_cli(["shield", "-j", j, str(path)], b"", monkeypatch, capsys)[1]
            for j in ("1", "2")]
    assert outs[0] == outs[1] and outs[0].count("\n") == len(lines) and outs[0] != path.read_text()


def test_jsonl_fields_are_restored_and_the_rest_kept(monkeypatch, capsys):
    data = ('{"premise": "T h e dog runs", "hypothesis": "a d-o-g is outside", "id": 7}\r\n'
            '{"premise": "unchanged", "hypothesis": "as written", "label": "x"}\n\n')
    code, out, _ = run_cli(["shield", "--perturbers", "intrude", "--jsonl", "--fields",
                            "premise,hypothesis"], data.encode(), monkeypatch, capsys)
    assert code == 0
    first, second, third = out.splitlines(keepends=True)
    assert json.loads(first) == {"premise": "The dog runs", "hypothesis": "a dog is outside",
                                 "id": 7} and first.endswith("\r\n")
    assert second + third == data.split("\r\n", 1)[1]  # unchanged records byte for byte


def test_a_hypothesis_is_read_against_its_premise_field(tmp_path, monkeypatch, capsys):
    """``--anchor``: as `ShieldedVictim` reads a pair (the premise restored first when it is one
    of the fields); the same lines with ``-j 2``; the rest of each line byte for byte."""
    pair = {"premise": "Two boys are eating food at the table.",
            "hypothesis": "Tow bys are etaing foo at the tabel."}
    lines = [json.dumps({**pair, "n": 7}, ensure_ascii=False)[:-1] + ', "x": 1e999999}',
             "", json.dumps({"premise": pair["hypothesis"], "hypothesis": pair["hypothesis"]})]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\r\n".join(lines) + "\n", encoding="utf-8")
    shield = get_shield()
    alone = run_cli(["shield", "--jsonl", "--fields", "hypothesis", str(path)], b"",
                    monkeypatch, capsys)[1]
    assert json.loads(alone.splitlines()[0])["hypothesis"] == shield.restore(pair["hypothesis"])
    outs = {j: run_cli(["shield", "--jsonl", "--fields", "hypothesis,premise", "--anchor",
                        "premise", "-j", j, str(path)], b"", monkeypatch, capsys)
            for j in ("1", "2")}
    code, out, _ = outs["1"]
    assert code == 0 and outs["2"] == outs["1"]
    first, blank, third = out.splitlines(keepends=True)
    restored = shield.restore(pair["hypothesis"], shield.restore(pair["premise"]))
    assert restored == pair["premise"] != shield.restore(pair["hypothesis"])
    assert first == lines[0].replace(pair["hypothesis"], restored) + "\r\n"
    premise = shield.restore(pair["hypothesis"])  # the third line's premise, restored first
    assert blank == "\r\n" and json.loads(third) == {
        "premise": premise, "hypothesis": shield.restore(pair["hypothesis"], premise)}
    # a premise left as written (not a field) is a premise meant as written: its words stay
    _, out, _ = run_cli(["shield", "--jsonl", "--fields", "hypothesis", "--anchor", "premise",
                         str(path)], b"", monkeypatch, capsys)
    assert out.splitlines()[2] == lines[2]


@pytest.mark.parametrize("args, data, message", [
    (["--anchor", "premise"], b"text\n", "--anchor needs --jsonl"),
    (["--jsonl", "--fields", "hypothesis", "--anchor", "premise"],
     b'{"hypothesis": "a b"}\n', "line 1: no string field 'premise'"),
    (["--jsonl", "--fields", "hypothesis", "--anchor", "premise"],
     b'{"premise": "a", "hypothesis": "b"}\n{"premise": 3, "hypothesis": "b"}\n',
     "line 2: no string field 'premise'"),
])
def test_anchor_errors_are_one_line_after_the_lines_before(args, data, message, monkeypatch,
                                                          capsys):
    code, out, err = run_cli(["shield", *args], data, monkeypatch, capsys)
    assert code == 2 and message in err and err.count("\n") == 1
    assert out == (data.split(b"\n")[0].decode() + "\n" if b"\n{" in data else "")


def test_mechanisms_are_the_ones_asked_for(monkeypatch, capsys):
    line = "T h e dog jmups oevr it\n"
    _, out, _ = run_cli(["shield", "--perturbers", "intrude"], line.encode(), monkeypatch, capsys)
    assert out == "The dog jmups oevr it\n"  # the shuffles stay: their restorer is not asked


@pytest.mark.parametrize("args, message", [
    (["--perturbers", "visual,nope"], "unknown shield mechanism(s) nope; choose from visual"),
    (["--perturbers", ","], "(none given)"),
    (["--threshold", "abc"], "--threshold must be a number in [0, 1], got 'abc'"),
    (["--threshold", "1.5"], "threshold must be a number in [0, 1]"),
    (["--threshold", "nan"], "threshold must be a number in [0, 1]"),
    (["--fields", "text"], "--fields needs --jsonl"),
])
def test_usage_errors_are_one_line_and_exit_2(args, message, monkeypatch, capsys):
    code, out, err = run_cli(["shield", *args], b"text\n", monkeypatch, capsys)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_wordfreq_not_importable_is_one_line_after_the_lines_before(monkeypatch, capsys):
    """An install without wordfreq (the web-word list's source, `shield/webwords.py`): the
    lines before the first that asks the list are written, then one line saying what to
    install, exit 2, not a ModuleNotFoundError traceback (every line of words asks it)."""
    from zeroe_assets.shield import webwords

    monkeypatch.setitem(sys.modules, "wordfreq", None)  # what `import` finds when it is absent
    webwords.load_web_words.cache_clear()
    # a threshold no other test asks for: a shield of its own, its list not loaded yet
    code, out, err = run_cli(["shield", "--threshold", "0.5001"],
                             b"123 , 456 !\nThe dog runs across the field .\nok\n",
                             monkeypatch, capsys)
    webwords.load_web_words.cache_clear()
    assert (code, out) == (2, "123 , 456 !\n")  # a line of no words asks nothing
    assert "needs wordfreq" in err and "pip install" in err and err.count("\n") == 1


@pytest.fixture
def artifacts(tmp_path):
    """A copy of the artifact root without its shield components (the ranker and the context
    model; the other folders linked, the manifest copied without them), to add one to."""
    root = tmp_path / "artifacts"
    root.mkdir()
    source = ROOT / "artifacts"
    for entry in source.iterdir():
        if entry.is_dir() and entry.name != "shield":
            (root / entry.name).symlink_to(entry)
    manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    for name in [c for c in manifest["components"] if c.split("/")[0] == "shield"]:
        manifest["components"].pop(name)
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def shield_process(root, *args, stdin: str = "T h e dog\n"):
    return subprocess.run([*SHIELD, *args], input=stdin.encode(), capture_output=True,
                          env={**os.environ, "ZEROE_ARTIFACTS": str(root)}, cwd=ROOT)


def test_learned_ranker_missing_and_corrupt(artifacts):
    from zeroe_assets.shield.ranker import hand_set_ranker, write_ranker

    plain = shield_process(artifacts)  # no shield component: the hand-set ranker, said once
    assert plain.returncode == 0
    assert plain.stderr.decode().count("hand-set ranker") == 1
    assert "python -m train.shield" in plain.stderr.decode()
    # a learned ranker with the hand-set weights: restores as the hand-set one, no note
    write_ranker(hand_set_ranker().weights, 0.5, {"test": True}, artifacts)
    learned = shield_process(artifacts)
    assert learned.returncode == 0 and learned.stdout == plain.stdout
    assert b"hand-set" not in learned.stderr
    ranker = artifacts / "shield" / "ranker.json"
    ranker.write_bytes(ranker.read_bytes().replace(b"0.5", b"0.9", 1))
    corrupt = shield_process(artifacts)
    err = corrupt.stderr.decode()
    assert corrupt.returncode == 1 and corrupt.stdout == b"" and "Traceback" not in err
    assert err.startswith("zeroe shield: error: ") and str(ranker) in err
    assert "python -m train.shield" in err and err.count("\n") == 1
    assert shield_process(artifacts, "--no-learned").stdout == plain.stdout


def test_progress_bar_only_on_a_terminal(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("T h e dog\n" * 50, encoding="utf-8")
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # 80 columns
    try:
        proc = subprocess.run([*SHIELD, "--perturbers", "intrude", str(path)], stderr=follower,
                              stdout=subprocess.PIPE, cwd=ROOT, timeout=120)
        os.close(follower)
        follower = -1
        bar = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal is closed: all read
                break
            if not chunk:
                break
            bar += chunk
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert proc.returncode == 0 and proc.stdout == b"The dog\n" * 50
    assert b"50" in bar and b"lines" in bar
    piped = subprocess.run([*SHIELD, "--perturbers", "intrude", "--no-learned", str(path)],
                           capture_output=True, cwd=ROOT)
    assert piped.stdout == proc.stdout and piped.stderr.decode().count("\n") == 1  # the note


CHEAP = "intrude,keyboard-typo,disemvowel,truncate,inner-shuffle"


@needs_olid
def test_attack_a_shielded_victim_and_refuse_to_resume_with_another_shield(olid, tmp_path,
                                                                          capsys):
    data, model = olid
    out = tmp_path / "run"

    def attack(*extra):
        code = main(["search", "--task", "tc", "--victim", "tc-tfidf", "--victim-path",
                     str(model), "--input", str(data), "--recipe", "textfooler-zeroe", "--out",
                     str(out), "--limit", "3", "--perturbers", CHEAP, "--max-queries", "40",
                     "-q", *extra])
        return (code, *capsys.readouterr())

    code, _, err = attack("--shield")
    assert code == 0, err
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["settings"]["shield"] == list(MECHANISMS)
    assert run["fingerprint"]["shield"]["mechanisms"] == list(MECHANISMS)
    assert "guess" not in run["fingerprint"]["shield"]  # runs from before --shield-guess resume
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 3 and all(r["queries"] >= 1 for r in results)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# Search attack: textfooler-zeroe on tc-tfidf behind the shield")
    assert attack("--shield")[0] == 0  # the same settings: it resumes (nothing left to do)
    for other in ([], ["--shield-perturbers", "visual,intrude"], ["--shield-guess"]):
        code, _, err = attack(*other)
        assert code == 2 and "other settings" in err and "shield" in err


@needs_olid
def test_bench_evaluate_a_shielded_victim(olid, tmp_path, capsys):
    data, model = olid
    assert main(["bench", "generate", "--task", "tc", "--input", f"test={data}", "--perturbers",
                 "intrude", "--levels", "high", "--out", str(tmp_path / "sets")]) == 0
    results = {}
    for name, extra in (("bare", []), ("shielded", ["--shield"])):
        assert main(["bench", "evaluate", "--task", "tc", "--victim", "tc-tfidf", "--victim-path",
                     str(model), "--sets", str(tmp_path / "sets"), "--out", str(tmp_path / name),
                     *extra]) == 0
        results[name] = json.loads((tmp_path / name / "results.json").read_text())
    capsys.readouterr()
    bare, shielded = results["bare"], results["shielded"]
    assert shielded["victim"] == f"shielded tc-tfidf ({model})"
    assert bare["victim"] == f"tc-tfidf ({model})"
    [bare_set], [shielded_set] = bare["sets"], shielded["sets"]
    assert shielded_set["edit_distance"] == bare_set["edit_distance"]  # the same attacked data
    assert shielded_set["s_star"] > bare_set["s_star"]
