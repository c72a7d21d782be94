"""The README's recipes, run as written: each code block after a ``<!-- recipe: NAME -->`` marker
is extracted and run by bash against a real server (curl: ``graphmem serve`` on a free port, the
block's ``localhost:8080`` pointed at it; Neo4j: the test's server, which ``neo4j-local start``
reuses).

The CLI, curl and library recipes run from folders outside the clone, with graphmem installed the
way ``make setup`` installs it (the Makefile's own editable-install line, into a fresh venv that sees
the shared venv's third-party packages through one ``.pth`` line) and no PYTHONPATH. Each of those
folders holds an empty ``graphmem/`` folder, as a clone's parent does. They share the per-user default
store (XDG_DATA_HOME points into the test's tmp dir): what one adds, the others find."""

from __future__ import annotations

import json
import os
import shlex
import site
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from harness.servers import free_port
from tests.helpers.cli import import_counts
from tests.helpers.readme import recipe
from tests.neo4j_server import open_store, require_neo4j, server_env

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first

ROOT = Path(__file__).resolve().parents[1]
SHELL_PRELUDE = f'set -euo pipefail\ngraphmem() {{ "{sys.executable}" -m graphmem "$@"; }}\n'
README_RANKING = ["deploy-billing", "billing-secrets"]     # what a reader of the example expects


