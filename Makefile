# Each target sets up .venv on first use (idempotent): the CPU torch build first, so the
# `train`, `hf` and `textattack` extras never pull a CUDA build.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[train,test,bench,hf,scale,textattack]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/zeroe demo

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/perturb_throughput.py

clean:
	rm -rf $(VENV) .pytest_cache
