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

from graphmem.eval.metrics import percentile

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def command_line() -> str:
    """The command as a user would type it again: ``python -m bench.x ...`` for a module run."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    head = ["-m", spec.name] if spec is not None and spec.name else sys.argv[:1]
    return " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *head, *sys.argv[1:]])


def run_facts() -> dict[str, Any]:
    """Command line, commit (and whether the tree was dirty), cores, load average, versions."""
    return {
        "command": command_line(),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
                    "platform": platform.platform(), "python": platform.python_version()},
    }


def pct(values: Sequence[float], q: float, ndigits: int | None = None) -> float:
    """The project's one percentile rule (``graphmem.eval.metrics.percentile``), q in [0, 1]."""
    value = percentile(values, q * 100.0)
    return value if ndigits is None else round(value, ndigits)


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
