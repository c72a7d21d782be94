"""What a saved bench result needs to be checked: the command that made it, the commit, the machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def provenance() -> dict:
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                    capture_output=True, text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = "unknown", True
    return {"command": " ".join([Path(sys.executable).name, *sys.argv]), "commit": commit, "dirty": dirty,
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpus": os.cpu_count(),
            "note": "shared 2-core machine; other jobs ran concurrently, so figures are noisy"}
