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
ifeq ($(FRAMEWORK),langchain)
	$(BIN)/python examples/quickstart.py
else
	$(PYTHON) -m venv .venv-demo-$(FRAMEWORK)
	$(BIN)/uv pip install --quiet --python .venv-demo-$(FRAMEWORK)/bin/python -e '.[$(FRAMEWORK)]'
	.venv-demo-$(FRAMEWORK)/bin/python examples/quickstart_$(FRAMEWORK).py
endif

test: bootstrap
	$(BIN)/tox run -m ci

matrix: bootstrap
	$(BIN)/python scripts/gen_tox.py
	rm -rf .tox/results && mkdir -p .tox/results
	$(BIN)/tox run-parallel -m matrix -p $(or $(MATRIX_JOBS),auto) --parallel-no-spinner \
		--result-json .tox/results/tox-result.json; status=$$?; \
	$(BIN)/python scripts/render_matrix.py || exit $$?; \
	if [ $$status -ne 0 ]; then echo "make matrix: some envs failed; compat-matrix.md shows which"; fi; \
	exit $$status

bench: bootstrap
	$(BIN)/python benchmarks/dispatch.py

clean:
	rm -rf $(VENV) .tox build *.egg-info
