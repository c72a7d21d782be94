"""Neo4j outage: while the test's own Neo4j is stopped, every request fails
fast with 503 + Retry-After (bounded by the configured timeouts), and /readyz answers within 1 s;
after a restart the service recovers without one, and nothing acknowledged is lost. Scenario:
``bench/bench_outage.py``, which also saves the figures (the circuit breaker's latencies among them;
tests/unit/test_breaker.py checks the breaker itself)."""

from __future__ import annotations

import pytest

from harness.faults.outage import run_outage

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first

# Configured bound: one attempt, a ~1 s back-off, one retry (max_retry_time 0.5 s); slack for a shared CI box.
REQUEST_BOUND_S = 3.0
READYZ_BOUND_S = 1.0 + 0.3


@pytest.mark.neo4j
def test_outage_fails_fast_and_recovers(tmp_path, embedder):
    result = run_outage(tmp_path, embedder, down_seconds=6.0, threads=4)
    samples = result["samples"]
    assert len(samples) > 20
    assert {s["status"] for s in samples} == {503}, result["down"]
    assert all(s["retry_after"] and int(s["retry_after"]) >= 1 for s in samples)
    slow = [s for s in samples if s["kind"] != "readyz" and s["seconds"] > REQUEST_BOUND_S]
    assert not slow, slow[:3]
    assert max(s["seconds"] for s in samples if s["kind"] == "readyz") <= READYZ_BOUND_S
    assert result["recovered_after_start_s"] is not None
    assert result["acknowledged_kept"] == result["acknowledged"]
    assert result["add_after_status"] == 201 and result["breaker_state"] == "closed"
