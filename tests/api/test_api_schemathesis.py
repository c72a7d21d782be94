"""Schemathesis against the real server, as a new user would run it: the OpenAPI document from
``/openapi.json``, every check (server errors, status codes, content types, response schemas,
negative data rejected, positive data accepted, auth, Allow headers), bounded in time. Cases are
sent as generated. Positive data is checked by ``positive_data_accepted`` (schemathesis_hooks.py):
the built-in check, which also accepts the one 422 the document states beyond JSON Schema (an
evidence quote not found in its source text, ``evidence_rejected``).

The server runs with an API key, so the auth checks mean something. Hypothesis's ``too_slow``
health check is off: it times the generation of bodies (the batch body is large), which a loaded
2-core machine makes slow without saying anything about the API. ``filter_too_much`` is off too:
the recursive ``JsonValue`` of a PATCH body's metadata sometimes has hypothesis discard many drafts
in the fuzzing phase (seen on a loaded machine, not alone); it measures generation, not the API,
and every check still runs on every case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.server import Server

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first

HERE = Path(__file__).resolve().parent
KEY = "st-secret-123"
MAX_EXAMPLES = "10"      # per operation and phase: about a minute on a quiet machine, every operation and check


def test_schemathesis_finds_no_failure(tmp_path):
    srv = Server(tmp_path / "data", tmp_path / "server.log", env_keys=f"st:{KEY}:default")
    try:
        with urllib.request.urlopen(f"{srv.url}/openapi.json", timeout=30) as got:
            paths = json.load(got)["paths"]
        # Schemathesis tests every operation but the one serving the schema it loaded (/openapi.json)
        operations = sum(len(item) for path, item in paths.items() if path != "/openapi.json")
        env = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
               "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        run = subprocess.run(
            [str(Path(sys.executable).with_name("schemathesis")), "run", f"{srv.url}/openapi.json",
             "-H", f"Authorization: Bearer {KEY}", "--checks", "all",
             "--exclude-checks", "positive_data_acceptance", "--phases", "examples,coverage,fuzzing",
             "--max-examples", MAX_EXAMPLES, "--seed", "1", "--workers", "1", "--continue-on-failure",
             "--generation-database", "none", "--request-timeout", "30", "--no-color",
             "--suppress-health-check", "too_slow,filter_too_much"],
            capture_output=True, text=True, timeout=540, env=env, cwd=tmp_path)
    finally:
        srv.stop()
    out = run.stdout + run.stderr
    (tmp_path / "schemathesis.txt").write_text(out)
    if os.environ.get("GRAPHMEM_SCHEMATHESIS_OUT"):          # bench/results/schemathesis-after.txt
        Path(os.environ["GRAPHMEM_SCHEMATHESIS_OUT"]).write_text(out)
    assert operations >= 15 and f"Tested: {operations}" in out, out[-3000:]
    assert run.returncode == 0, out[-6000:]
