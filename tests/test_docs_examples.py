"""The shield's documented examples run as written: each `$` command of docs/shield.md's console
block through a shell (the installed `zeroe`), and its Python block as a doctest, in one folder."""
import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

from zeroe_assets.shield import Shield

DOC = Path(__file__).resolve().parents[1] / "docs" / "shield.md"


def _block(text: str, kind: str) -> str:
    """The first fenced block of ``kind`` after the "### Command line"/"### Python" examples."""
    blocks = re.findall(rf"```{kind}\n(.*?)```", text, flags=re.S)
    assert blocks, f"no {kind} block in {DOC.name}"
    return blocks[0]


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
