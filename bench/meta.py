"""The one result writer of the benches, and the run facts every saved result carries.

Why: a figure means little without the code and machine that made it, and this machine is
shared, so the load average at the start says how quiet the run was. ``write_result`` saves a
report with one provenance schema (``provenance()``: command, commit, date, load average,
machine), one percentile rule (``pct``, from ``harness.stats``) and one key style for latencies
(``p50_ms``, ``p95_ms``, ``max_ms``: a ``*_s`` percentile is saved in milliseconds).
``run_facts`` and ``save_report`` are the older pair, still used by the scale benches and
``floor.py`` until they move to ``write_result``.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from graphmem.eval.provenance import config_sha256, sha256_file
from harness import ROOT
from harness.stats import pct

__all__ = ["ROOT", "command_line", "commit_of", "latency_summary", "pct", "provenance", "run_facts", "save_report",
           "summarize_runs", "time_calls", "write_result"]


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


def dirty() -> bool:
    """Whether tracked files differ from the commit, outside bench/results (a long run rewrites its
    own report there while it runs)."""
    return bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/results"))


def run_facts() -> dict[str, Any]:
    """Command line, commit (and whether the tree was dirty), cores, load average, versions."""
    return {
        "command": command_line(),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": dirty(),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
                    "platform": platform.platform(), "python": platform.python_version()},
    }


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


def provenance(inputs: Sequence[str | Path] = (), config: Any = None) -> dict[str, Any]:
    """The one provenance schema of a saved result: the command to run it again, the commit (and
    whether the tree had changes), the UTC date, the load average at the start and the machine;
    with the SHA-256 of each input file and of the effective settings when a quality bench names them."""
    out: dict[str, Any] = {
        "command": command_line(),
        "commit": _git("rev-parse", "HEAD"),
        "dirty": dirty(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "machine": {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
    }
    if inputs:
        out["data_sha256"] = {str(p): sha256_file(Path(p)) for p in inputs}
    if config is not None:
        out["config_sha256"] = config_sha256(config)
    return out


_SECONDS_KEY = re.compile(r"^(p\d+|max|min|mean|median)_s$")


def _key_style(value: Any) -> Any:
    """Latency figures in one style: ``p50_s: 0.5`` is saved as ``p50_ms: 500.0``; NaN and infinity refused."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, str) and _SECONDS_KEY.match(key) and isinstance(item, int | float) \
                    and not isinstance(item, bool):
                out[key[:-2] + "_ms"] = round(item * 1000.0, 3)
            else:
                out[key] = _key_style(item)
        return out
    if isinstance(value, list | tuple):
        return [_key_style(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("a result holds a non-finite number: fix the bench, not the JSON")
    return value


def commit_of(report: dict[str, Any]) -> str | None:
    """The commit a saved report ran at: ``provenance.commit`` (this writer's), or
    ``provenance.git.commit`` (``graphmem eval``'s reports and older bench results)."""
    prov = report.get("provenance") or {}
    return prov.get("commit") or (prov.get("git") or {}).get("commit")


def write_result(out: str | Path, report: dict[str, Any], *, inputs: Sequence[str | Path] = (),
                 config: Any = None, started: dict[str, Any] | None = None) -> dict[str, Any]:
    """Saves ``report`` as indented JSON to ``out`` (folder made if missing) under ``provenance``
    (``started``: one taken when the run began, so its load average is the start's). Returns what was saved."""
    saved = {"provenance": started or provenance(inputs, config), **_key_style(report)}
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(saved, indent=2, allow_nan=False) + "\n")
    return saved
