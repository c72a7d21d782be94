"""What a report was made from: the git commit, the data files' and the config's sha256.

Why: a figure is only worth quoting when it can be tied to the code and the data that made
it; the README tables are regenerated from reports whose commit is checked against HEAD.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from graphmem.embedding.prepare import sha256_file

ROOT = Path(__file__).resolve().parents[2]


def git_state(root: Path = ROOT) -> dict[str, Any]:
    """HEAD commit and whether tracked files differ from it (None outside a git checkout)."""
    def run(*args: str) -> str | None:
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  check=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    status = run("status", "--porcelain", "--untracked-files=no")
    return {"commit": run("rev-parse", "HEAD"), "dirty": bool(status) if status is not None else None}


def config_sha256(effective: Any) -> str:
    """sha256 of the effective settings as canonical JSON (sorted keys)."""
    blob = json.dumps(effective, sort_keys=True, default=str, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def provenance(files: list[Path], effective_config: Any, command: str) -> dict[str, Any]:
    return {"command": command, "git": git_state(),
            "data_sha256": {str(p): sha256_file(Path(p)) for p in files},
            "config_sha256": config_sha256(effective_config)}
