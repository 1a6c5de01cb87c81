"""The one progress display of long jobs: a tqdm bar on stderr with the count, the rate and (when
the total is known) the ETA, shown on a terminal only, so logs and pipes stay clean."""
from __future__ import annotations

import sys


def progress_bar(total: int | None = None, desc: str | None = None, unit: str = "it",
                 initial: int = 0, enabled: bool = True):
    """A tqdm bar (``update()`` it, ``close()`` or ``with`` it); a silent one when ``enabled``
    is false or stderr is not a terminal. ``write(line)`` prints a line above it either way."""
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr,
                dynamic_ncols=True, disable=not (enabled and sys.stderr.isatty()))
