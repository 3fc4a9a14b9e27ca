# Two commands do all set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
FRONTEND ?= torch
PYTEST_ARGS ?=
# COVERAGE=1: `make test` also records what `make reuse-report` reads (ci/reuse_plugin.py)
COVERAGE ?=
REUSE_DATA := .reuse-data
RECORD := $(if $(COVERAGE),LAZYTENSOR_REUSE_DATA=$(REUSE_DATA) PYTHONPATH=ci$${PYTHONPATH:+:$$PYTHONPATH},)

.PHONY: demo test test-slow test-install bench bench-lift reuse-report opinfo moduleinfo numpy-conformance lint clean

$(STAMP): requirements-dev.txt core/pyproject.toml frontend_numpy/pyproject.toml frontend_torch/pyproject.toml frontend_tf/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) -m pip install -q --no-deps -e ./core -e ./frontend_numpy -e ./frontend_torch -e ./frontend_tf
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m demo --frontend $(FRONTEND)

test: $(STAMP)
	$(RECORD) $(PY) -m pytest -n 2 --dist loadgroup --durations=25 $(if $(COVERAGE),-p reuse_plugin) $(PYTEST_ARGS)

test-slow: $(STAMP)
	LAZYTENSOR_SLOW=1 $(PY) -m pytest -n 2 --dist loadgroup -m slow $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/elementwise.py
	$(PY) bench/overhead.py
	$(PY) bench/small_steps.py
	$(PY) bench/observe.py
	$(PY) bench/torch_train.py
	$(PY) bench/tf_train.py
	$(PY) bench/shard.py

bench-lift: $(STAMP)
	$(PY) bench/lift/run.py

# each frontend installed alone in a fresh venv, as README says (slow: minutes)
test-install: $(STAMP)
	$(PY) -m pytest -m slow -p no:xdist tests/test_install.py $(PYTEST_ARGS)

# reads the run recorded by `make test COVERAGE=1`; makes one first if there is none
reuse-report: $(STAMP)
	test -f $(REUSE_DATA)/session.json || $(MAKE) test COVERAGE=1
	$(PY) ci/reuse_report.py --data $(REUSE_DATA)

opinfo: $(STAMP)
	$(PY) ci/torch_opinfo.py

moduleinfo: $(STAMP)
	$(PY) ci/torch_moduleinfo.py

numpy-conformance: $(STAMP)
	$(PY) ci/numpy_conformance.py

lint: $(STAMP)
	$(PY) -m ruff check core frontend_numpy frontend_torch frontend_tf tests bench ci demo

clean:
	rm -rf $(VENV) $(REUSE_DATA)
