# Every target sets itself up: a virtual environment in .venv with the project and its extras.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs
# pyproject.toml's [build-system].requires, one a line: installed into the venv because
# tests/test_packaging.py builds the wheel offline, without an isolated build environment
define BUILD_REQUIRES
import sys
toml = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli")
with open("pyproject.toml", "rb") as file:
    print("\n".join(toml.load(file)["build-system"]["requires"]))
endef
export BUILD_REQUIRES

.PHONY: install demo lint typecheck test test-ray test-slow docs clean train

$(STAMP): pyproject.toml setup.cfg
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[local,rag,otel,dev,ray]"
	$(PY) -c "$$BUILD_REQUIRES" > $(VENV)/build-requires.txt
	$(PY) -m pip install --quiet -r $(VENV)/build-requires.txt
	touch $(STAMP)

$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[local,rag,otel,dev,ray,docs]"
	touch $(DOCS_STAMP)

install: $(STAMP)

## make demo: evaluate the bundled example cases with the offline judge (no key, no network)
demo: $(STAMP)
	$(PY) examples/demo.py

## make lint: ruff, with the rules configured in pyproject.toml
lint: $(STAMP)
	$(PY) -m ruff check .

## make typecheck: mypy over the package, with the settings in pyproject.toml (untyped definitions refused)
typecheck: $(STAMP)
	$(PY) -m mypy

## make test: lint and typecheck, then the offline test suite (no key, no network, no model load), then the Ray tests
test: lint typecheck
	$(PY) -m pytest -q
	$(PY) -m pytest -q -p no:cacheprovider benchmarks/tests
	$(MAKE) test-ray

## make test-ray: the tests marked `ray` on a real local Ray instance, inside a private network namespace
## whose only interface is loopback (Ray registers nodes under the primary address; root, as in CI)
test-ray: $(STAMP)
	unshare -n sh -c 'ip link set lo up && $(PY) -m pytest -q -m ray -p no:cacheprovider'

## make test-slow: tests that load the real local model
test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

## make docs: the documentation site in build/site; any warning (a broken link, a page left out of
## the nav, an API reference entry that does not resolve) fails the build
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet

## make train: rebuild every shipped weight file (training/README.md). Slow: it loads the local model
## and reads judge-dev (LVF_JUDGE_DEV, else ../shared/data/judge-dev); `make test` never runs it
JUDGE_DEV ?= $(or $(LVF_JUDGE_DEV),../shared/data/judge-dev)
BENCH_DATA ?= $(or $(LVF_BENCH_DATA),$(HOME)/.cache/llm_validation_framework/bench-data)
train: $(STAMP)
	$(PY) -m pip install --quiet -e ".[local,bench]"
	$(PY) training/data/injection_train/make.py
	LVF_JUDGE_DEV=$(JUDGE_DEV) LVF_BENCH_DATA=$(BENCH_DATA) $(PY) training/build_data.py
	for task in relevance support; do \
	  for data in $(BENCH_DATA)/$$task.jsonl $(JUDGE_DEV)/$$task.jsonl; do \
	    LVF_BENCH_DATA=$(BENCH_DATA) $(PY) training/extract_features.py --task $$task --data $$data || exit 1; \
	  done; \
	done
	LVF_BENCH_DATA=$(BENCH_DATA) $(PY) training/extract_features.py --task answer_relevancy \
	  --data $(BENCH_DATA)/answer_relevancy.jsonl
	LVF_BENCH_DATA=$(BENCH_DATA) $(PY) training/fit_heads.py --task relevance --write
	LVF_BENCH_DATA=$(BENCH_DATA) $(PY) training/fit_heads.py --task answer_relevancy --write
	LVF_BENCH_DATA=$(BENCH_DATA) $(PY) training/fit_heads.py --task support --write --split-only
	LVF_JUDGE_DEV=$(JUDGE_DEV) LVF_BENCH_DATA=$(BENCH_DATA) $(PY) training/fit_injection_detector.py --write
	$(PY) training/manifest.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
