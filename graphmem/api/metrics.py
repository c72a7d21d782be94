"""Prometheus metrics, one ``CollectorRegistry`` per app so tests can build many apps.

Labels are bounded: endpoints are Flask url rules (never raw paths, which would carry ids),
and no label names a namespace (metrics are not tenant-scoped).
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
STAGE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class ApiMetrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self, registry: CollectorRegistry | None = None):
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.request_seconds = Histogram(
            "graphmem_http_request_duration_seconds", "HTTP request latency by endpoint (url rule)",
            ("method", "endpoint", "status"), buckets=LATENCY_BUCKETS, registry=r)
        self.in_flight = Gauge("graphmem_http_requests_in_flight", "Requests being served", registry=r)
        self.stage_seconds = Histogram(
            "graphmem_search_stage_duration_seconds", "Search pipeline stage time", ("stage",),
            buckets=STAGE_BUCKETS, registry=r)
        self.searches = Counter("graphmem_searches", "Searches run", registry=r)
        self.stage_candidates = Counter(
            "graphmem_search_stage_candidates", "Candidates entering (in) and leaving (out) each enabled stage",
            ("stage", "direction"), registry=r)
        self.stage_disabled = Counter("graphmem_search_stage_disabled", "Searches run with the stage switched off",
                                      ("stage",), registry=r)
        self.expansion = Counter("graphmem_search_expansion_neighbours",
                                 "Expansion neighbours added as new results or merged into direct hits",
                                 ("outcome",), registry=r)
        self.results = Counter("graphmem_search_results", "Search results returned by kind", ("kind",),
                               registry=r)
        self.near_duplicates = Counter("graphmem_search_near_duplicates_dropped",
                                       "Near-duplicate results merged away", registry=r)
        self.health_changed = Counter("graphmem_search_health_changed_top5",
                                      "Searches whose top 5 changed because of health weighting", registry=r)
        self.source_reordered = Counter("graphmem_search_source_reordered",
                                        "Searches whose order changed because of source weighting", registry=r)
        self.ingest = Counter("graphmem_ingest_results", "Memories submitted, by outcome", ("status",),
                              registry=r)
        for kind in ("direct", "related", "direct+related"):
            self.results.labels(kind)
        for status in ("created", "duplicate", "rejected"):
            self.ingest.labels(status)
        for outcome in ("added", "merged"):
            self.expansion.labels(outcome)

    def observe_request(self, method: str, endpoint: str, status: int, seconds: float) -> None:
        self.request_seconds.labels(method, endpoint, str(status)).observe(seconds)

    def observe_search(self, trace: dict[str, Any]) -> None:
        self.searches.inc()
        for row in trace.get("stages", []):
            self.stage_seconds.labels(row["stage"]).observe(row["ms"] / 1000.0)
            if not row.get("enabled", True):
                self.stage_disabled.labels(row["stage"]).inc()
            else:
                self.stage_candidates.labels(row["stage"], "in").inc(row.get("in", 0))
                self.stage_candidates.labels(row["stage"], "out").inc(row.get("out", 0))
            if row["stage"] == "expansion":
                self.expansion.labels("added").inc(row.get("added", 0))
                self.expansion.labels("merged").inc(row.get("merged", 0))
            if row["stage"] == "rank":
                self.near_duplicates.inc(row.get("near_duplicates_dropped", 0))
            if row["stage"] == "weighting":
                if row.get("health_changed_top5"):
                    self.health_changed.inc()
                if row.get("source_reordered"):
                    self.source_reordered.inc()
        for kind, count in trace.get("results_by_kind", {}).items():
            self.results.labels(kind).inc(count)

    def observe_ingest(self, statuses: list[str]) -> None:
        for status in statuses:
            self.ingest.labels(status).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
