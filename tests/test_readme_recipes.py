"""The README's recipes, run as written: each code block after a ``<!-- recipe: NAME -->`` marker
is extracted and run by bash against a real server (curl: ``graphmem serve`` on a free port, the
block's ``localhost:8080`` pointed at it; Neo4j: the test's server, which ``neo4j-local start``
reuses)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.neo4j_server import open_store, require_neo4j

ROOT = Path(__file__).resolve().parents[1]
SHELL_PRELUDE = f'set -euo pipefail\ngraphmem() {{ "{sys.executable}" -m graphmem "$@"; }}\n'


def recipe(name: str, language: str = "bash") -> str:
    text = (ROOT / "README.md").read_text()
    found = re.search(rf"<!-- recipe: {name} -->\n```{language}\n(.*?)\n```", text, re.S)
    assert found, f"README.md has no ```{language} block after <!-- recipe: {name} -->"
    return found.group(1)


def run_bash(script: str, env: dict[str, str], cwd: Path = ROOT) -> str:
    proc = subprocess.run(["bash", "-c", SHELL_PRELUDE + script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"{script}\nstdout: {proc.stdout[-3000:]}\nstderr: {proc.stderr[-3000:]}"
    return proc.stdout


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()      # the test model stays (tests/embedding_model.py)
           if not k.startswith("GRAPHMEM_") or k.startswith("GRAPHMEM_NEO4J") or k == "GRAPHMEM_MODEL"}
    return {**env, "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), **extra}


def test_curl_recipe_creates_searches_and_gets(tmp_path):
    block = recipe("curl")
    assert len(block.splitlines()) == 5 and block.count("curl ") == 3
    env = clean_env(GRAPHMEM_STORE="sqlite")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "graphmem", "--data-dir", str(tmp_path / "data"), "serve",
                             "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = _wait_ready(proc, port)
        out = run_bash(block.replace("localhost:8080", url.removeprefix("http://")), env)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()
    created, searched, got = (json.loads(doc) for doc in _json_documents(out))
    assert (created["status"], created["id"]) == ("created", "deploy-billing")
    top = searched["results"][0]
    assert top["memory"]["id"] == "deploy-billing" and top["why"], "explain gives each result its why"
    assert got["id"] == "deploy-billing" and got["tags"] == ["billing", "deploy"]


def test_library_recipe_adds_and_finds(tmp_path):
    """The library quick start, run as written (its data dir pointed into the test's tmp dir)."""
    block = recipe("library", "python")
    assert block.startswith("import graphmem\n") and "graphmem.open(" in block
    script = block.replace("/tmp/gm-library", str(tmp_path / "gm"))
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=clean_env(GRAPHMEM_STORE="sqlite"),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().replace("'", '"'))
    assert found[0] == "deploy-billing" and len(found) == 2, found


@pytest.mark.neo4j
def test_neo4j_recipe_imports_and_searches(tmp_path):
    require_neo4j()
    block = recipe("neo4j")
    assert len(block.splitlines()) == 3
    store = open_store()
    try:
        store.drop_namespace("default")     # the recipe writes the default namespace of the test server
        out = run_bash(block, clean_env(COLUMNS="220"))       # rich wraps ids in a narrow table
        assert "15" in out and "skill-deploy-billing" in out and "direct: vector #" in out, out[-3000:]
        assert "skill-deploy-billing" in store.get_memories("default", ["skill-deploy-billing"]), "to this Neo4j"
    finally:
        store.drop_namespace("default")
        store.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_ready(proc: subprocess.Popen, port: int) -> str:
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"serve exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        try:
            if requests.get(f"{url}/readyz", timeout=1).status_code == 200:
                return url
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise TimeoutError("graphmem serve did not become ready")


def _json_documents(text: str) -> list[str]:
    """Concatenated JSON documents (curl prints each body without a newline between them)."""
    decoder, docs, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        _, end = decoder.raw_decode(text, i)
        docs.append(text[i:end])
        i = end
    return docs
