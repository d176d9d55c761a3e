# `make demo` and `make test` each set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
FRAMEWORK ?= langchain

.PHONY: bootstrap demo doctor test matrix bench pythons clean

# tox-uv finds Python 3.10-3.13 on PATH (the -py3XX envs). pyenv's shims hide all but the global
# one from uv, so `pythons` links each pyenv interpreter into .tox/pythons, which goes first on PATH;
# elsewhere (CI's setup-python) the interpreters are on PATH already and the directory stays empty.
PYTHON_LINKS := $(CURDIR)/.tox/pythons
export PATH := $(PYTHON_LINKS):$(PATH)
export UV_PYTHON_PREFERENCE ?= only-system

bootstrap: $(VENV)/.bootstrapped

$(VENV)/.bootstrapped: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python tox tox-uv -e '.[test,bench,langchain]'
	touch $@

demo: bootstrap
ifeq ($(FRAMEWORK),langchain)
	$(BIN)/python examples/quickstart.py
else
	$(PYTHON) -m venv .venv-demo-$(FRAMEWORK)
	$(BIN)/uv pip install --quiet --python .venv-demo-$(FRAMEWORK)/bin/python -e '.[$(FRAMEWORK)]'
	.venv-demo-$(FRAMEWORK)/bin/python examples/quickstart_$(FRAMEWORK).py
endif

doctor: bootstrap
	$(BIN)/hookport doctor

test: bootstrap pythons
	$(BIN)/tox run -m ci

pythons:
	@mkdir -p $(PYTHON_LINKS)
	@for v in 3.10 3.11 3.12 3.13; do \
		found=$$(ls -d $(HOME)/.pyenv/versions/$$v.*/bin/python$$v 2>/dev/null | sort -V | tail -n 1); \
		if [ -n "$$found" ]; then ln -sf "$$found" $(PYTHON_LINKS)/python$$v; fi; \
	done

# `make matrix` runs the envs whose result is missing or stale and merges each into compat.json as
# it finishes (scripts/matrix.py): ONLY=crewai,core  MISSING=1 (never-run envs only)  ALL=1 (every env)
# MATRIX_JOBS=N (envs at a time, default 1)  DRY_RUN=1 (print the plan)  REFRESH=1 (first regenerate
# tox.ini with scripts/gen_tox.py, moving the dependency cutoff to today: new releases come in, and
# every env's pins are checked). Without REFRESH it asks PyPI only whether a newer release is out.
matrix: bootstrap pythons
	$(if $(REFRESH),$(BIN)/python scripts/gen_tox.py)
	$(BIN)/python scripts/matrix.py --jobs $(or $(MATRIX_JOBS),1) $(if $(ONLY),--only $(ONLY)) \
		$(if $(MISSING),--missing) $(if $(ALL),--all) $(if $(DRY_RUN),--dry-run)

bench: bootstrap
	$(BIN)/python benchmarks/dispatch.py
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[otel]' opentelemetry-sdk
	$(BIN)/python benchmarks/otel.py
	$(BIN)/python benchmarks/policy_ops.py

clean:
	rm -rf $(VENV) .tox build *.egg-info
