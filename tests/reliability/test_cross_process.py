"""A running engine sees another process's writes to the same embedded store.

The engine here loads its namespace's vector matrix first; then ``graphmem import`` and
``graphmem delete`` run as separate processes on the same data dir. The imported memory, which
matches the query only by meaning, must be a direct vector hit, and the deleted one must leave
vector recall, without a restart."""

from __future__ import annotations

import json
import subprocess
import sys

from graphmem.model import MemoryFilter
from graphmem.views import dump

WALRUS = "The walrus database snapshots its volumes every six hours."
QUERY = "backup frequency of storage"
FILLER = ["Deploys of the billing service go through the blue-green pipeline",
          "The search team prefers short standups on Mondays",
          "Payment webhooks are retried with exponential backoff",
          "Our office plants are watered on Fridays by the facilities team"]


def cli(data_dir, *args, input_text: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), *args],
                          input=input_text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_other_process_writes_reach_vector_recall(engine, tmp_path):
    data_dir = engine.settings.store.data_dir
    for text in FILLER:
        engine.add({"content": text})
    first = dump(engine.search(QUERY, recipe="vector"))
    assert first["results"] and len(engine.store.vectors.namespaces["default"]) == len(FILLER)

    line = json.dumps({"id": "walrus", "content": WALRUS, "tags": ["storage"]})
    cli(data_dir, "import", "-", input_text=line + "\n")
    hits = dump(engine.search(QUERY, recipe="vector", k=3))["results"]
    assert hits[0]["id"] == "walrus" and hits[0]["kind"] == "direct", [h["id"] for h in hits]

    vector = engine.embedder.embed_query(QUERY)
    cli(data_dir, "delete", "walrus")
    found = engine.store.vector_candidates("default", vector, 10, MemoryFilter(), engine.clock())
    assert "walrus" not in found and len(found) == len(FILLER)
    assert all(h["id"] != "walrus" for h in dump(engine.search(QUERY, recipe="vector"))["results"])


def test_other_process_writes_reach_the_lexical_index(engine):
    """The full-text side: an import in another process that commits the index (a batch past
    ``store.sqlite.lexical_commit_every``) is read after a searcher reload; a delete it leaves
    pending is merged in at lookup. No restart, and the index ends exact."""
    data_dir = engine.settings.store.data_dir
    for text in FILLER:
        engine.add({"content": text})
    store = engine.store
    assert store.lexical_candidates("default", ["walrus"], 10, None, "") == []
    lines = [json.dumps({"id": f"pier{i}", "content": f"Pier {i} holds the harbour crane number {i}"})
             for i in range(store.lexical.commit_every)]
    lines.append(json.dumps({"id": "walrus", "content": WALRUS}))
    cli(data_dir, "import", "-", input_text="\n".join(lines) + "\n")
    assert store.lexical_candidates("default", ["walrus"], 10, None, "") == ["walrus"]
    assert len(store.lexical_candidates("default", ["crane"], 100, None, "")) == store.lexical.commit_every
    view = store.lexical.view(store.db)
    assert view.pending == set(), "the other process committed the index; this one reloaded it"

    cli(data_dir, "delete", "walrus")
    assert store.lexical_candidates("default", ["walrus"], 10, None, "") == []
    assert store.lexical.view(store.db).pending == {("default", "walrus")}       # merged, not yet committed
    assert store.lexical.verify(store.db, "default") == []
    assert store.lexical.view(store.db).pending == set()
