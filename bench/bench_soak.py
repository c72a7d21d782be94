"""A bounded concurrency soak over HTTP on loopback: writers, readers and deleters
against a real ``graphmem serve`` process, then every acknowledged write is verified.

The scenario lives in ``harness/faults/soak.py`` (the tests run it too); this runs it at full length and
saves its figures with ``bench.meta.write_result``. Also ``python -m bench soak``.

    python -m bench.bench_soak [--seconds 30] [--out bench/results/soak.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from bench.meta import write_result
from harness.faults.soak import run_soak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--out", default="bench/results/soak.json")
    args = parser.parse_args()
    from tests.api.test_api_server import Server
    from tests.reliability.test_soak import check_data_dir

    with tempfile.TemporaryDirectory(prefix="graphmem-soak-") as tmp:
        server = Server(Path(tmp) / "data", Path(tmp) / "server.log")
        try:
            report = run_soak(server.url, args.seconds)
        finally:
            report_exit = server.stop()
        report.update(server_exit=report_exit, check=check_data_dir(Path(tmp) / "data"))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
