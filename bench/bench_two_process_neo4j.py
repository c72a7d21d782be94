"""Two ``graphmem serve`` processes and ``graphmem import`` jobs on one Neo4j, racing on the same ids.

The scenario lives in ``harness/faults/two_process_neo4j.py`` (the tests run it too); this runs it at
full length and saves its figures with ``bench.meta.write_result``. Also ``python -m bench two-process-neo4j``.

    python -m bench.bench_two_process_neo4j [--rounds 5] [--ids 16] [--import-ids 60] \
        [--out bench/results/two_process_race_neo4j.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench.meta import write_result
from harness.faults.two_process_neo4j import (
    check_namespace,
    drop_race_namespace,
    neo4j_env,
    race,
    start_servers,
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ids", type=int, default=16)
    parser.add_argument("--import-ids", type=int, default=60)
    parser.add_argument("--out", default="bench/results/two_process_race_neo4j.json")
    parser.add_argument("--note", default="", help="Saved with the figures (e.g. which code ran).")
    args = parser.parse_args()
    drop_race_namespace()
    with tempfile.TemporaryDirectory(prefix="graphmem-race-neo4j-") as tmp_dir:
        tmp = Path(tmp_dir)
        started = time.monotonic()
        servers = []
        try:
            servers = start_servers(tmp)
            report = race([s.url for s in servers], args.rounds, args.ids, tmp, args.import_ids)
        finally:
            exits = [srv.stop() for srv in servers]
        report.update(seconds=round(time.monotonic() - started, 1), server_exits=exits,
                      check=check_namespace(neo4j_env(tmp)))
        if args.note:
            report["note"] = args.note
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