def run_bash(script: str, env: dict[str, str], cwd: Path = ROOT, prelude: str = SHELL_PRELUDE) -> str:
    proc = subprocess.run(["bash", "-c", prelude + script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"{script}\nstdout: {proc.stdout[-3000:]}\nstderr: {proc.stderr[-3000:]}"
    return proc.stdout


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()      # the test model stays (tests/embedding_model.py)
           if not k.startswith("GRAPHMEM_") or k.startswith("GRAPHMEM_NEO4J")
           or k in ("GRAPHMEM_MODEL", "GRAPHMEM_MODEL_SPIN_WAIT")}
    return {**env, "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), **extra}


def makefile_install_line() -> list[str]:
    """The pip arguments of the Makefile's editable install of graphmem itself (after ``$(PY) -m pip``)."""
    lines = [line.strip() for line in (ROOT / "Makefile").read_text().splitlines()
             if line.strip().startswith("$(PY) -m pip install") and line.rstrip().endswith("-e .")]
    assert len(lines) == 1, "make setup installs graphmem editable, in one line"
    return shlex.split(lines[0].removeprefix("$(PY) -m pip "))


@pytest.fixture(scope="module")
def setup_venv(tmp_path_factory) -> Path:
    """A fresh venv with graphmem installed by the Makefile's line: its bin dir."""
    venv = tmp_path_factory.mktemp("setup") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "shared-venv.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), *makefile_install_line()],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return venv / "bin"


def outside_env(setup_venv: Path, tmp_path: Path) -> dict[str, str]:
    """No PYTHONPATH, the setup venv's bin first on PATH, the per-user store under ``tmp_path``."""
    env = {k: v for k, v in clean_env().items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PATH": f"{setup_venv}{os.pathsep}{env['PATH']}", "XDG_DATA_HOME": str(tmp_path / "xdg"),
            "COLUMNS": "200"}


def outside_folder(tmp_path: Path, name: str) -> Path:
    """A folder outside the clone holding an empty ``graphmem/`` (as the clone's parent does)."""
    folder = tmp_path / name
    (folder / "graphmem").mkdir(parents=True)
    return folder


def test_make_setup_installs_graphmem_for_any_folder(setup_venv, tmp_path):
    folder = outside_folder(tmp_path, "elsewhere")
    env = outside_env(setup_venv, tmp_path)
    out = subprocess.run([str(setup_venv / "python"), "-c", "import graphmem; print(graphmem.__file__, "
                          "callable(graphmem.open))"], cwd=folder, env=env, capture_output=True, text=True)
    assert out.stdout.split() == [str(ROOT / "graphmem" / "__init__.py"), "True"], out.stdout + out.stderr
    version = subprocess.run(["graphmem", "--version"], cwd=folder, env=env, capture_output=True, text=True)
    assert version.returncode == 0 and "0.1.0" in version.stdout, version.stderr


def test_cli_recipe_from_outside_the_clone_shares_the_per_user_store(setup_venv, tmp_path):
    block = recipe("cli")
    assert "--data-dir" not in block and "/tmp/" not in block, "the recipe uses the default store"
    env = outside_env(setup_venv, tmp_path)
    proc = subprocess.run(["bash", "-c", "set -euo pipefail\n" + block], cwd=outside_folder(tmp_path, "a"),
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    store = tmp_path / "xdg" / "graphmem"
    assert f"graphmem: store sqlite {store} (per-user default)" in proc.stderr
    search = proc.stdout[proc.stdout.index("search: how do I ship billing?"):]
    assert search.index("deploy-billing") < search.index("billing-secrets"), search
    assert "penalised" not in search, "the README's memories carry a category and a source"
    info = subprocess.run(["graphmem", "info", "--json"], cwd=outside_folder(tmp_path, "b"), env=env,
                          capture_output=True, text=True, timeout=300)
    report = json.loads(info.stdout)
    assert (report["data_dir"], report["memories"]) == (str(store), 2), "another folder, the same store"
    assert not (tmp_path / "a" / "data").exists() and not (tmp_path / "b" / "data").exists()


def test_curl_recipe_creates_searches_and_gets(setup_venv, tmp_path):
    block = recipe("curl")
    assert block.count("curl -sS --fail-with-body ") == 4 and "curl -sf" not in block
    env = outside_env(setup_venv, tmp_path)
    port = free_port()
    proc = subprocess.Popen(["graphmem", "serve", "--port", str(port)], cwd=outside_folder(tmp_path, "server"),
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = _wait_ready(proc, port)
        out = run_bash(block.replace("localhost:8080", url.removeprefix("http://")), env,
                       cwd=outside_folder(tmp_path, "client"), prelude="set -euo pipefail\n")
        created, side, searched, got = (json.loads(doc) for doc in _json_documents(out))
        assert (created["status"], created["id"], side["status"]) == ("created", "deploy-billing", "created")
        assert [r["memory"]["id"] for r in searched["results"]] == README_RANKING, "ranks as a reader expects"
        for result in searched["results"]:
            assert not result["why"]["health"]["penalties"] and result["why"]["source"]["weight"] == 1.0
        assert got["id"] == "deploy-billing" and got["tags"] == ["billing", "deploy"]
        # the recipe's curl flags show an error's body (and still fail): here a 409 naming PATCH
        flags = block.split(" localhost:8080", 1)[0]
        conflict = subprocess.run(["bash", "-c", f"{flags} {url}/v1/memories -H 'Content-Type: application/json' "
                                   """-d '{"id": "deploy-billing", "content": "Something else."}'"""],
                                  env=env, capture_output=True, text=True, timeout=60)
        assert conflict.returncode == 22, conflict
        error = json.loads(conflict.stdout)["error"]
        assert error["code"] == "conflict" and "PATCH /v1/memories/deploy-billing" in error["message"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log = proc.stderr.read().decode()
        proc.stderr.close()
    serving = next(json.loads(line) for line in log.splitlines() if '"serving"' in line)
    assert (serving["store"], serving["data_dir"]) == ("sqlite", str(tmp_path / "xdg" / "graphmem"))


def test_library_recipe_adds_and_finds(setup_venv, tmp_path):
    """The library quick start, run as written from a folder outside the clone, on the per-user store."""
    block = recipe("library", "python")
    assert block.startswith("import graphmem\n") and "graphmem.open()" in block
    proc = subprocess.run([str(setup_venv / "python"), "-c", block], cwd=outside_folder(tmp_path, "lib"),
                          env=outside_env(setup_venv, tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().replace("'", '"'))
    assert found == README_RANKING, found
    assert (tmp_path / "xdg" / "graphmem" / "graphmem.sqlite").is_file()


def test_mcp_recipe_runs_the_installed_command_on_the_default_store():
    block = recipe("mcp")
    assert "--data-dir" not in block and "PYTHONPATH" not in block
    command = shlex.split(block)[shlex.split(block).index("--") + 1:]
    assert command == ["/path/to/graphmem/.venv/bin/graphmem", "mcp"], "the command make setup installs"


def test_getting_started_repeats_the_readme_recipes():
    """docs/getting-started.md shows the same recipes (one text, tested here)."""
    guide = ROOT / "docs" / "getting-started.md"
    for name, language in (("wheel", "bash"), ("cli", "bash"), ("curl", "bash"), ("neo4j", "bash")):
        assert recipe(name, language, guide) == recipe(name, language), name
    assert "curl -sf" not in guide.read_text() and "--data-dir /tmp" not in guide.read_text()


@pytest.mark.neo4j
def test_neo4j_recipe_imports_and_searches(tmp_path):
    require_neo4j()
    block = recipe("neo4j")
    assert len(block.splitlines()) == 3
    store = open_store()
    try:
        store.drop_namespace("default")     # the recipe writes the default namespace of the test server
        bounds = server_env(tmp_path)["GRAPHMEM_CONFIG"]     # the shared test server's bounds
        out = run_bash(block, clean_env(COLUMNS="220", GRAPHMEM_CONFIG=bounds))  # rich wraps ids in a narrow table
        assert import_counts(out) == {"created": 15, "duplicate": 0, "rejected": 0}, out[-3000:]
        assert "skill-deploy-billing" in out and "direct: vector #" in out, out[-3000:]
        assert "skill-deploy-billing" in store.get_memories("default", ["skill-deploy-billing"]), "to this Neo4j"
    finally:
        store.drop_namespace("default")
        store.close()


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
