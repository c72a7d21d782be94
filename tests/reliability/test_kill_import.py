"""kill -9 during imports: a ``graphmem import`` process is killed mid-batch a few
times; every memory a reader saw committed before the kill is still there, nothing is
half-written (``graphmem check`` clean after each kill), and re-running the import completes
the rest exactly once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.reliability.test_soak import check_data_dir

ROUNDS = 3
PER_ROUND = 100
ROOT = Path(__file__).resolve().parents[2]


def committed_ids(db_path: Path) -> set[str]:
    if not db_path.exists():
        return set()
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        return {r[0] for r in conn.execute("SELECT id FROM memories")}
    except sqlite3.OperationalError:            # schema not created yet
        return set()
    finally:
        conn.close()


def write_file(path: Path, start: int, n: int) -> list[str]:
    ids = [f"k{i:05d}" for i in range(start, start + n)]
    with open(path, "w", encoding="utf-8") as fh:
        for i, mid in enumerate(ids):
            fh.write(json.dumps({"id": mid, "content": f"Imported note {mid}: service {i % 13} uses queue "
                                 f"{i % 7} and stores backups every {i % 5 + 1} hours",
                                 "tags": [f"svc-{i % 13}", "import"], "category": f"team-{i % 4}"}) + "\n")
    return ids


def import_proc(data_dir: Path, path: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), "import", str(path),
                             "--batch-size", "20"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            cwd=ROOT)


def test_kill_9_mid_import_loses_nothing_acknowledged(tmp_path, embedder):
    data_dir = tmp_path / "data"
    db_path = data_dir / "graphmem.sqlite"
    all_ids: list[str] = []
    files = []
    for r in range(ROUNDS):
        path = tmp_path / f"round{r}.jsonl"
        all_ids += write_file(path, r * PER_ROUND, PER_ROUND)
        files.append(path)
        before = committed_ids(db_path)
        proc = import_proc(data_dir, path)
        seen: set[str] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            seen = committed_ids(db_path)           # what was acknowledged as committed
            if len(seen) >= len(before) + 20 + 10 * r:
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"import ended before the kill: {proc.stderr.read().decode()[-2000:]}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        after = committed_ids(db_path)
        assert seen <= after, f"acknowledged memories lost: {sorted(seen - after)[:5]}"
        assert len(after) < len(before) + PER_ROUND, "the kill came too late to be mid-import"
        checked = check_data_dir(data_dir)
        assert checked["ok"], checked["problems"]
    everything = tmp_path / "all.jsonl"             # the idempotent re-run completes the rest
    everything.write_text("".join(path.read_text() for path in files))
    args = [sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), "import", str(everything)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    final = committed_ids(db_path)
    assert final == set(all_ids)
    checked = check_data_dir(data_dir)
    assert checked["ok"], checked["problems"]
