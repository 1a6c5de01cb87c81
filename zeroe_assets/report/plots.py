"""The one matplotlib setup of the toolkit's figures (reports, training jobs, benchmarks)."""
from __future__ import annotations


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend: figures are written to files, never shown, so
    no display is needed. Imported on call: matplotlib is no import-time dependency."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
