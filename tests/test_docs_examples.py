"""Documented examples run as written: each `$` command of docs/shield.md's console block through
a shell (the installed `zeroe`) and its Python block as a doctest; the README's Python blocks as
a user pastes them, and the results the README states beside them."""
import ast
import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from zeroe_assets.search.results import STATUSES
from zeroe_assets.shield import Shield

from .attack_fixtures import TWEETS, needs_olid, olid  # noqa: F401  (olid: a fixture)

DOC = Path(__file__).resolve().parents[1] / "docs" / "shield.md"
README = DOC.parents[1] / "README.md"


def _blocks(text: str, kind: str) -> list[str]:
    """The fenced blocks of ``kind``, in order."""
    blocks = re.findall(rf"```{kind}\n(.*?)```", text, flags=re.S)
    assert blocks, f"no {kind} block"
    return blocks


def _block(text: str, kind: str) -> str:
    """The first fenced block of ``kind`` (shield.md's "### Command line"/"### Python" examples)."""
    return _blocks(text, kind)[0]


def _commands(block: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs; a line ending in a backslash goes on."""
    pairs: list[tuple[str, str]] = []
    lines = iter(block.splitlines())
    for line in lines:
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\"):
                command = command[:-1] + next(lines)
            pairs.append((command, ""))
        else:
            command, output = pairs[-1]
            pairs[-1] = (command, output + line + "\n")
    return pairs


def test_shield_md_examples_reproduce(tmp_path, monkeypatch):
    text = DOC.read_text(encoding="utf-8")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    pairs = _commands(_block(text, "console"))
    assert len(pairs) >= 4
    for command, expected in pairs:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout + done.stderr == expected, command
    monkeypatch.chdir(tmp_path)  # the Python block streams the attacked.txt written above
    test = doctest.DocTestParser().get_doctest(_block(text, "python"), {}, DOC.name, str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_note_says_why_the_ranker_is_hand_set(empty_artifacts):
    assert "no learned one exported" in Shield(["intrude"]).describe()
    asked = Shield(["intrude"], learned=False).describe()
    assert "hand-set ranker," in asked and "exported" not in asked


def _run_blocks(doc: Path) -> dict:
    """Run ``doc``'s Python blocks in turn in one namespace; a block's closing expression (what a
    user would see printed) is kept as ``shown``."""
    namespace: dict = {}
    for block in _blocks(doc.read_text(encoding="utf-8"), "python"):
        tree = ast.parse(block)
        if isinstance(tree.body[-1], ast.Expr):
            tree.body[-1] = ast.Assign([ast.Name("shown", ast.Store())], tree.body[-1].value,
                                       lineno=0)
        exec(compile(ast.fix_missing_locations(tree), str(doc), "exec"), namespace)
    return namespace


@needs_olid
def test_readme_python_examples_run(tmp_path, monkeypatch, olid):  # noqa: F811
    """In a folder with the files the blocks name (big.txt; tc.joblib, which the README says
    `zeroe bench train-victim` makes: here the fixture's victim)."""
    (tmp_path / "big.txt").write_text("many sentences\nline two\n", encoding="utf-8")
    shutil.copy(olid[1], tmp_path / "tc.joblib")
    monkeypatch.chdir(tmp_path)
    assert _run_blocks(README)["shown"]["examples"] == 1  # the search block's summary


@needs_olid
def test_search_md_python_examples_run(tmp_path, monkeypatch, olid):  # noqa: F811
    """With the files the page makes before them: victims/tc.joblib and olid_test.tsv."""
    (tmp_path / "victims").mkdir()
    shutil.copy(olid[1], tmp_path / "victims" / "tc.joblib")
    shutil.copy(olid[0], tmp_path / "olid_test.tsv")
    monkeypatch.chdir(tmp_path)
    done = _run_blocks(DOC.parent / "search.md")
    assert done["summary"]["examples"] == TWEETS  # the run over the whole file
    assert len(done["results"]) == 2  # the second block's two examples
    assert done["result"].status in STATUSES  # the third block's own attack ran


def test_readme_restore_example_holds():
    import zeroe_assets as z

    stated = re.findall(r"`z\.restore\((\"[^`]*\")\)` → `'([^`]*)'`",
                        README.read_text(encoding="utf-8"))
    assert stated
    for text, expected in stated:
        assert z.restore(text.strip('"')) == expected


@needs_olid
def test_defend_md_python_example_runs(tmp_path, monkeypatch):
    """On the first 400 training tweets under the file name the page uses (the whole file takes
    minutes); the victim it builds is saved where the page says and loads again."""
    from .attack_fixtures import OLID

    lines = (OLID / "olid-training-v1.0.tsv").read_text(encoding="utf-8").splitlines(True)
    (tmp_path / "olid-training-v1.0.tsv").write_text("".join(lines[:401]), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    done = _run_blocks(DOC.parent / "defend.md")
    assert 0.0 <= done["shown"][0] <= 1.0
    assert done["load_defended"]("defended/olid").predict(["you are an iidot"]) == done["shown"]
    assert done["victim"].shield.guess  # the shield the page adds to that folder, guessing
