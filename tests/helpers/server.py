"""A real ``python -m graphmem serve`` process (waitress) on a free port, for the tests where processes
are the point (several servers, signals, kill -9, the /ui pages)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from graphmem.client import GraphmemClient, GraphmemClientError
from harness.servers import MODEL_VARS, free_port

ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, data_dir: Path, log_path: Path, env_keys: str | None = None, *,
                 store: str = "sqlite", env: dict[str, str] | None = None, wait: bool = True):
        """``env`` adds variables (e.g. ``GRAPHMEM_NEO4J_URI``) after the caller's GRAPHMEM_* are
        dropped; ``wait=False`` returns at once (start several, then ``wait_healthy`` each)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        extra = env
        env = {k: v for k, v in os.environ.items()      # the test model stays (tests/embedding_model.py)
               if not k.startswith("GRAPHMEM_") or k in MODEL_VARS}
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        if env_keys:
            env["GRAPHMEM_API_KEYS"] = env_keys
        env.update(extra or {})
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), "--store", store, "serve",
             "--port", str(self.port), "--threads", "4"], stdout=subprocess.DEVNULL, stderr=self.log, env=env,
            cwd=ROOT)
        if wait:
            self.wait_healthy()

    def wait_healthy(self, timeout: float = 60.0) -> None:
        probe = GraphmemClient(self.url, timeout=1.0)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited early:\n{self.log_path.read_text()}")
            try:
                if probe.health() == {"status": "ok"}:
                    return
            except GraphmemClientError:
                time.sleep(0.1)
        raise AssertionError("server did not become healthy")

    def stop(self, timeout: float = 30.0, signal_it: bool = True) -> int:
        if signal_it and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.log.close()

    def log_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]
