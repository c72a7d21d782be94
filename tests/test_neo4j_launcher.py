"""Smoke test of the real Neo4j server that graphmem's Neo4j store relies on.

Checks the features the store needs: server version, a 384-d cosine vector index with
``db.index.vector.queryNodes``, a full-text index with the 'whitespace' analyzer with
``db.index.fulltext.queryNodes``, and CALL subqueries. Everything lives under a throwaway
label and index names and is dropped afterwards.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.neo4j_server import neo4j_auth, neo4j_database

pytestmark = pytest.mark.neo4j

DIM = 384


@pytest.fixture(scope="module")
def session(neo4j_uri) -> Iterator[object]:
    uri = neo4j_uri
    neo4j = pytest.importorskip("neo4j")
    driver = neo4j.GraphDatabase.driver(uri, auth=neo4j_auth())
    try:
        driver.verify_connectivity()
        with driver.session(database=neo4j_database()) as s:
            yield s
    finally:
        driver.close()


@pytest.fixture()
def scratch(session) -> Iterator[dict[str, str]]:
    """A unique label and index names; nodes and indexes are removed afterwards."""
    tag = uuid.uuid4().hex[:10]
    names = {"label": f"GmLauncherSmoke_{tag}", "vec": f"gm_smoke_vec_{tag}", "ft": f"gm_smoke_ft_{tag}"}
    try:
        yield names
    finally:
        session.run(f"DROP INDEX {names['vec']} IF EXISTS").consume()
        session.run(f"DROP INDEX {names['ft']} IF EXISTS").consume()
        session.run(f"MATCH (n:{names['label']}) DETACH DELETE n").consume()


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def test_server_version(session):
    rows = session.run(
        "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
    ).data()
    kernel = next(r for r in rows if r["name"] == "Neo4j Kernel")
    version = kernel["versions"][0]
    major_minor = _version_tuple(version)[:2]
    # The store needs 2026.01+ (vector search filtered inside the index, Cypher 25).
    assert major_minor >= (2026, 1), f"Neo4j {version} is too old (need 2026.01+)"
    assert kernel["edition"] in {"community", "enterprise"}


def test_vector_index_create_query_drop(session, scratch):
    label, index = scratch["label"], scratch["vec"]
    session.run(
        f"CREATE VECTOR INDEX {index} IF NOT EXISTS FOR (n:{label}) ON n.embedding "
        "OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}",
        dim=DIM,
    ).consume()
    session.run("CALL db.awaitIndexes(120)").consume()
    info = session.run(
        "SHOW VECTOR INDEXES YIELD name, state, options WHERE name = $name RETURN state, options", name=index
    ).single()
    assert info is not None and info["state"] == "ONLINE"
    assert info["options"]["indexConfig"]["vector.dimensions"] == DIM

    def unit(i: int) -> list[float]:
        return [1.0 if j == i else 0.01 for j in range(DIM)]

    session.run(
        f"UNWIND $rows AS row CREATE (n:{label} {{i: row.i, embedding: row.v}})",
        rows=[{"i": i, "v": unit(i)} for i in range(5)],
    ).consume()
    hits = session.run(
        "CALL db.index.vector.queryNodes($index, 3, $q) YIELD node, score RETURN node.i AS i, score",
        index=index,
        q=unit(3),
    ).data()
    assert len(hits) == 3
    assert hits[0]["i"] == 3
    assert hits[0]["score"] > 0.99  # cosine score, mapped to [0, 1]
    assert hits[0]["score"] >= hits[1]["score"] >= hits[2]["score"]

    session.run(f"DROP INDEX {index}").consume()
    assert session.run("SHOW INDEXES YIELD name WHERE name = $name RETURN name", name=index).single() is None


def test_fulltext_whitespace_index_create_query_drop(session, scratch):
    label, index = scratch["label"], scratch["ft"]
    session.run(
        f"CREATE FULLTEXT INDEX {index} IF NOT EXISTS FOR (n:{label}) ON EACH [n.content] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}"
    ).consume()
    session.run("CALL db.awaitIndexes(120)").consume()
    info = session.run(
        "SHOW FULLTEXT INDEXES YIELD name, state, options WHERE name = $name RETURN state, options", name=index
    ).single()
    assert info is not None and info["state"] == "ONLINE"
    assert info["options"]["indexConfig"]["fulltext.analyzer"] == "whitespace"

    session.run(
        f"UNWIND $rows AS row CREATE (:{label} {{i: row.i, content: row.c}})",
        rows=[
            {"i": 0, "c": "deploy graph-mem today"},
            {"i": 1, "c": "graphs, databases and mem stores"},
            {"i": 2, "c": "unrelated text"},
        ],
    ).consume()

    def query(q: str) -> list[int]:
        return [
            r["i"]
            for r in session.run(
                "CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score RETURN node.i AS i",
                index=index,
                q=q,
            )
        ]

    # The whitespace analyzer keeps 'graph-mem' as one token: 'graph' alone does not match it,
    # while the standard analyzer would split it and match both nodes.
    assert query("graph") == []
    assert query("graph-mem") == [0]
    assert sorted(query("databases OR unrelated")) == [1, 2]

    session.run(f"DROP INDEX {index}").consume()
    assert session.run("SHOW INDEXES YIELD name WHERE name = $name RETURN name", name=index).single() is None


def test_call_subqueries(session, scratch):
    label = scratch["label"]
    session.run(f"UNWIND range(1, 4) AS i CREATE (:{label} {{i: i}})").consume()
    # Scoped CALL subquery (5.23+ syntax; the importing-WITH form is deprecated in 2025.x).
    row = session.run(
        f"MATCH (n:{label}) CALL (n) {{ RETURN n.i * 10 AS d }} RETURN sum(d) AS total, count(*) AS c"
    ).single()
    assert (row["total"], row["c"]) == (100, 4)
    # Unit subquery that writes, and a UNION inside CALL.
    session.run(f"MATCH (n:{label}) WHERE n.i = 1 CALL (n) {{ SET n.flag = true }}").consume()
    row = session.run(
        f"CALL () {{ MATCH (n:{label} {{flag: true}}) RETURN n.i AS i "
        f"UNION MATCH (n:{label}) WHERE n.i = 4 RETURN n.i AS i }} RETURN collect(i) AS ids"
    ).single()
    assert sorted(row["ids"]) == [1, 4]


# -- the launcher itself (docker/neo4j-local/neo4j_local.py) -------------------------------------
LAUNCHER_DIR = Path(__file__).resolve().parents[1] / "docker" / "neo4j-local"


def _launcher():
    spec = importlib.util.spec_from_file_location("neo4j_local", LAUNCHER_DIR / "neo4j_local.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_jdk(root: Path, name: str, version: str) -> Path:
    home = root / name
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "javac").write_text("#!/bin/sh\n")
    (home / "release").write_text(f'IMPLEMENTOR="x"\nJAVA_VERSION="{version}"\n')
    return home


def test_launcher_picks_a_jdk_21_or_newer(tmp_path, monkeypatch):
    launcher = _launcher()
    old, new = _fake_jdk(tmp_path, "jdk17", "17.0.15"), _fake_jdk(tmp_path, "jdk25", "25.0.3")
    assert (launcher.jdk_major(old), launcher.jdk_major(new), launcher.jdk_major(tmp_path)) == (17, 25, None)
    monkeypatch.delenv("NEO4J_LOCAL_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(new))
    assert launcher.find_jdk() == new
    monkeypatch.setenv("NEO4J_LOCAL_JAVA_HOME", str(old))
    with pytest.raises(launcher.LauncherError, match="not a JDK >= 21"):
        launcher.find_jdk()


@pytest.mark.skipif(not os.environ.get("NEO4J_LOCAL_RUN_DIR"), reason="the server was not started by the launcher")
def test_launcher_reports_the_server_it_started(neo4j_uri):
    """tests/run.sh started the server with the launcher (its run dir is in the environment)."""
    script = LAUNCHER_DIR / "neo4j-local"
    status = subprocess.run([str(script), "status"], capture_output=True, text=True, timeout=60)
    assert status.returncode == 0 and f"uri={neo4j_uri}" in status.stdout, status
    env = subprocess.run([str(script), "env", "--plain"], capture_output=True, text=True, timeout=60)
    assert env.returncode == 0 and env.stdout.strip() == f"GRAPHMEM_NEO4J_URI={neo4j_uri}"
