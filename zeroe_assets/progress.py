"""The one progress display of long jobs (generate, evaluate, attack, shield, the shield
benchmark, exports): a tqdm bar on stderr with the count, the rate and (when the total is
known) the ETA, shown on a terminal only, so logs and pipes stay clean."""
from __future__ import annotations

import functools
import sys


@functools.cache
def _bar_class():
    from tqdm import tqdm  # here, not at import: the runtime imports only numpy and faiss

    class Bar(tqdm):
        """tqdm whose ``write`` goes to stderr, where the bar is (tqdm's goes to stdout)."""

        @classmethod
        def write(cls, s, file=None, end="\n", nolock=False):
            return super().write(s, file=file or sys.stderr, end=end, nolock=nolock)

    return Bar


def stream(progress):
    """Where a job's progress lines go: ``True`` is standard error as it is when the job runs
    (a default bound at import would keep a stream a test or notebook has since closed),
    ``None`` or ``False`` nowhere, any other value is the stream itself."""
    return sys.stderr if progress is True else progress or None


def progress_bar(total: int | None = None, desc: str | None = None, unit: str = "it",
                 initial: int = 0, enabled: bool = True):
    """A tqdm bar (``update()`` it, ``close()`` or ``with`` it); a silent one when ``enabled``
    is false or stderr is not a terminal. ``write(line)`` prints a line above it (to stderr)
    either way."""
    return _bar_class()(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr,
                        dynamic_ncols=True, disable=not (enabled and sys.stderr.isatty()))
