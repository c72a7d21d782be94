"""A hung Neo4j (alive, accepting connections, not answering: SIGSTOP) under real servers.

The scenario lives in ``harness/faults/hung_neo4j.py`` (the tests run it too); this runs it at full length and
saves its figures with ``bench.meta.write_result``. Also ``python -m bench hung-neo4j``.

    python -m bench.bench_hung_neo4j [--frozen 14] [--out bench/results/hung_neo4j.json]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.meta import write_result
from harness.faults.hung_neo4j import (
    run_hung,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frozen", type=float, default=14.0, help="seconds Neo4j stays stopped (SIGSTOP)")
    ap.add_argument("--searchers", type=int, default=2, help="searching clients per interface")
    ap.add_argument("--out", default="bench/results/hung_neo4j.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="graphmem-hung-") as tmp:
        result = run_hung(Path(tmp), args.frozen, args.searchers)
    write_result(args.out, {**result})
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
