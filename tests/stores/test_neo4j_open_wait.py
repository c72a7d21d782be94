"""Opening a Neo4j store waits for a database that accepts connections but answers slowly (a cold
start on a busy machine) for up to ``store.neo4j.open_wait``, and fails at once where nothing listens."""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlparse

import pytest

from graphmem.errors import StoreUnavailable
from tests.helpers.memories import DIM, MODEL
from tests.mcp.mcp_helpers import TcpProxy
from tests.neo4j_server import open_store

pytestmark = pytest.mark.neo4j


def _silent_listener() -> tuple[socket.socket, int]:
    """A port that completes TCP handshakes (the kernel's backlog) and never answers Bolt."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return listener, listener.getsockname()[1]


def test_refused_connection_fails_at_once():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    store = open_store(uri=f"bolt://127.0.0.1:{port}", neo4j_open_wait=30.0)
    started = time.monotonic()
    try:
        with pytest.raises(StoreUnavailable, match="refused"):
            store.ensure_schema(MODEL, DIM)
    finally:
        store.close()
    assert time.monotonic() - started < 5.0


def test_silent_database_is_given_up_on_after_open_wait():
    listener, port = _silent_listener()
    store = open_store(uri=f"bolt://127.0.0.1:{port}", neo4j_open_wait=3.0, neo4j_connection_timeout=0.5,
                       neo4j_read_timeout=1.0)
    started = time.monotonic()
    try:
        with pytest.raises(StoreUnavailable):
            store.ensure_schema(MODEL, DIM)
    finally:
        store.close()
        listener.close()
    waited = time.monotonic() - started
    assert 2.0 <= waited <= 3.0 + 10.0, waited       # retried, then bounded by open_wait (+ one attempt)


def test_a_database_that_starts_answering_is_waited_for(neo4j_uri):
    """Silent for the first 2.5 s, then the real test database behind the same listening socket (never
    closed in between, so no connection is refused)."""
    listener, port = _silent_listener()
    target = urlparse(neo4j_uri)
    proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 7687)

    def answer_later() -> None:
        time.sleep(2.5)
        proxy.start(listener)      # the connections waiting in its backlog were given up on: forwarded, closed

    opener = threading.Thread(target=answer_later, daemon=True)
    store = open_store(uri=f"bolt://127.0.0.1:{port}", neo4j_open_wait=30.0, neo4j_connection_timeout=0.5)
    started = time.monotonic()
    opener.start()
    try:
        store.ensure_schema(MODEL, DIM)
        assert store.dim == DIM and time.monotonic() - started >= 2.0
    finally:
        opener.join()
        store.close()
        proxy.cut()
