"""Two real ``graphmem serve`` processes and ``graphmem import`` jobs on one Neo4j, racing on the same
ids (``bench/bench_two_process_neo4j.py`` runs the scenario): exactly one create per id is
acknowledged (the others get 409 ``conflict``), an acknowledged delete stays deleted, two
overlapping imports lose no acknowledged line, and ``graphmem check`` is clean without a repair.
A namespace's write lock held by another client costs a write ``store.write_wait``, then a 503."""

from __future__ import annotations

import time

import pytest
import requests
from neo4j import GraphDatabase

from graphmem.client import GraphmemClient
from harness.faults.two_process_neo4j import check_namespace, drop_race_namespace, neo4j_env, race, start_servers
from tests.helpers.server import Server
from tests.neo4j_server import neo4j_auth, neo4j_database

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first


@pytest.mark.neo4j
def test_two_servers_and_imports_on_one_neo4j_lose_no_acknowledged_write(neo4j_uri, tmp_path):
    drop_race_namespace()
    servers = start_servers(tmp_path)
    try:
        report = race([s.url for s in servers], rounds=1, n_ids=8, tmp=tmp_path, import_ids=16)
    finally:
        exits = [srv.stop() for srv in servers]
    assert exits == [0, 0]
    assert not report["errors"], report["errors"]
    assert report["statuses"].get("create created", 0) + report["statuses"].get("import created", 0) <= 8, report
    assert report["acknowledged_writes_lost"] == 0, report
    assert report["conflicts_409"] > 0, report          # the race happened: losers were refused
    assert report["resurrected_deletes"] == 0, report
    assert report["patch_after_delete_succeeded"] == 0, report
    assert report["stale_reads_after_delete"] == 0, report
    assert report["overlapping_imports_lost"] == 0, report
    assert report["overlapping_imports_conflicts"] > 0, report      # the imports did overlap
    assert not any(k.startswith(("create 5", "patch 5", "delete 5")) for k in report["statuses"]), report
    check = check_namespace(neo4j_env(tmp_path))
    assert check["exit_code"] == 0 and check["problems"] == [], check


@pytest.mark.neo4j
def test_a_namespace_lock_held_elsewhere_gives_503_in_bounded_time(neo4j_uri, tmp_path):
    """Another client holding the namespace's write lock (a stuck job) costs a write at most
    ``store.write_wait`` and then a 503 with Retry-After; reads, other namespaces and /healthz go on."""
    drop_race_namespace()
    config = tmp_path / "graphmem.toml"
    config.write_text("[store]\nwrite_wait = 1.0\n")
    env = {k: v for k, v in neo4j_env().items() if k.startswith("GRAPHMEM_")}
    srv = Server(tmp_path / "data", tmp_path / "server.log", store="neo4j",
                 env={**env, "GRAPHMEM_CONFIG": str(config)})
    driver = GraphDatabase.driver(neo4j_uri, auth=neo4j_auth())
    try:
        gm = GraphmemClient(srv.url, timeout=30)
        gm.add("The lighthouse keeper logs the fog horn tests", id="kept", namespace="race")
        with driver.session(database=neo4j_database()) as session:
            holder = session.begin_transaction()
            holder.run("MATCH (l:NamespaceLock {namespace: 'race'}) SET l.at = timestamp()").consume()
            try:
                started = time.monotonic()
                resp = requests.post(f"{srv.url}/v1/memories", json={"content": "The tide table is posted weekly",
                                                                     "namespace": "race"}, timeout=30)
                waited = time.monotonic() - started
                assert resp.status_code == 503, resp.text
                assert resp.json()["error"]["code"] == "store_unavailable"
                assert "store.write_wait" in resp.json()["error"]["message"]
                assert resp.headers["Retry-After"] == "1" and waited >= 0.9, waited
                assert gm.get("kept", namespace="race")["id"] == "kept"
                assert gm.search("fog horn tests", namespace="race")["results"][0]["id"] == "kept"
                assert gm.health() == {"status": "ok"}
                other = gm.add("The ferry timetable changes in May", namespace="race-other")
                assert other["status"] == "created"
            finally:
                holder.rollback()
        assert gm.add("The tide table is posted weekly", namespace="race")["status"] == "created"
        gm.delete(other["memory"]["id"], namespace="race-other")
    finally:
        driver.close()
        assert srv.stop() == 0
