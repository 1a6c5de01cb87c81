"""The one progress display (``zeroe_assets.progress``): a tqdm bar with counts, rate and ETA on
stderr when it is a terminal, nothing when it is not; log lines through it go to stderr."""
from __future__ import annotations

import sys

from zeroe_assets.progress import progress_bar


def test_a_bar_shows_counts_rate_and_eta_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with progress_bar(4, "attack", "ex", initial=1) as bar:
        bar.update(3)
        bar.write("a log line")
    out, err = capsys.readouterr()
    assert out == "" and "a log line" in err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert "attack" in last and "4/4" in last and "ex/s" in last and "<" in last  # ETA


def test_quiet_when_stderr_is_not_a_terminal_or_disabled(capsys, monkeypatch):
    with progress_bar(3, "generate", " sets") as bar:  # pytest's stderr is not a terminal
        bar.update(3)
        bar.write("still logged")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with progress_bar(3, "generate", " sets", enabled=False) as bar:
        bar.update(3)
    out, err = capsys.readouterr()
    assert out == "" and err == "still logged\n"
