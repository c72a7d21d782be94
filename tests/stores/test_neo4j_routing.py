"""The store under the routing scheme (``neo4j://``, what clusters and Aura use) on the local server:
the routing table hands out this server (its real port, so the test cannot silently reach
another Neo4j), reads run as read transactions (routable to followers), writes as write
transactions, and a missing database name is a configuration error, not an outage."""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlparse

import pytest
from neo4j import Session

from graphmem.errors import StoreConfigError
from graphmem.model import MemoryFilter
from tests.helpers.memories import DIM, MODEL, mem, new_namespace, unit
from tests.neo4j_server import open_store

pytestmark = pytest.mark.neo4j


@pytest.fixture
def routed(neo4j_uri):
    store = open_store("neo4j://" + neo4j_uri.split("://", 1)[1])
    store.ensure_schema(MODEL, DIM)
    ns = new_namespace("route")
    yield store, ns
    store.drop_namespace(ns)
    store.close()


def test_routing_scheme_reads_and_writes_on_this_server(routed, neo4j_uri, monkeypatch):
    store, ns = routed
    with store._driver.session(database=store.database) as session:
        table = session.run("CALL dbms.routing.getRoutingTable({}, $db)", db=store.database).single()
    port = urlparse(neo4j_uri).port
    roles = {s["role"]: s["addresses"] for s in table["servers"]}
    assert set(roles) == {"WRITE", "READ", "ROUTE"}
    assert all(a.endswith(f":{port}") for addresses in roles.values() for a in addresses), roles

    kinds: Counter[str] = Counter()

    def counted(kind: str):
        original = getattr(Session, kind)

        def run(self, work, *args, **kwargs):
            # a managed transaction by its kind; an auto-commit query by its session's access mode
            kinds[kind if kind != "run" else f"run_{self._config.default_access_mode}"] += 1
            return original(self, work, *args, **kwargs)
        return run

    begin = Session.begin_transaction

    def begun(self, *args, **kwargs):
        # an explicit transaction (a write session: its reads and save in one) by its access mode
        kinds[f"begin_transaction_{self._config.default_access_mode}"] += 1
        return begin(self, *args, **kwargs)

    for kind in ("execute_read", "execute_write", "run"):
        monkeypatch.setattr(Session, kind, counted(kind))
    monkeypatch.setattr(Session, "begin_transaction", begun)
    store.save_batch([mem(ns, "a", text="routing keeps reads and writes apart"),
                      mem(ns, "b", text="reads go to followers")], [], [])
    assert kinds == Counter(begin_transaction_WRITE=1), "a write is one transaction on the writer"
    kinds.clear()
    assert set(store.get_memories(ns, ["a", "b"])) == {"a", "b"}
    assert set(store.lexical_candidates(ns, ["reads"], 5, None, "")) == {"a", "b"}
    assert store.vector_candidates(ns, unit(1), 2, MemoryFilter(), "")
    assert store.stats(ns).namespaces == {ns: 2}
    assert set(kinds) == {"run_READ", "execute_read"} and kinds["run_READ"] >= 3, kinds


def test_unknown_database_is_a_configuration_error(neo4j_uri):
    store = open_store("neo4j://" + neo4j_uri.split("://", 1)[1])
    store.database = "no-such-database"
    try:
        with pytest.raises(StoreConfigError) as err:
            store.get_memories("x", ["a"])
        assert err.value.field == "store.neo4j.database"
    finally:
        store.close()
