"""Two ``graphmem serve`` processes and ``graphmem import`` jobs on one Neo4j, racing on the same ids.

The scenario of ``bench_two_process.py`` (the SQLite data dir's), on a Neo4j database. Each round:
1. creates: an import of ids ``r<round>-<n>`` runs while both servers create the same ids, each
   process with its own content: at most one create per id may be acknowledged (201 / counted as
   created by the import), the others are refused with 409 ``conflict``;
2. delete against PATCH: server A deletes while B patches, at the same moment for half the ids and
   right after the acknowledged delete for the other half: an acknowledged delete stays deleted;
3. overlapping imports: two imports at once of the same ids, each with its own content, one in
   order and one in reverse order, a memory per transaction (so they meet in the middle): every
   line an import counts as created must hold that import's content at the end.

Afterwards the servers stop and ``graphmem --store neo4j check --namespace race`` (no repair) must
report no problem. ``tests/reliability/test_two_process_race_neo4j.py`` asserts on one short run;
as a script it runs ``--rounds`` rounds and saves the figures. Neo4j comes from the environment
(``GRAPHMEM_NEO4J_URI``, as the tests take it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from graphmem.client import GraphmemClient
from harness import ROOT
from harness.faults.two_process import (
    NS,
    TOPICS,
    Tally,
    content,
    create_phase,
    delete_then_patch,
    final_contents,
    lost_writes,
)
from harness.servers import child_env, store_config

SHOWN_REJECTIONS = 20      # `graphmem import` lists the first 20 rejections (then "... N more")
NEO4J_KEYS = ("GRAPHMEM_NEO4J_URI", "GRAPHMEM_NEO4J_USER", "GRAPHMEM_NEO4J_PASSWORD", "GRAPHMEM_NEO4J_DATABASE")


# The race counts lost writes, not waits: on a loaded machine (the parallel test run) a write queued
# behind an import's transaction may wait longer than the production bounds, and a 503 would end
# the run before the question is answered. The bounds have tests of their own.
RACE_BOUNDS = {"write_wait": 30.0, "neo4j_read_timeout": 30.0, "neo4j_write_timeout": 60.0}


def neo4j_settings(tmp: Path | None = None) -> dict[str, str]:
    """The Neo4j the caller names (environment), with the store kind: what every child process gets.
    With ``tmp``, the children also get the race's generous bounds (a config file written there)."""
    found = {key: os.environ[key] for key in NEO4J_KEYS if os.environ.get(key)}
    if "GRAPHMEM_NEO4J_URI" not in found:
        raise SystemExit("GRAPHMEM_NEO4J_URI is not set: start a Neo4j (docker/neo4j-local) and export it")
    if tmp is not None:
        found["GRAPHMEM_CONFIG"] = str(store_config(tmp / "race-bounds.toml", RACE_BOUNDS))
    return {"GRAPHMEM_STORE": "neo4j", **found}


def neo4j_env(tmp: Path | None = None) -> dict[str, str]:
    return child_env({"COLUMNS": "200", **neo4j_settings(tmp)})    # the import's summary lines unwrapped


class Importer:
    """A ``graphmem import`` process writing ``ids`` with ``writer``'s content."""

    def __init__(self, writer: str, ids: list[str], tmp: Path, env: dict[str, str], batch_size: int = 1) -> None:
        path = tmp / f"import-{writer}-{ids[0]}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "content": content(i, writer), "namespace": NS,
                                            "tags": ["race"]}) + "\n" for i in ids))
        self.writer, self.ids = writer, ids
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem", "import", str(path), "--batch-size", str(batch_size)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    def outcome(self) -> dict[str, Any]:
        out, err = self.proc.communicate(timeout=300)
        if self.proc.returncode != 0:
            return {"exit_code": self.proc.returncode, "error": err[-800:]}
        # The summary table: "created | duplicate | rejected" then one row of numbers.
        rows = [line.replace("│", " ").split() for line in out.splitlines()]
        created, duplicate, rejected = (int(p) for p in next(r for r in rows if r and all(p.isdigit() for p in r)))
        return {"exit_code": 0, "created": created, "duplicate": duplicate, "rejected": rejected,
                "conflicts": out.count(": conflict: ")}


