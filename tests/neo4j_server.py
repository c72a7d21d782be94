"""The one place tests get their Neo4j (not a test module): ``require_neo4j`` / ``open_store`` here,
and the session fixture ``neo4j_uri`` in tests/conftest.py built on them.

Start a server with ``eval "$(docker/neo4j-local/neo4j-local start)"`` (``tests/run.sh`` and so
``make test`` start a private one); it exports ``GRAPHMEM_NEO4J_URI``. Without it Neo4j tests are
skipped, unless ``GRAPHMEM_REQUIRE_NEO4J=1`` (set by tests/run.sh) turns the skip into a failure,
so a CI run cannot silently pass without Neo4j.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.servers import store_config

URI_ENV = "GRAPHMEM_NEO4J_URI"
REQUIRE_ENV = "GRAPHMEM_REQUIRE_NEO4J"


def neo4j_uri() -> str | None:
    """The Bolt URI from ``GRAPHMEM_NEO4J_URI``, or None when unset/empty."""
    return os.environ.get(URI_ENV) or None


def neo4j_auth() -> tuple[str, str] | None:
    """Basic auth from ``GRAPHMEM_NEO4J_USER``/``GRAPHMEM_NEO4J_PASSWORD``, else None.

    The local launcher runs with auth disabled, where any credentials (or none) are accepted.
    """
    user = os.environ.get("GRAPHMEM_NEO4J_USER")
    password = os.environ.get("GRAPHMEM_NEO4J_PASSWORD")
    if user or password:
        return (user or "neo4j", password or "")
    return None


def neo4j_database() -> str | None:
    """``GRAPHMEM_NEO4J_DATABASE`` or None (the server's default database)."""
    return os.environ.get("GRAPHMEM_NEO4J_DATABASE") or None


def require_neo4j() -> str:
    """Return the Neo4j URI; skip the calling test when there is none, or fail it with
    ``GRAPHMEM_REQUIRE_NEO4J=1``."""
    uri = neo4j_uri()
    if uri:
        return uri
    msg = (
        f"{URI_ENV} is not set: no Neo4j server for this test. Start one with "
        '`eval "$(docker/neo4j-local/neo4j-local start)"`'
    )
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{msg} ({REQUIRE_ENV}=1 requires it)", pytrace=False)
    pytest.skip(msg)
    raise AssertionError("unreachable")  # pragma: no cover


def store_settings(**over):
    """defaults.toml's [store] (no environment), with ``over`` replacing keys (``sqlite_<key>`` and
    ``neo4j_<key>`` name the keys of [store.sqlite] and [store.neo4j])."""
    from graphmem.config import load_settings

    return load_settings(use_env=False).store.with_keys(**over)


# The shared test server answers four pytest workers and, beside them, the private Neo4j JVMs some
# scenarios start, on two cores: a call can wait there longer than a production bound without
# anything being wrong. Tests of the bounds themselves set the keys they test (``over`` wins).
TEST_BOUNDS = {"neo4j_read_timeout": 30.0, "neo4j_write_timeout": 60.0, "neo4j_ping_timeout": 10.0,
               "write_wait": 30.0}


def server_env(tmp: Path) -> dict[str, str]:
    """What a server process on the test Neo4j gets: its URI, credentials and database, and a config
    file (written in ``tmp``) with the ``TEST_BOUNDS``."""
    config = store_config(tmp / "test-bounds.toml", TEST_BOUNDS)
    user, password = neo4j_auth() or ("neo4j", "")
    return {"GRAPHMEM_NEO4J_URI": require_neo4j(), "GRAPHMEM_NEO4J_USER": user,
            "GRAPHMEM_NEO4J_PASSWORD": password, "GRAPHMEM_NEO4J_DATABASE": neo4j_database() or "neo4j",
            "GRAPHMEM_CONFIG": str(config)}


def open_store(uri: str | None = None, **over):
    """A ``Neo4jStore`` on the test server (credentials and database from the environment, the
    generous ``TEST_BOUNDS``); ``uri`` replaces the URI (e.g. the same server under the routing
    ``neo4j://`` scheme), ``over`` replaces [store] keys (``neo4j_*``)."""
    from graphmem.stores.neo4j import Neo4jStore

    user, password = neo4j_auth() or ("neo4j", "")
    over = {"neo4j_uri": uri or require_neo4j(), "neo4j_user": user, "neo4j_password": password,
            "neo4j_database": neo4j_database() or "neo4j", **TEST_BOUNDS, **over}
    return Neo4jStore(store_settings(**over))


@contextlib.contextmanager
def cypher_trace(monkeypatch) -> Iterator[list[tuple[str, dict]]]:
    """Every Cypher query the store runs inside the block, with its parameters: in managed
    transactions (writes, multi-query reads), in a write session's transaction (an ingest) and as
    auto-commit reads (``Neo4jStore._read``)."""
    from neo4j import ManagedTransaction, Session, Transaction

    seen: list[tuple[str, dict]] = []
    with monkeypatch.context() as patch:
        for cls in (ManagedTransaction, Transaction, Session):
            def run(self, query, parameters=None, _original=cls.run, **kwargs):
                text = getattr(query, "text", query)     # a Query carries its transaction timeout
                seen.append((text, {**(parameters or {}), **kwargs}))
                return _original(self, query, parameters, **kwargs)

            patch.setattr(cls, "run", run)
        yield seen
