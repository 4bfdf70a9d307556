# BERTology Lab: two commands from a fresh clone (Python 3.11 + pip only).
#   make test          create/update .venv, run library tests + nbval regression
#   make book          create/update .venv, execute the notebooks that are not up to date (profile quick;
#                      a stamp in each notebook records its sources, parameters, library and environment),
#                      build _build/html; it prints how many were up to date and how many it executed
#   make book FORCE=1  the same, re-executing every notebook (bertology build --force)
#   make book JOBS=2   two notebooks at a time (default: one per core), each in its own process at 1 thread
#   make reproduce     FORCE=1 from a fresh, empty cache (_build/reproduce-cache): everything retrained
# The book's notebooks run at 1 torch thread each (BERTOLOGY_THREADS=1 unless you set it): a number depends on
# the thread count, and the stamps record it, so the committed stamps stay valid on any machine whatever its
# cores or load. Set BERTOLOGY_THREADS=N to use N threads (the notebooks are then executed again, at N).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# torch==2.13.0 is the CPU wheel on our machines. Elsewhere, pick your build, e.g.
#   make test TORCH_INDEX=--index-url=https://download.pytorch.org/whl/cpu      (CPU only)
#   make test TORCH_INDEX=--index-url=https://download.pytorch.org/whl/cu128    (CUDA 12.8)
TORCH ?= torch==2.13.0
TORCH_INDEX ?=
PROFILE ?= quick
FORCE ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
# make test: pytest-xdist workers, one test file per worker at a time (an nbval notebook's cells share a
# kernel, so a file never splits); each worker runs its tests at 1 thread, so 2 keeps both cores of CI busy
TEST_JOBS ?= 2
REPRODUCE_CACHE := _build/reproduce-cache
export MPLBACKEND ?= Agg
export PYTHONHASHSEED := 0

.PHONY: test lint book reproduce venv regression clean browser-deps

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH_INDEX) "$(TORCH)"
	$(PY) -m pip install --quiet -c constraints.txt -e ".[book,test]"
	touch $@

venv: $(VENV)/.installed

# Headless Chromium for tests/test_book_browser.py (not needed by make test: without it that test skips).
# Installs unattended when run as root (.ci/run does); elsewhere it says so.
browser-deps:
	@command -v chromium >/dev/null || (export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq chromium fonts-noto-color-emoji) || \
	  echo "browser-deps: could not install chromium (not root?); the browser test will skip"

test: venv lint
	$(PY) -m pytest tests -n $(TEST_JOBS) --dist loadfile --nbval-lax --nbval-current-env \
	  --sanitize-with tests/regression/sanitize.cfg -p no:cacheprovider --durations=20

# ruff (pinned in the test extras): the formatting and the lint rules of pyproject.toml, over src/ and tests/
lint: venv
	$(VENV)/bin/ruff format --check src tests
	$(VENV)/bin/ruff check src tests

book reproduce: export BERTOLOGY_THREADS ?= 1

book: venv
	$(VENV)/bin/bertology build --profile $(PROFILE) --jobs $(JOBS)$(if $(filter-out 0,$(FORCE)), --force)

# Every notebook re-executed against a fresh, empty artifact cache: nothing comes from earlier runs.
reproduce: venv
	rm -rf $(REPRODUCE_CACHE) && mkdir -p $(REPRODUCE_CACHE)
	@echo "make reproduce: re-executing every notebook with a fresh, empty cache $(REPRODUCE_CACHE) (BERTOLOGY_CACHE); your own cache is neither read nor changed"
	BERTOLOGY_CACHE=$(abspath $(REPRODUCE_CACHE)) $(VENV)/bin/bertology build --profile $(PROFILE) --jobs $(JOBS) --force

# Re-execute the smoke-profile copies that nbval compares against.
regression: venv
	$(VENV)/bin/bertology regression

clean:
	rm -rf _build
