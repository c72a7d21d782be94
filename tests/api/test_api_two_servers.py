"""Two API processes on one Neo4j, as behind a load balancer: what one writes, the other finds at
once, and what one deletes, the other no longer returns. Each process has its own data directory
(nothing shared on disk), and each has searched the same query before the change, so any
process-local cache of results, terms or vectors would show up as a stale answer here."""

from __future__ import annotations

import uuid

import pytest

from graphmem.client import GraphmemClient, GraphmemClientError
from tests.helpers.server import Server
from tests.neo4j_server import open_store, server_env

pytestmark = pytest.mark.neo4j

# Made-up names: each is the one memory that matches its query, lexically and by meaning.
NAMES = ["quokka", "narwhal", "axolotl", "pangolin", "okapi", "tarsier"]


def content(name: str) -> str:
    return f"The {name} team keeps its invoices in the {name}-archive bucket"


def query(name: str) -> str:
    return f"where does the {name} team keep invoices"


def ids_found(gm: GraphmemClient, name: str, ns: str) -> list[str]:
    return [r["id"] for r in gm.search(query(name), namespace=ns, k=5)["results"]]


@pytest.fixture
def two_servers(tmp_path, neo4j_uri):
    env = server_env(tmp_path)
    servers = [Server(tmp_path / f"data-{n}", tmp_path / f"server-{n}.log", store="neo4j", env=env, wait=False)
               for n in ("a", "b")]
    ns = f"test-two-{uuid.uuid4().hex[:12]}"
    try:
        for srv in servers:  # started together: the two model loads overlap
            srv.wait_healthy(timeout=90)
        yield [GraphmemClient(srv.url, timeout=30) for srv in servers], ns
    finally:
        for srv in servers:
            if srv.proc.poll() is None:
                srv.proc.kill()
                srv.proc.wait()
            srv.log.close()
        store = open_store()
        try:
            store.drop_namespace(ns)
        finally:
            store.close()


def test_two_processes_see_each_others_writes_at_once(two_servers, neo4j_uri):
    (a, b), ns = two_servers
    for gm in (a, b):
        ready = gm.ready()
        assert ready["status"] == "ready" and ready["server"]["kind"] == "neo4j"
        assert ready["server"]["version"] and ready["server"]["topology"] == "single"
        assert "servers" not in ready["server"]  # the public probe gives counts, not addresses
    port = neo4j_uri.rsplit(":", 1)[1]
    assert b.stats(ns)["server"]["servers"]["WRITE"] == [f"127.0.0.1:{port}"]

    # Interleaved: each memory is written through one process and read through the other, which
    # has just searched the same query and not found it.
    for i, name in enumerate(NAMES):
        writer, reader = (a, b) if i % 2 == 0 else (b, a)
        assert f"m-{name}" not in ids_found(reader, name, ns)
        created = writer.add(content(name), id=f"m-{name}", namespace=ns, tags=["invoices", name])
        assert created["status"] == "created"
        assert ids_found(reader, name, ns)[0] == f"m-{name}"
        assert reader.get(f"m-{name}", namespace=ns)["content"] == content(name)
    assert a.stats(ns)["memories"] == b.stats(ns)["memories"] == len(NAMES)

    # An update through A is what B returns; a delete through B is gone from A's search and get.
    a.update("m-okapi", namespace=ns, content="The okapi team moved its invoices to the ledger vault")
    assert b.get("m-okapi", namespace=ns)["content"].endswith("ledger vault")
    assert ids_found(b, "okapi", ns)[0] == "m-okapi"
    for name in ("quokka", "narwhal"):
        assert ids_found(a, name, ns)[0] == f"m-{name}"
        b.delete(f"m-{name}", namespace=ns)
        assert f"m-{name}" not in ids_found(a, name, ns)
        with pytest.raises(GraphmemClientError) as err:
            a.get(f"m-{name}", namespace=ns)
        assert err.value.status == 404
    assert a.stats(ns)["memories"] == b.stats(ns)["memories"] == len(NAMES) - 2
    # The shared tag's neighbourhood agrees too: no edge to a deleted memory on either side.
    for gm in (a, b):
        nodes = {n["id"] for n in gm.graph(ids=["m-axolotl"], namespace=ns)["nodes"]}
        assert "m-quokka" not in nodes and "m-narwhal" not in nodes and "m-pangolin" in nodes
