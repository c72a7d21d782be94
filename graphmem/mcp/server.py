"""The MCP server over one ``Graphmem`` engine, on the official SDK's low-level ``Server``.

Why the low-level API: tool schemas are the API's own (``graphmem.mcp.schemas``) rather than
inferred from Python signatures, and every failure becomes a tool result carrying the HTTP
API's error body ``{"error": {"code", "message", "field"}}``: the server never crashes on input.

Over stdio the caller is the local user (every namespace, like the API without keys). Over
streamable HTTP (``graphmem.mcp.http``) each request's key is checked with the API's keyring
and each tool call is scoped to a namespace that key holds.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

from graphmem.auth import OPEN, Keyring, Principal
from graphmem.contract import validate
from graphmem.contract.requests import MemoryPath, ToolDetail
from graphmem.engine import Graphmem
from graphmem.errors import GraphmemError, ValidationError
from graphmem.fastjson import all_finite, dumps, finite
from graphmem.mcp.schemas import input_schemas
from graphmem.mcp.tools import TOOLS

log = logging.getLogger("graphmem.mcp")

INSTRUCTIONS = (
    "graphmem is long-term memory. Before answering from what earlier sessions may have established "
    "(preferences, configuration, skills, rules, facts about the user or project), call search_memories; "
    "each result says why it was found. Store durable new knowledge with add_memory (with tags and a "
    "category), correct it with update_memory, and link two memories with relate_memories when a text "
    "states their relation.")


def error_body(exc: GraphmemError) -> dict[str, Any]:
    """The HTTP API's error body for the same error (same code, message and field)."""
    return {"error": exc.to_dict()}


def _result(body: dict[str, Any], is_error: bool = False) -> types.CallToolResult:
    if not all_finite(body):    # a value stored before the number rule: null, in both forms alike
        body = finite(body)
    text = dumps(body, ensure_ascii=False, separators=(",", ":"))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=body, is_error=is_error)


class GraphmemMcp:
    """Tools over an engine. ``keyring`` is set for HTTP: each call is then authorised by its key."""

    def __init__(self, engine: Graphmem, default_namespace: str | None = None,
                 keyring: Keyring | None = None, name: str = "graphmem"):
        self.engine = engine
        self.cfg = engine.settings.mcp
        self.default_namespace = default_namespace
        self.keyring = keyring
        self.schemas = input_schemas(engine.settings, TOOLS.values())
        self.tools = [types.Tool(
            name=spec.name, title=spec.title, description=spec.description, input_schema=self.schemas[spec.name],
            annotations=types.ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                                              destructive_hint=spec.destructive, open_world_hint=False))
            for spec in TOOLS.values()]
        self.server: Server[Any] = Server(
            name, version=__import__("graphmem").__version__, instructions=INSTRUCTIONS,
            get_tool_input_schema=self.schemas.get, on_list_tools=self._list_tools,
            on_call_tool=self._call_tool)

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    def _principal(self, ctx: Any) -> Principal:
        request = getattr(ctx, "request", None)
        if self.keyring is None or request is None:
            return OPEN
        return self.keyring.authenticate(request)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            principal = self._principal(ctx)
            return _result(await self.call(params.name, dict(params.arguments or {}), principal))
        except GraphmemError as exc:
            if exc.status >= 500:
                log.warning("tool %s failed: %s", params.name, exc)
            return _result(error_body(exc), is_error=True)
        except Exception:       # a bug must cost one call, never the server
            log.exception("tool %s raised", params.name)
            return _result({"error": {"code": "internal_error", "message": "internal server error; see the "
                                      "server log", "field": None}}, is_error=True)

    async def call(self, name: str, args: dict[str, Any], principal: Principal = OPEN) -> dict[str, Any]:
        """Run one tool: validate the arguments exactly as sent (JSON types, as over HTTP) with the
        API's request model, authorise the namespace, call the engine."""
        spec = TOOLS.get(name)
        if spec is None:
            raise ValidationError(f"unknown tool {name!r}; tools are {', '.join(TOOLS)}", field="name")
        extra = {key: args.pop(key) for key in spec.extra if key in args}
        settings = self.engine.settings
        if "memory_id" in spec.extra:
            validate(MemoryPath, {k: v for k, v in extra.items() if k == "memory_id"}, settings, exact=True)
        if "detail" in spec.extra:
            extra["detail"] = validate(ToolDetail, {k: v for k, v in extra.items() if k == "detail"}, settings,
                                       exact=True).detail
        request = validate(spec.model, args, settings, exact=True)
        sent = getattr(request, "namespace", None)      # every tool's model has one
        requested = self.default_namespace if sent is None else sent
        namespace = principal.namespace(requested)
        return await anyio.to_thread.run_sync(spec.handler, self.engine, self.cfg, namespace, request, extra)

    async def run_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            await self.server.run(read_stream, write_stream, self.server.create_initialization_options())
