"""``python -m train.export visual|phonetic [hydra overrides]``: regenerate exported artifacts.

The first argument picks the pipeline; the rest are passed to that pipeline's Hydra entry point.
"""
from __future__ import annotations

import importlib
import sys

PIPELINES = {
    "visual": "train.visual.export",
    "phonetic": "train.phonetic.export",
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in PIPELINES:
        print(f"usage: python -m train.export {{{','.join(PIPELINES)}}} [key=value ...]",
              file=sys.stderr)
        sys.exit(2)
    module = importlib.import_module(PIPELINES[sys.argv.pop(1)])
    module.main()


if __name__ == "__main__":
    main()
