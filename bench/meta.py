"""Run facts every saved bench result carries: command, git commit, machine, load.

Why: a figure means little without the code and machine that made it, and this machine is
shared, so the load average at the start says how quiet the run was.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_facts() -> dict[str, Any]:
    """Command line, commit (and whether the tree was dirty), cores, load average, versions."""
    return {
        "command": " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv]),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
                    "platform": platform.platform(), "python": platform.python_version()},
    }


def pct(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 1])."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summarize_runs(per_run: list[dict[str, float]]) -> dict[str, Any]:
    """Median and spread (min, max) of each figure over repeated runs."""
    keys = per_run[0].keys()
    return {k: {"median": round(statistics.median(r[k] for r in per_run), 3),
                "min": round(min(r[k] for r in per_run), 3), "max": round(max(r[k] for r in per_run), 3)}
            for k in keys}


def time_calls(fn: Callable[[str], object], items: Sequence[str]) -> list[float]:
    """Milliseconds of fn(item) for each item."""
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def latency_summary(ms: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": round(pct(ms, 0.5), 3), "p95_ms": round(pct(ms, 0.95), 3)}


def save_report(out: str | Path, report: dict[str, Any]) -> None:
    """Writes ``report`` as indented JSON to ``out`` (its folder made if missing)."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
