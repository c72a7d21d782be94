"""Two real ``graphmem serve`` processes and a ``graphmem import`` on one data dir, racing on the
same ids (``bench/bench_two_process.py`` runs the scenario): every acknowledged create is the
stored one (the losers get 409 ``conflict``), an acknowledged delete stays deleted (a PATCH or GET
through the other server afterwards is a 404), and ``graphmem check`` is clean without a repair."""

from __future__ import annotations

import sqlite3
import time

import pytest
import requests

from graphmem.client import GraphmemClient
from harness.faults.two_process import check_data_dir, child_env, race
from tests.helpers.server import Server

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first


def test_two_servers_and_an_import_lose_no_acknowledged_write(tmp_path):
    data = tmp_path / "data"
    servers = [Server(data, tmp_path / f"server-{n}.log", wait=False) for n in ("a", "b")]
    try:
        for srv in servers:
            srv.wait_healthy(timeout=90)
        report = race([s.url for s in servers], data, rounds=2, n_ids=8, tmp=tmp_path)
    finally:
        exits = [srv.stop() for srv in servers]
    assert exits == [0, 0]
    assert not report["errors"], report["errors"]
    assert report["acknowledged_writes_lost"] == 0, report
    assert report["conflicts_409"] > 0, report          # the race happened: losers were refused
    assert report["resurrected_deletes"] == 0, report
    assert report["patch_after_delete_succeeded"] == 0, report
    assert report["stale_reads_after_delete"] == 0, report
    check = check_data_dir(data, child_env())
    assert check["exit_code"] == 0 and check["problems"] == [], check


def test_a_write_lock_held_by_another_process_gives_503_in_bounded_time(tmp_path):
    """Another process holding the database's write lock (a long import, a stuck job) costs a
    write at most ``store.write_wait`` and then a 503 with Retry-After; reads and /healthz go on."""
    config = tmp_path / "graphmem.toml"
    config.write_text("[store]\nwrite_wait = 1.0\n")
    data = tmp_path / "data"
    srv = Server(data, tmp_path / "server.log", env={"GRAPHMEM_CONFIG": str(config)})
    try:
        gm = GraphmemClient(srv.url, timeout=30)
        gm.add("The lighthouse keeper logs the fog horn tests", id="kept", namespace="race")
        holder = sqlite3.connect(data / "graphmem.sqlite", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            started = time.monotonic()
            resp = requests.post(f"{srv.url}/v1/memories", json={"content": "The tide table is posted weekly",
                                                                 "namespace": "race"}, timeout=30)
            waited = time.monotonic() - started
            assert resp.status_code == 503, resp.text
            assert resp.json()["error"]["code"] == "store_unavailable"
            assert "store.write_wait" in resp.json()["error"]["message"]
            # refused after write_wait while the lock is still held: bounded, not waiting for the holder
            assert resp.headers["Retry-After"] == "1" and waited >= 0.9, waited
            assert gm.get("kept", namespace="race")["id"] == "kept"              # reads go on under the lock
            assert gm.search("fog horn tests", namespace="race")["results"][0]["id"] == "kept"
            assert gm.health() == {"status": "ok"}
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert gm.add("The tide table is posted weekly", namespace="race")["status"] == "created"
    finally:
        assert srv.stop() == 0
