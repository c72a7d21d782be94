"""A Neo4j outage seen through the HTTP API: response times while the store is
down, and recovery after it returns, on a private Neo4j started and stopped here.

The scenario lives in ``harness/faults/outage.py`` (the tests run it too); this runs it at full length and
saves its figures with ``bench.meta.write_result``. Also ``python -m bench outage``.

    python -m bench.bench_outage [--down 8] [--out bench/results/outage.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from bench.meta import write_result
from graphmem.config import load_settings
from harness.faults.outage import run_outage


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--down", type=float, default=8.0, help="seconds of load while Neo4j is stopped")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--out", default="bench/results/outage.json")
    args = parser.parse_args()
    from graphmem.embedding.embedder import load_embedder
    from graphmem.embedding.prepare import ensure_model

    ensure_model()
    with tempfile.TemporaryDirectory(prefix="graphmem-outage-") as tmp:
        result = run_outage(Path(tmp), load_embedder(), args.down, args.threads)
    samples = result.pop("samples")
    settings = load_settings(use_env=False).store
    report = {"config": {k: getattr(settings.neo4j, k.removeprefix("neo4j_")) for k in (
        "neo4j_connection_timeout", "neo4j_acquisition_timeout", "neo4j_max_retry_time",
        "neo4j_transient_retry_time", "neo4j_breaker_failures", "neo4j_breaker_cooldown",
        "neo4j_ping_timeout")}, **result,
        "not_503_while_down": sum(1 for s in samples if s["status"] != 503)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
