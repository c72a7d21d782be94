"""Slow clients against real servers: ``slow`` connections each to ``graphmem serve`` and to
``graphmem mcp --http`` send a request's headers, then its body one byte at a time, while a normal
client probes ``/healthz`` and searches (HTTP and the MCP ``search_memories`` tool) with unique
queries. Before the connection bounds, 110 such connections kept waitress at its connection limit
and every other client waited in the backlog.

The scenario lives in ``harness/faults/slow_clients.py`` (the tests run it too); this runs it at full length and
saves its figures with ``bench.meta.write_result``. Also ``python -m bench slow-clients``.

    python -m bench.bench_slow_clients [--slow 200] [--seconds 10] [--request-timeout 5]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.meta import write_result
from harness.faults.slow_clients import run_slow_clients


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--slow", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--request-timeout", type=float, default=5.0,
                    help="[api]/[mcp] request_timeout for the run; 0 keeps the defaults (and older releases)")
    ap.add_argument("--out", default="bench/results/slow_clients.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="graphmem-slow-") as tmp:
        result = run_slow_clients(Path(tmp), args.slow, args.seconds, args.request_timeout or None)
    write_result(args.out, {**result})
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
