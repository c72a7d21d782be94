"""Loading an eval dataset (memories + labelled queries) and scoping it to namespaces.

Why a separate layer: the harness must map *dataset* ids to *stored* ids (a dataset id that
the store cannot take is renamed deterministically, an exact duplicate maps to the copy that
was kept), and must put each memory and each query in the same namespace, so that a
per-conversation benchmark like LoCoMo is scored the way it is meant to be (one store per
conversation, no cross-conversation leakage).

Memory lines are the import format (``graphmem import``). Query lines need ``id``, ``text``
(or ``query``) and either ``relevant_ids`` (binary) or ``relevance`` (``{id: grade}``);
every other field is kept for breakdowns (``--by category``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.contract import validate_value
from graphmem.contract.requests import Id, MemoryInput
from graphmem.contract.types import Namespace
from graphmem.errors import ValidationError

DEFAULT_NAMESPACE = "eval"
LOCOMO_ENV = "GRAPHMEM_LOCOMO_DIR"


@dataclass(frozen=True)
class EvalQuery:
    id: str
    text: str
    namespace: str
    relevance: dict[str, float]            # dataset id -> grade (> 0)
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def graded(self) -> bool:
        return any(g != 1.0 for g in self.relevance.values())


@dataclass
class EvalDataset:
    memories: list[dict[str, Any]]         # import-ready items: stored id and namespace set
    queries: list[EvalQuery]
    stored_id: dict[str, str]              # dataset id -> id requested from the store
    renamed: int = 0                       # dataset ids the store could not take as given
    unlabelled_queries: int = 0            # dropped: nothing to score them against

    def namespaces(self) -> list[str]:
        return sorted({m["namespace"] for m in self.memories})


def locomo_dir(repo_root: Path | None = None) -> Path:
    """``$GRAPHMEM_LOCOMO_DIR``, else the nearest ``shared/datasets/locomo-dev`` beside the repo or
    beside one of its parent folders (``<repo>/../shared/...`` in the usual layout; a clone kept
    one level deeper still finds it). Read in place: the dataset has no licence to redistribute,
    so it is never copied into the repo. When none exists, the usual ``<repo>/../shared`` path is
    returned so that messages name it."""
    if os.environ.get(LOCOMO_ENV):
        return Path(os.environ[LOCOMO_ENV]).expanduser()
    root = (repo_root or Path(__file__).resolve().parents[2]).resolve()
    relative = Path("shared") / "datasets" / "locomo-dev"
    for folder in root.parents:
        if (folder / relative / "memories.jsonl").is_file():
            return folder / relative
    return root.parent / relative


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValidationError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
            if not isinstance(row, dict):
                raise ValidationError(f"{path}:{number}: each line must be a JSON object")
            rows.append(row)
    return rows


def storable_id(raw: Any, limits) -> str:
    """The dataset id itself when the store accepts it, else a stable hash-based id."""
    try:
        return str(validate_value(Id, raw, "id", limits))
    except ValidationError:
        return "ds-" + hashlib.sha1(str(raw).encode("utf-8")).hexdigest()[:20]


def _namespace(value: Any, prefix: str) -> str:
    name = f"{prefix}{value}"
    try:
        return str(validate_value(Namespace, name, "namespace"))
    except ValidationError:
        safe = "".join(ch if ch.isalnum() or ch in "_.:-" else "-" for ch in name)[:64]
        return str(validate_value(Namespace, safe.lstrip("_.:-") or DEFAULT_NAMESPACE, "namespace"))


def _field(item: dict[str, Any], name: str) -> Any:
    """A top-level field, else the same key of ``metadata``."""
    return item.get(name, (item.get("metadata") or {}).get(name))


def scope_memories(rows: list[dict[str, Any]], scope: str | None, limits, namespace: str = DEFAULT_NAMESPACE,
                   prefix: str = "", thread_by: str | None = None,
                   seq_by: str | None = None) -> tuple[list[dict[str, Any]], dict[str, str], int]:
    """Import-ready copies: namespace = own ``namespace`` field, else ``metadata[scope]`` (or a
    top-level ``scope`` field), else ``namespace``; ids made storable (missing ids get the line
    number, so runs are deterministic rather than uuid-random). ``thread_by`` / ``seq_by`` name the
    fields (top level or metadata) that give a memory without its own ``thread`` its thread and
    position (LoCoMo: a session is a thread, ``category`` and ``turn_index``)."""
    out: list[dict[str, Any]] = []
    ids: dict[str, str] = {}
    renamed = 0
    for number, row in enumerate(rows, start=1):
        item = dict(row)
        raw_id = item.get("id")
        dataset_id = str(raw_id) if raw_id is not None else f"line-{number}"
        stored = storable_id(dataset_id, limits)
        renamed += stored != dataset_id
        item["id"] = stored
        ids[dataset_id] = stored
        scoped = item.get("namespace")
        if scoped is None and scope:
            scoped = (item.get("metadata") or {}).get(scope, item.get(scope))
        item["namespace"] = _namespace(scoped if scoped is not None else namespace, prefix)
        if thread_by and item.get("thread") is None and _field(item, thread_by) is not None:
            item["thread"] = str(_field(item, thread_by))
            if seq_by and isinstance(_field(item, seq_by), int):
                item["seq"] = _field(item, seq_by)
        if scope and scope in item and scope not in MemoryInput.model_fields:
            item.pop(scope)          # a top-level scope field that is not a memory field
        out.append(item)
    return out, ids, renamed


def parse_query(row: dict[str, Any], scope: str | None, namespace: str = DEFAULT_NAMESPACE,
                prefix: str = "") -> EvalQuery:
    text = row.get("text", row.get("query"))
    if not isinstance(text, str) or not text.strip():
        raise ValidationError(f"query {row.get('id')!r} has no text")
    if isinstance(row.get("relevance"), dict):
        relevance = {str(i): float(g) for i, g in row["relevance"].items() if float(g) > 0}
    else:
        relevance = {str(i): 1.0 for i in row.get("relevant_ids") or []}
    scoped = row.get("namespace")
    if scoped is None and scope:
        scoped = row.get(scope)
    fields = {k: v for k, v in row.items() if k not in ("text", "query", "relevance", "relevant_ids")}
    return EvalQuery(id=str(row.get("id", "")), text=text.strip(),
                     namespace=_namespace(scoped if scoped is not None else namespace, prefix),
                     relevance=relevance, fields=fields)


def load_dataset(memories: str | Path, queries: str | Path, limits, scope: str | None = None,
                 namespace: str = DEFAULT_NAMESPACE, prefix: str = "",
                 limit_queries: int | None = None, only_namespaces: list[str] | None = None,
                 thread_by: str | None = None, seq_by: str | None = None) -> EvalDataset:
    """Read both files. ``only_namespaces`` keeps a subset (e.g. one LoCoMo conversation, for
    a fast test); ``limit_queries`` keeps the first N queries (after that subset)."""
    mems, ids, renamed = scope_memories(read_jsonl(memories), scope, limits, namespace, prefix, thread_by, seq_by)
    qs = [parse_query(r, scope, namespace, prefix) for r in read_jsonl(queries)]
    if only_namespaces is not None:
        keep = {_namespace(n, prefix) for n in only_namespaces}
        mems = [m for m in mems if m["namespace"] in keep]
        qs = [q for q in qs if q.namespace in keep]
    labelled = [q for q in qs if q.relevance]      # unlabelled queries cannot be scored
    if limit_queries is not None:
        labelled = labelled[:limit_queries]
    return EvalDataset(memories=mems, queries=labelled, stored_id=ids, renamed=renamed,
                       unlabelled_queries=len(qs) - len([q for q in qs if q.relevance]))
