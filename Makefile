# The two commands a newcomer needs: `make run` and `make test`.
# Both create the virtualenv when it is missing and install what they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test install lint typecheck bench docker-smoke clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m bot

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: $(STAMP)
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

test: lint typecheck
	$(PY) -m pytest -n 2 -q

bench: $(STAMP)
	$(PY) bench/engine.py

# Build the image and check it (root and a few minutes; not part of `make test`).
docker-smoke:
	.ci/docker-smoke

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
