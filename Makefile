# The two commands a newcomer needs: `make run` and `make test`.
# Both create the virtualenv when it is missing and install what they need.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# What the bot needs (make run), and that plus the test tools (make test).
RUN_STAMP := $(VENV)/.run-stamp
STAMP := $(VENV)/.installed-stamp
# The exact versions installed, tested together (pyproject.toml keeps the ranges).
LOCK := constraints.txt

.PHONY: run test install lint typecheck bench docker-smoke clean lock

# Python 3.11 or newer; one word for a Python that is older, and what to do.
OLD_PYTHON = 'import sys; sys.exit(sys.version_info < (3, 11) and "This project needs Python 3.11 or newer; $(1) is Python " + sys.version.split()[0] + ". Install a newer one and run: make run PYTHON=python3.11")'

# A virtualenv from $(PYTHON), once it is new enough.
NEW_VENV = $(PYTHON) -c $(call OLD_PYTHON,$(PYTHON)) && rm -rf $(VENV) \
	&& $(PYTHON) -m venv $(VENV) && $(PY) -m pip install -q --upgrade pip

$(PY):
	@$(NEW_VENV)

# A virtualenv left by an older Python (the first try, before a newer one was
# installed) is made again, not kept failing.
FRESH_VENV = @if ! $(PY) -c $(call OLD_PYTHON,$(PY)) 2>/dev/null; then \
		echo "$(VENV) holds a Python older than 3.11: making it again with $(PYTHON)"; \
		$(NEW_VENV); \
	fi

# The bot alone: a first `make run` does not wait for the linters and pytest.
$(RUN_STAMP): pyproject.toml $(LOCK) | $(PY)
	$(FRESH_VENV)
	$(PY) -m pip install -q -c $(LOCK) -e .
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml $(LOCK) | $(PY)
	$(FRESH_VENV)
	$(PY) -m pip install -q -c $(LOCK) -e '.[dev]'
	touch $(STAMP) $(RUN_STAMP)

install: $(STAMP)

run: $(RUN_STAMP)
	$(PY) -m bot

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: $(STAMP)
	$(PY) -m mypy
	$(PY) -m mypy bench  # apart: bench/engine.py would clash with the engine package
	$(VENV)/bin/lint-imports

test: lint typecheck
	$(PY) -m pytest -n 2 -q

bench: $(STAMP)
	$(PY) bench/engine.py

# Write $(LOCK) anew: the newest releases within pyproject.toml's ranges, resolved in a
# virtualenv of their own (then `make test` installs and tests them).
LOCK_VENV := $(VENV)-lock
lock:
	rm -rf $(LOCK_VENV) && $(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install -q '.[dev]'
	{ printf '%s\n' \
	    '# The exact versions `make run`, `make test` and the Docker image install, tested' \
	    '# together: a clean clone does not meet a release nobody has run the suite with.' \
	    '# pyproject.toml keeps the ranges that should work; `make lock` writes this file' \
	    '# anew from the newest releases in them (then run `make test`).'; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude schnapsen-bot; \
	  sed -n '/^# Only on other Pythons/,$$p' $(LOCK); } > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf $(LOCK_VENV) build

# Build the image and check it (root and a few minutes; not part of `make test`).
docker-smoke:
	.ci/docker-smoke

# The virtualenv, the tools' caches and what the install and Python leave; never the
# database (data/, kept across runs like .env).
clean:
	rm -rf $(VENV) $(LOCK_VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache build *.egg-info
	find . -name __pycache__ -type d -prune -not -path './data/*' -exec rm -rf {} +
