"""Two ``graphmem serve`` processes and a ``graphmem import`` on one data dir, racing on the same ids.

The scenario lives in ``harness/faults/two_process.py`` (the tests run it too); this runs it at full length and
saves its figures with ``bench.meta.write_result``. Also ``python -m bench two-process``.

    python -m bench.bench_two_process [--rounds 5] [--ids 16] [--out bench/results/two_process_race.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench.meta import write_result
from harness.faults.two_process import (
    check_data_dir,
    child_env,
    race,
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ids", type=int, default=16)
    parser.add_argument("--out", default="bench/results/two_process_race.json")
    parser.add_argument("--note", default="", help="Saved with the figures (e.g. which code ran).")
    args = parser.parse_args()
    from tests.api.test_api_server import Server

    with tempfile.TemporaryDirectory(prefix="graphmem-race-") as tmp_dir:
        tmp = Path(tmp_dir)
        servers = [Server(tmp / "data", tmp / f"server-{n}.log", wait=False) for n in ("a", "b")]
        started = time.monotonic()
        try:
            for srv in servers:
                srv.wait_healthy(timeout=120)
            report = race([s.url for s in servers], tmp / "data", args.rounds, args.ids, tmp)
        finally:
            exits = [srv.stop() for srv in servers]
        report.update(seconds=round(time.monotonic() - started, 1), server_exits=exits,
                      check=check_data_dir(tmp / "data", child_env()))
        if args.note:
            report["note"] = args.note
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
