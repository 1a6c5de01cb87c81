"""The one progress display (``zeroe_assets.progress``): a tqdm bar with counts, rate and ETA on
stderr when it is a terminal, nothing when it is not; log lines through it go to stderr."""
from __future__ import annotations

from zeroe_assets.progress import progress


def test_a_bar_shows_counts_rate_and_eta_on_stderr(capsys):
    with progress(4, "attack", "ex", initial=1, enabled=True) as bar:
        bar.update(3)
        bar.write("a log line")
    out, err = capsys.readouterr()
    assert out == ""
    assert "a log line" in err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert "attack" in last and "4/4" in last and "ex/s" in last and "<" in last  # ETA


def test_quiet_when_stderr_is_not_a_terminal(capsys):
    with progress(3, "generate", "set") as bar:  # pytest's stderr is not a terminal
        bar.update(3)
        bar.write("still logged")
    out, err = capsys.readouterr()
    assert out == "" and err == "still logged\n"
