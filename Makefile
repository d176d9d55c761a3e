# `make demo` and `make test` each set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
FRAMEWORK ?= langchain

.PHONY: bootstrap demo test matrix bench clean

bootstrap: $(VENV)/.bootstrapped

$(VENV)/.bootstrapped: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python tox tox-uv -e '.[test,bench,langchain]'
	touch $@

demo: bootstrap
	$(BIN)/python examples/quickstart.py

test: bootstrap
	$(BIN)/tox run -m ci

matrix: bootstrap
	$(BIN)/tox run -m matrix

bench: bootstrap
	$(BIN)/python benchmarks/dispatch.py

clean:
	rm -rf $(VENV) .tox build *.egg-info
