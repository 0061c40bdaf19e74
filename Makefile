# Every target sets itself up: a virtual environment in .venv with the project and its extras.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test test-slow bench clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[local,dev]"
	touch $(STAMP)

install: $(STAMP)

## make demo: evaluate the bundled example cases with the offline judge (no key, no network)
demo: $(STAMP)
	$(PY) examples/demo.py

## make test: the offline test suite (no key, no network, no model load)
test: $(STAMP)
	$(PY) -m pytest -q

## make test-slow: tests that load the real local model
test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
