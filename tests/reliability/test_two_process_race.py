"""Two real ``graphmem serve`` processes and a ``graphmem import`` on one data dir, racing on the
same ids (``bench/bench_two_process.py`` runs the scenario): every acknowledged create is the
stored one (the losers get 409 ``conflict``), an acknowledged delete stays deleted (a PATCH or GET
through the other server afterwards is a 404), and ``graphmem check`` is clean without a repair."""

from __future__ import annotations

from bench.bench_two_process import check_data_dir, child_env, race
from tests.api.test_api_server import Server


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
    print(report)
    assert report["acknowledged_writes_lost"] == 0, report
    assert report["conflicts_409"] > 0, report          # the race happened: losers were refused
    assert report["resurrected_deletes"] == 0, report
    assert report["patch_after_delete_succeeded"] == 0, report
    assert report["stale_reads_after_delete"] == 0, report
    check = check_data_dir(data, child_env())
    assert check["exit_code"] == 0 and check["problems"] == [], check
