# Two commands do all set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
FRONTEND ?= torch
PYTEST_ARGS ?=

.PHONY: demo test test-slow bench bench-lift reuse-report opinfo moduleinfo numpy-conformance lint clean

$(STAMP): requirements-dev.txt core/pyproject.toml frontend_numpy/pyproject.toml frontend_torch/pyproject.toml frontend_tf/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) -m pip install -q --no-deps -e ./core -e ./frontend_numpy -e ./frontend_torch -e ./frontend_tf
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m demo --frontend $(FRONTEND)

test: $(STAMP)
	$(PY) -m pytest -n 2 --durations=25 $(PYTEST_ARGS)

test-slow: $(STAMP)
	LAZYTENSOR_SLOW=1 $(PY) -m pytest -n 2 -m slow $(PYTEST_ARGS)

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

reuse-report: $(STAMP)
	$(PY) ci/reuse_report.py

opinfo: $(STAMP)
	$(PY) ci/torch_opinfo.py

moduleinfo: $(STAMP)
	$(PY) ci/torch_moduleinfo.py

numpy-conformance: $(STAMP)
	$(PY) ci/numpy_conformance.py

lint: $(STAMP)
	$(PY) -m ruff check core frontend_numpy frontend_torch frontend_tf tests bench ci demo

clean:
	rm -rf $(VENV)
