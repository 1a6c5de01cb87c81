"""The one progress display of the long jobs (generate, evaluate, attack, shield, exports): a
tqdm bar on stderr with counts, rate and ETA, shown only when stderr is a terminal, so logs and
pipes get no bar. Log lines go through ``bar.write(line)``: to stderr, above a bar."""
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


def progress(total: int | None = None, desc: str = "", unit: str = "it", initial: int = 0,
             enabled: bool | None = None):
    """A tqdm bar (``enabled=None``: when stderr is a terminal; False: a disabled one, whose
    ``update``, ``close``, ``write`` and ``with`` still work)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    return _bar_class()(total=total, desc=desc or None, unit=unit, initial=initial,
                        file=sys.stderr, dynamic_ncols=True, disable=not enabled)
