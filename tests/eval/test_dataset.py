"""Scoping and id mapping of eval datasets (no store, no model)."""

from __future__ import annotations

import json
from pathlib import Path

from graphmem.config import load_settings
from graphmem.eval.dataset import load_dataset, locomo_dir, parse_query, scope_memories
from graphmem.eval.runner import EvalQuery, stored_relevance

LIMITS = load_settings(use_env=False).limits


def test_scope_puts_each_memory_in_its_conversation_namespace() -> None:
    rows = [{"id": "conv-1:D1:1", "content": "x", "metadata": {"conversation": "conv-1"}},
            {"id": "conv-2:D1:1", "content": "y", "metadata": {"conversation": "conv-2"}},
            {"id": "n3", "content": "z", "namespace": "own"}]
    items, ids, renamed = scope_memories(rows, "conversation", LIMITS)
    assert [m["namespace"] for m in items] == ["conv-1", "conv-2", "own"]
    assert ids == {"conv-1:D1:1": "conv-1:D1:1", "conv-2:D1:1": "conv-2:D1:1", "n3": "n3"}
    assert renamed == 0


def test_invalid_or_missing_ids_get_stable_storable_ids() -> None:
    rows = [{"id": "has space", "content": "x"}, {"content": "y"}]
    first, ids, renamed = scope_memories(rows, None, LIMITS)
    again, _, _ = scope_memories(rows, None, LIMITS)
    assert renamed == 1                      # a missing id is not a renamed one
    assert ids["has space"].startswith("ds-") and ids["line-2"] == "line-2"
    assert [m["id"] for m in first] == [m["id"] for m in again]
    assert all(m["namespace"] == "eval" for m in first)


def test_queries_binary_and_graded() -> None:
    q = parse_query({"id": "q", "text": " t ", "relevant_ids": ["a", "b"], "conversation": "c1",
                     "category": 1}, "conversation")
    assert (q.text, q.namespace, q.relevance, q.graded) == ("t", "c1", {"a": 1.0, "b": 1.0}, False)
    assert q.fields["category"] == 1
    g = parse_query({"id": "g", "query": "t", "relevance": {"a": 2, "b": 0}}, None)
    assert g.relevance == {"a": 2.0} and g.graded and g.namespace == "eval"


def test_stored_relevance_collapses_duplicates_and_keeps_missing() -> None:
    q = EvalQuery("q", "t", "ns", {"a": 1.0, "a-copy": 2.0, "gone": 1.0})
    rel = stored_relevance(q, {"a": "a", "a-copy": "a"})
    assert rel == {"a": 2.0, "<missing>gone": 1.0}


def test_load_dataset_subset_and_limits(tmp_path: Path) -> None:
    mem = tmp_path / "m.jsonl"
    qry = tmp_path / "q.jsonl"
    mem.write_text("\n".join(json.dumps({"id": f"m{i}", "content": "c", "metadata": {"conversation": f"c{i % 2}"}})
                             for i in range(4)))
    qry.write_text("\n".join(json.dumps({"id": f"q{i}", "text": "t", "conversation": f"c{i % 2}",
                                         "relevant_ids": [f"m{i}"] if i < 3 else []}) for i in range(4)))
    ds = load_dataset(mem, qry, LIMITS, "conversation", only_namespaces=["c0"])
    assert [m["id"] for m in ds.memories] == ["m0", "m2"]
    assert [q.id for q in ds.queries] == ["q0", "q2"]
    full = load_dataset(mem, qry, LIMITS, "conversation", limit_queries=2)
    assert [q.id for q in full.queries] == ["q0", "q1"] and full.unlabelled_queries == 1


def test_locomo_dir_honours_env(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GRAPHMEM_LOCOMO_DIR", str(tmp_path))
    assert locomo_dir() == tmp_path
    monkeypatch.delenv("GRAPHMEM_LOCOMO_DIR")
    assert locomo_dir().parts[-3:] == ("shared", "datasets", "locomo-dev")


def test_locomo_dir_found_beside_a_parent_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GRAPHMEM_LOCOMO_DIR", raising=False)
    data = tmp_path / "shared" / "datasets" / "locomo-dev"
    data.mkdir(parents=True)
    repo = tmp_path / "ci" / "clone"
    repo.mkdir(parents=True)
    relative = Path("shared") / "datasets" / "locomo-dev"
    # a real copy beside a folder above the test's own (a clone kept under /tmp) is found first
    above = next((f / relative for f in tmp_path.parents if (f / relative / "memories.jsonl").is_file()), None)
    assert locomo_dir(repo) == (above or tmp_path / "ci" / relative)       # not there yet
    (data / "memories.jsonl").write_text("")
    assert locomo_dir(repo) == data                       # two levels up
    nearer = tmp_path / "ci" / "shared" / "datasets" / "locomo-dev"
    nearer.mkdir(parents=True)
    (nearer / "memories.jsonl").write_text("")
    assert locomo_dir(repo) == nearer                     # the nearest wins
