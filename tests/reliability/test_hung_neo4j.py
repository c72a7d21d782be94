"""A hung Neo4j never stalls the servers: while the test's own Neo4j is stopped with SIGSTOP
(alive, accepting connections, not answering), searches over HTTP and MCP (streamable HTTP) get
503 / ``store_unavailable`` within the configured deadline, in-flight ones included; /healthz
stays fast; /readyz reports unready within ``neo4j_ping_timeout``; after SIGCONT (always sent,
in a ``finally``) everything recovers. Scenario and figures: ``bench/bench_hung_neo4j.py``."""

from __future__ import annotations

import pytest

from bench.bench_hung_neo4j import run_hung

SLACK_S = 1.5                # the query embedding and a shared 2-core box


@pytest.mark.neo4j
@pytest.mark.slow
def test_hung_neo4j_is_bounded(tmp_path):
    result = run_hung(tmp_path, frozen=9.0, searchers=2, after=5.0)
    deadline, ping = result["deadline_s"], result["bounds"]["neo4j_ping_timeout"]
    frozen = result["frozen"]
    assert frozen["search"]["statuses"] == [503], frozen
    assert frozen["mcp_search"]["mcp_error_codes"] == ["store_unavailable"], frozen
    assert not result["decided_not_refused"], result["decided_not_refused"]
    for kind in ("search", "mcp_search"):
        assert frozen[kind]["n"] >= 3 and frozen[kind]["max_s"] <= deadline + SLACK_S, frozen
    in_flight = result["in_flight_at_stop_samples"]
    assert in_flight, "no search was in flight when Neo4j stopped"
    assert all(s["seconds"] <= deadline + SLACK_S for s in in_flight), in_flight
    assert all((s["kind"] == "search" and s["status"] == 503 and int(s["retry_after"]) >= 1)
               or (s["kind"] == "mcp_search" and s.get("error_code") == "store_unavailable")
               for s in in_flight), in_flight
    assert result["healthz_max_s"] < 1.0, result["frozen"]["healthz"]
    assert frozen["readyz"]["statuses"] == [503] and frozen["readyz"]["max_s"] <= ping + 0.5, frozen["readyz"]
    assert result["readyz_unready_after_stop_s"] <= ping + 0.2 + 0.5   # + the probe loop's pause
    for key in ("readyz_ready_after_resume_s", "search_ok_after_resume_s", "mcp_search_ok_after_resume_s"):
        assert result[key] is not None and result[key] <= deadline + SLACK_S, (key, result[key])
    recovered = result["recovered"]
    assert recovered["search"]["statuses"] == [200] and "mcp_error_codes" not in recovered["mcp_search"], recovered