def overlapping_imports(url: str, tag: str, n_ids: int, tmp: Path, env: dict[str, str]) -> dict[str, Any]:
    """Two imports at once of the same ids, in opposite orders; an import's acknowledged creates
    are lost when fewer ids hold its content at the end than it counted as created."""
    ids = [f"{tag}-{n}" for n in range(n_ids)]
    sides = {"imp1": ids, "imp2": ids[::-1]}
    importers = [Importer(writer, side, tmp, env) for writer, side in sides.items()]
    outcomes = {imp.writer: imp.outcome() for imp in importers}
    stored = final_contents(url, ids)
    lost, errors = 0, []
    for writer, outcome in outcomes.items():
        if outcome["exit_code"] != 0:
            errors.append(f"import {writer} exited {outcome['exit_code']}: {outcome['error']}")
            continue
        kept = sum(1 for i in sides[writer] if stored[i] == content(i, writer))
        lost += max(0, outcome["created"] - kept)
        other = min(outcome["rejected"], SHOWN_REJECTIONS) - outcome["conflicts"]
        if other:       # among the rejections the import lists
            errors.append(f"import {writer} rejected {other} lines for another reason than a conflict")
    missing = [i for i in ids if stored[i] is None]     # every id was created by one side or the other
    return {"ids": len(ids), "outcomes": outcomes, "acknowledged_writes_lost": lost, "ids_missing": missing,
            "errors": errors}


def race(urls: list[str], rounds: int, n_ids: int, tmp: Path, import_ids: int = 60) -> dict[str, Any]:
    """The race against running servers (Neo4j from the environment); the check is the caller's."""
    env = neo4j_env(tmp)
    statuses: Counter[str] = Counter()
    errors: list[str] = []
    per_round = []
    lost = resurrected = patched_after_delete = stale = import_lost = import_conflicts = 0
    for r in range(rounds):
        ids = [f"r{r}-{n}" for n in range(n_ids)]
        tally = Tally()
        with ThreadPoolExecutor(max_workers=8) as pool:
            passes = create_phase(urls, tmp, ids, tmp, env, pool, tally)
            stored = final_contents(urls[1], ids)
            lost_here = lost_writes(tally, stored)
            for k, memory_id in enumerate(ids):
                if stored[memory_id] is not None:
                    delete_then_patch(urls[0], urls[1], memory_id, concurrent=k % 2 == 0, pool=pool, tally=tally)
        after = [final_contents(url, ids) for url in urls]
        for url in urls:
            for topic in TOPICS:
                with GraphmemClient(url, timeout=60) as gm:
                    hits = gm.search(f"notes on {topic} drill", namespace=NS, k=20)["results"]
                stale += len({h["id"] for h in hits} & tally.deletes_acked)
        back = sorted(i for i in tally.deletes_acked if any(seen[i] is not None for seen in after))
        imports = overlapping_imports(urls[0], f"o{r}", import_ids, tmp, env)
        lost += lost_here
        resurrected += len(back)
        patched_after_delete += len(tally.patch_after_delete)
        stale += len(tally.stale_reads)
        import_lost += imports["acknowledged_writes_lost"]
        import_conflicts += sum(o.get("conflicts", 0) for o in imports["outcomes"].values())
        statuses.update(tally.statuses)
        errors += tally.errors + imports["errors"] + [f"import left {i} uncreated" for i in imports["ids_missing"]]
        per_round.append({"round": r, "create_passes": passes, "acknowledged_writes_lost": lost_here,
                          "deletes_acknowledged": len(tally.deletes_acked), "resurrected": back[:10],
                          "overlapping_imports": imports})
    return {"rounds": rounds, "ids_per_round": n_ids, "import_ids_per_round": import_ids,
            "acknowledged_writes_lost": lost,
            "resurrected_deletes": resurrected, "patch_after_delete_succeeded": patched_after_delete,
            "stale_reads_after_delete": stale,
            "conflicts_409": statuses["create 409 conflict"] + statuses["import conflict"],
            "overlapping_imports_lost": import_lost, "overlapping_imports_conflicts": import_conflicts,
            "statuses": dict(sorted(statuses.items())), "errors": errors[:20], "per_round": per_round}


def drop_race_namespace() -> None:
    """A fresh start: the race namespace and its windows emptied (the database is shared)."""
    from graphmem.config import load_settings
    from graphmem.model import window_namespace
    from graphmem.stores.neo4j import Neo4jStore

    settings = load_settings(overrides={"store": {"kind": "neo4j"}})
    store = Neo4jStore(settings.store)
    try:
        for ns in (NS, window_namespace(NS)):
            store.drop_namespace(ns)
    finally:
        store.close()


def check_namespace(env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "graphmem", "check", "--namespace", NS],
                          capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {"output": done.stdout}
    return {"exit_code": done.returncode, "problems": report.get("problems"), "stderr": done.stderr[-500:]}


def start_servers(tmp: Path) -> list:
    from tests.api.test_api_server import Server

    servers = [Server(tmp / f"data-{n}", tmp / f"server-{n}.log", store="neo4j", env=neo4j_settings(tmp),
                      wait=False)
               for n in ("a", "b")]
    for srv in servers:
        srv.wait_healthy(timeout=120)
    return servers
