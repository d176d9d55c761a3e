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

matrix: bootstrap pythons
	$(BIN)/python scripts/gen_tox.py
	rm -rf .tox/results && mkdir -p .tox/results
	$(BIN)/tox run-parallel -m matrix -p $(or $(MATRIX_JOBS),auto) --parallel-no-spinner \
		--result-json .tox/results/tox-result.json; status=$$?; \
	$(BIN)/python scripts/render_matrix.py || exit $$?; \
	if [ $$status -ne 0 ]; then echo "make matrix: some envs failed; compat-matrix.md shows which"; fi; \
	exit $$status

bench: bootstrap
	$(BIN)/python benchmarks/dispatch.py
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[otel]' opentelemetry-sdk
	$(BIN)/python benchmarks/otel.py
	$(BIN)/python benchmarks/policy_ops.py

clean:
	rm -rf $(VENV) .tox build *.egg-info
