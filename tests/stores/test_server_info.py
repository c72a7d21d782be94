"""``server_info``: the store's kind, version and topology (``/readyz``, ``graphmem stats``), on both
stores. Neo4j's answer is checked against the server's own ``dbms.components()`` and routing table,
its cache against the ttl, and its bound against a server that accepts connections and never
answers (a readiness probe must not wait on it longer than the ping does)."""

from __future__ import annotations

import socket
import sqlite3
import threading
from urllib.parse import urlparse

import pytest

from tests.helpers.memories import DIM, MODEL
from tests.neo4j_server import open_store, store_settings


def test_sqlite_reports_its_library(sqlite_store):
    info = sqlite_store.server_info()
    assert (info.kind, info.version, info.edition, info.topology) == (
        "sqlite", sqlite3.sqlite_version, "embedded", "embedded")
    assert info.view() == {"kind": "sqlite", "version": sqlite3.sqlite_version, "edition": "embedded",
                           "topology": "embedded", "roles": {}, "servers": {}}


@pytest.mark.neo4j
@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_neo4j_reports_version_and_routing_table(neo4j_uri, scheme):
    store = open_store(f"{scheme}://" + neo4j_uri.split("://", 1)[1])
    try:
        store.ensure_schema(MODEL, DIM)
        with store._driver.session(database=store.database) as session:
            kernel = session.run("CALL dbms.components() YIELD name, versions, edition "
                                 "WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v, edition").single()
        info = store.server_info()
        port = urlparse(neo4j_uri).port
        assert (info.kind, info.version, info.edition) == ("neo4j", kernel["v"], kernel["edition"])
        assert info.topology == "single"  # one local server: it holds every role
        assert set(info.servers) == {"WRITE", "READ", "ROUTE"}
        assert all(len(a) == 1 and a[0].endswith(f":{port}") for a in info.servers.values()), info.servers
        public = info.view(addresses=False)
        assert public["roles"] == {"READ": 1, "ROUTE": 1, "WRITE": 1} and "servers" not in public
    finally:
        store.close()


@pytest.mark.neo4j
def test_neo4j_info_is_cached_for_its_ttl(neo4j_uri):
    store = open_store(neo4j_server_info_ttl=3600.0)
    try:
        store.ensure_schema(MODEL, DIM)
        reads: list[str] = []
        real = store._read

        def counting(name, **params):
            reads.append(name)
            return real(name, **params)

        store._read = counting  # type: ignore[method-assign]
        first = store.server_info()
        assert store.ping() and store.server_info() == first
        assert "routing_table" not in reads  # fetched once by ensure_schema, not per call
        store.server_info_ttl = 0.0
        assert store.server_info() == first and "routing_table" in reads  # a stale copy is fetched again
    finally:
        store.close()


def test_neo4j_info_never_waits_past_the_ping_timeout():
    """A server that accepts the connection and never answers: ``server_info`` gives up with
    the ping (the probe stays bounded) and reports what it does not know as unknown."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    from graphmem.stores.neo4j import Neo4jStore

    store = Neo4jStore(store_settings(neo4j_uri=f"bolt://127.0.0.1:{listener.getsockname()[1]}",
                                      neo4j_ping_timeout=0.5, neo4j_connection_timeout=5.0,
                                      neo4j_acquisition_timeout=5.0))
    try:
        info = store.server_info()
        # returned while the fetch it started still waits on the silent server (its connection
        # timeout is 5 s, the ping's 0.5 s): it gave up with the ping, not with the fetch
        assert store._refresh is not None and not store._refresh.done()
        assert (info.kind, info.version, info.topology) == ("neo4j", "", "unknown")
        assert store.server_info(refresh=False) == info and not store._refresh.done()   # no wait at all
    finally:
        stop.set()
        thread.join()
        store.close()
        for conn in held:
            conn.close()
        listener.close()
