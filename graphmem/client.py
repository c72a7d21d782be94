"""A small Python client for the graphmem HTTP API (built on ``requests``).

Types come from the API contract (``graphmem.contract``): keyword fields are checked against the
request models' field names before anything is sent, and with ``typed=True`` every JSON answer is
parsed into its response model (``Memory``, ``SearchResponse``, ``Graph``, ...) instead of a dict.
Bounds are the server's to enforce (its ``[limits]`` may differ from the defaults): only field
names are checked here. Any non-2xx
answer (and any connection failure, as status 0) raises ``GraphmemClientError`` carrying the
server's error code, message and offending field.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import requests
from pydantic import BaseModel

from graphmem.contract import responses
from graphmem.contract.requests import ListArgs, MemoryInput, MemoryPatch


class GraphmemClientError(Exception):
    def __init__(self, status: int, code: str, message: str, field: str | None = None):
        super().__init__(f"{status} {code}: {message}" + (f" (field: {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _known(model: type[BaseModel], fields: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(fields) - set(model.model_fields))
    if unknown:
        raise TypeError(f"unknown field {unknown[0]!r} for {model.__name__}; fields: "
                        + ", ".join(model.model_fields))
    return fields


class GraphmemClient:
    """``GraphmemClient("http://127.0.0.1:8080", api_key=...)``; ``namespace`` sets a default."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 30.0,
                 namespace: str | None = None, session: requests.Session | None = None, typed: bool = False):
        self.typed = typed
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.namespace = namespace
        self.session = session or requests.Session()
        self.session.headers["Accept"] = "application/json"
        if api_key:
            self.session.headers["Authorization"] = f"Bearer {api_key}"

    # -- plumbing -------------------------------------------------------------------------------
    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> GraphmemClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _ns(self, namespace: str | None) -> str | None:
        return namespace if namespace is not None else self.namespace

    def request(self, method: str, path: str, *, params: dict[str, Any] | None = None,
                json: Any = None, raw: bool = False, model: type[BaseModel] | None = None) -> Any:
        try:
            resp = self.session.request(method, self.base_url + path, params=_drop_none(params or {}),
                                        json=json, timeout=self.timeout)
        except requests.RequestException as exc:
            raise GraphmemClientError(0, "connection_error", str(exc)) from exc
        if resp.status_code >= 400:
            try:
                err = resp.json()["error"]
                raise GraphmemClientError(resp.status_code, err.get("code", "error"), err.get("message", ""),
                                          err.get("field"))
            except (ValueError, KeyError, TypeError, AttributeError):
                raise GraphmemClientError(resp.status_code, "http_error", resp.text[:500]) from None
        if raw:
            return resp.text
        data = resp.json() if resp.content else None
        return model.model_validate(data) if self.typed and model is not None and data is not None else data

    @staticmethod
    def _id(memory_id: str) -> str:
        return quote(memory_id, safe="")

    # -- memories -------------------------------------------------------------------------------
    def add(self, content: str, *, namespace: str | None = None, **fields: Any) -> dict[str, Any]:
        """Create a memory; fields: id, tags, category, source, reason, metadata, valid_until, ...
        Returns ``{"status": "created"|"duplicate", "id", "memory", "duplicate_of"?}``."""
        fields = _known(MemoryInput, fields)
        body = _drop_none({"content": content, "namespace": self._ns(namespace), **fields})
        return self.request("POST", "/v1/memories", json=body, model=responses.CreateResult)

    def add_batch(self, memories: list[dict[str, Any]], namespace: str | None = None) -> dict[str, Any]:
        body = _drop_none({"memories": memories, "namespace": self._ns(namespace)})
        return self.request("POST", "/v1/memories:batch", json=body, model=responses.BatchResponse)

    def get(self, memory_id: str, namespace: str | None = None) -> dict[str, Any]:
        return self.request("GET", f"/v1/memories/{self._id(memory_id)}",
                            params={"namespace": self._ns(namespace)}, model=responses.Memory)

    def update(self, memory_id: str, namespace: str | None = None, **changes: Any) -> dict[str, Any]:
        body = _drop_none({**_known(MemoryPatch, changes), "namespace": self._ns(namespace)})
        return self.request("PATCH", f"/v1/memories/{self._id(memory_id)}", json=body, model=responses.Memory)

    def delete(self, memory_id: str, namespace: str | None = None) -> None:
        self.request("DELETE", f"/v1/memories/{self._id(memory_id)}", params={"namespace": self._ns(namespace)})

    def list_memories(self, namespace: str | None = None, limit: int = 50, cursor: str | None = None,
             tags: list[str] | None = None, category: list[str] | None = None,
             source: list[str] | None = None, **filters: Any) -> dict[str, Any]:
        """One page: ``{"memories", "next_cursor"}``; filters: min_health, max_health, created_after, ..."""
        params = {"namespace": self._ns(namespace), "limit": limit, "cursor": cursor,
                  "tags": ",".join(tags) if tags else None, "category": ",".join(category) if category else None,
                  "source": ",".join(source) if source else None, **filters}
        return self.request("GET", "/v1/memories", params=_known(ListArgs, params),
                            model=responses.MemoryList)

    def iter_memories(self, namespace: str | None = None, page_size: int = 200,
                      **filters: Any) -> Iterator[dict[str, Any]]:
        cursor = None
        while True:
            page: Any = self.list_memories(namespace, page_size, cursor, **filters)
            yield from (page.memories if self.typed else page["memories"])
            cursor = page.next_cursor if self.typed else page["next_cursor"]
            if not cursor:
                return

    # -- search and graph -------------------------------------------------------------------------
    def search(self, query: str, namespace: str | None = None, k: int | None = None,
               filters: dict[str, Any] | None = None, recipe: str | None = None,
               stages: dict[str, bool] | None = None, params: dict[str, Any] | None = None,
               explain: bool = True, trace: bool = False) -> dict[str, Any]:
        body = _drop_none({"query": query, "namespace": self._ns(namespace), "k": k, "filters": filters,
                           "recipe": recipe, "stages": stages, "params": params, "explain": explain,
                           "trace": trace})
        return self.request("POST", "/v1/search", json=body, model=responses.SearchResponse)

    def neighbors(self, memory_id: str, namespace: str | None = None, types: list[str] | None = None,
                  min_weight: float | None = None, limit: int | None = None) -> dict[str, Any]:
        params = {"namespace": self._ns(namespace), "types": ",".join(types) if types else None,
                  "min_weight": min_weight, "limit": limit}
        return self.request("GET", f"/v1/memories/{self._id(memory_id)}/neighbors", params=params,
                            model=responses.NeighborsResponse)

    def graph(self, ids: list[str] | None = None, query: str | None = None, namespace: str | None = None,
              k: int | None = None, hops: int | None = None) -> dict[str, Any]:
        params = {"namespace": self._ns(namespace), "ids": ",".join(ids) if ids else None, "query": query,
                  "k": k, "hops": hops}
        return self.request("GET", "/v1/graph", params=params, model=responses.Graph)

    def relate(self, from_id: str, to_id: str, evidence: dict[str, str], label: str | None = None,
               weight: float | None = None, namespace: str | None = None) -> dict[str, Any]:
        body = _drop_none({"from_id": from_id, "to_id": to_id, "evidence": evidence, "label": label,
                           "weight": weight, "namespace": self._ns(namespace)})
        return self.request("POST", "/v1/relations", json=body, model=responses.Edge)

    # -- operations -------------------------------------------------------------------------------
    def stats(self, namespace: str | None = None) -> dict[str, Any]:
        return self.request("GET", "/v1/stats", params={"namespace": namespace}, model=responses.Stats)

    def health(self) -> dict[str, Any]:
        return self.request("GET", "/healthz")

    def ready(self) -> dict[str, Any]:
        return self.request("GET", "/readyz")

    def metrics(self) -> str:
        return self.request("GET", "/metrics", raw=True)

    def openapi(self) -> dict[str, Any]:
        return self.request("GET", "/openapi.json")
