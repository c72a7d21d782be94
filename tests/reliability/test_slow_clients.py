"""Slow clients cannot lock others out: 200 connections to each of ``graphmem serve`` and
``graphmem mcp --http`` trickle their bodies one byte at a time (real sockets, real server
processes) while /healthz and searches of a normal client stay fast, and each slow connection
gets a 408 and is closed once ``request_timeout`` passes (set short here by a config file).
Scenario and figures: ``bench/bench_slow_clients.py``."""

from __future__ import annotations

import pytest

from harness.faults.slow_clients import run_slow_clients

REQUEST_TIMEOUT_S = 3.0


@pytest.mark.slow
def test_slow_clients_do_not_block_others(tmp_path):
    result = run_slow_clients(tmp_path, slow=200, seconds=REQUEST_TIMEOUT_S + 3.0,
                              request_timeout=REQUEST_TIMEOUT_S)
    loaded = result["latency"]["slow_clients"]
    assert not result["failures"], result["failures"]
    for kind in ("healthz", "search", "mcp_search"):
        assert loaded[kind]["n"] >= 5, loaded
        assert loaded[kind]["statuses"] == [200], loaded
    # answered before request_timeout freed the slow connections: never queued behind them
    assert all(loaded[kind]["max_s"] < REQUEST_TIMEOUT_S for kind in ("healthz", "search", "mcp_search")), loaded
    for side in ("slow_api", "slow_mcp"):
        slow = result[side]
        assert slow["closed_by_server"] == 200, slow
        assert slow["closed_how"] == ["HTTP/1.1 408 Request Timeout"], slow
        assert REQUEST_TIMEOUT_S <= slow["closed_after_s"]["min"], slow     # none closed before its time
