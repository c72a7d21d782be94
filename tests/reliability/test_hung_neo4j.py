"""A hung Neo4j never stalls the servers: while the test's own Neo4j is stopped with SIGSTOP
(alive, accepting connections, not answering), searches over HTTP and MCP (streamable HTTP) get
503 with Retry-After / ``store_unavailable`` within the configured deadline (those in flight at the
stop and those sent after it); /healthz stays fast; /readyz reports unready within
``neo4j_ping_timeout``; after SIGCONT (always sent, in a ``finally``) everything recovers.
Scenario and figures: ``bench/bench_hung_neo4j.py``."""

from __future__ import annotations

import pytest

from harness.faults.hung_neo4j import run_hung

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first

# Past the deadline: the query embedding and a shared 2-core box (a full parallel run with three
# JVMs beside it once took 7.9 s for a 6 s deadline). A hung search waits out the whole freeze,
# which is longer than deadline + slack by construction, so the test still tells bounded from hung.
SLACK_S = 3.0
NEW_AFTER_S = 1.0


@pytest.mark.neo4j
@pytest.mark.slow
def test_hung_neo4j_is_bounded(tmp_path):
    # Frozen long enough that a search sent NEW_AFTER_S into the stop is decided before SIGCONT.
    probe = run_hung(tmp_path, frozen=NEW_AFTER_S + 6.0 + SLACK_S + 1.0, searchers=2, after=10.0,
                     new_after=NEW_AFTER_S)
    deadline, ping = probe["deadline_s"], probe["bounds"]["neo4j_ping_timeout"]
    assert deadline + NEW_AFTER_S + SLACK_S < probe["frozen_s"], "the scenario no longer shows the deadline"
    in_flight = probe["in_flight_at_stop_samples"]
    assert {s["kind"] for s in in_flight} >= {"search", "mcp_search"}, in_flight
    # A search whose store work was done before the stop may still answer 200; it must do so within the bound.
    late = [s for s in probe["in_flight_not_refused"] if s["seconds"] > deadline + SLACK_S]
    assert not late, late
    new = probe["new_search_after_stop"]
    assert new["new_search"]["n"] == 1 and new["new_mcp_search"]["n"] == 1, new
    assert not probe["answered_frozen_not_refused"], probe["answered_frozen_not_refused"]
    # Every search the stop found waiting or that arrived during it was answered within the deadline.
    assert probe["search_max_s_started_frozen_or_in_flight"] <= deadline + SLACK_S, probe["in_flight_at_stop"]
    assert new["new_search"]["max_s"] < probe["frozen_s"] - NEW_AFTER_S, new   # not by the resume
    assert probe["frozen"]["search"]["n"] >= 1, probe["frozen"]
    healthz = probe["frozen"]["healthz"]          # started and answered while the database was frozen
    assert healthz["n"] >= 1 and healthz["statuses"] == [200], healthz
    readyz = probe["frozen"]["readyz"]
    assert readyz["statuses"] == [503] and readyz["max_s"] <= ping + 0.5, readyz
    assert probe["readyz_unready_after_stop_s"] <= ping + 1.5   # + the probe loop's pause, a busy box
    for key in ("readyz_ready_after_resume_s", "search_ok_after_resume_s", "mcp_search_ok_after_resume_s"):
        assert probe[key] is not None and probe[key] <= deadline + SLACK_S, (key, probe[key])
    recovered = probe["recovered"]
    assert recovered["search"]["statuses"] == [200] and "mcp_error_codes" not in recovered["mcp_search"], recovered
