#!/usr/bin/env bash
# Runs the whole suite against real parts: starts a private Neo4j (Maven Central jars, cached),
# requires it (no silent skips), runs ruff and pytest, and stops Neo4j on exit.
# Called by `make test` (after `make setup`) and so by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
export PATH="$PWD/$VENV/bin:$PATH"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

NEO4J_TEST_DIR="$(mktemp -d -t graphmem-neo4j-XXXXXX)"
export NEO4J_LOCAL_RUN_DIR="$NEO4J_TEST_DIR/run"
trap 'docker/neo4j-local/neo4j-local stop >/dev/null 2>&1 || true; rm -rf "$NEO4J_TEST_DIR"' EXIT
# Neo4j 2026.x needs a JDK >= 21 (the launcher finds one under JAVA_HOME, PATH or /usr/lib/jvm).
# The shared server gets a 2 GB heap (the launcher's default is 1 GB): four workers' namespaces pile up in it.
NEO4J_ENV="$(NEO4J_LOCAL_HEAP="${NEO4J_TEST_HEAP:-2g}" docker/neo4j-local/neo4j-local start --data "$NEO4J_TEST_DIR/data" --port auto)"
eval "$NEO4J_ENV"
export GRAPHMEM_REQUIRE_NEO4J=1
echo "Neo4j for tests: $GRAPHMEM_NEO4J_URI" >&2

ruff check graphmem harness tests bench tools
mypy
lint-imports
# Worker processes (pytest-xdist): most tests wait on servers, Neo4j and child processes rather than on
# the CPU, so more workers than cores pay off; a module's tests stay on one worker (tests/conftest.py). PYTEST_WORKERS=0 runs everything in this process.
WORKERS="${PYTEST_WORKERS:-4}"
if [ "$WORKERS" = 0 ]; then
  python -m pytest -q -p no:cacheprovider --durations=15 "$@"
else
  status=0
  python -m pytest -q -p no:cacheprovider --durations=15 -n "$WORKERS" --dist loadfile --no-loadscope-reorder "$@" || status=$?
  # Tests that change what the whole test database holds, with nothing else running beside them
  # (exit 5: the arguments selected none of them).
  serial=0
  python -m pytest -q -p no:cacheprovider -m serial "$@" || serial=$?
  [ "$serial" = 5 ] && serial=0
  exit $(( status ? status : serial ))
fi
