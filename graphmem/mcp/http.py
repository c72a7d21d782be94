"""Streamable HTTP transport for the MCP server, behind the HTTP API's keys.

Every request to ``/mcp`` is authenticated before the SDK sees it (401 with the API's error
body, no session is opened), and each tool call is authorised again for its namespace in
``GraphmemMcp``. Stateless mode with JSON responses: no session state lives on the server, so
each request stands alone and carries its own key.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from graphmem.auth import Keyring
from graphmem.errors import AuthError
from graphmem.mcp.server import GraphmemMcp, error_body

log = logging.getLogger("graphmem.mcp")

PATH = "/mcp"


class KeyAuth:
    """ASGI middleware: refuse HTTP requests whose key the API's keyring does not accept."""

    def __init__(self, app: Any, keyring: Keyring):
        self.app = app
        self.keyring = keyring

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and self.keyring:
            try:
                self.keyring.authenticate(Request(scope))
            except AuthError as exc:
                response = JSONResponse(error_body(exc), status_code=exc.status, headers=exc.headers)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_app(mcp: GraphmemMcp, host: str) -> Any:
    """The ASGI app: the SDK's streamable HTTP endpoint at ``/mcp``, wrapped in key checks."""
    assert mcp.keyring is not None, "the HTTP transport needs a keyring (possibly empty: auth off)"
    app = mcp.server.streamable_http_app(
        streamable_http_path=PATH, stateless_http=True, json_response=True, host=host,
        max_request_body_size=mcp.engine.settings.limits.max_body_bytes)
    return KeyAuth(app, mcp.keyring)


def serve_http(mcp: GraphmemMcp, host: str, port: int) -> None:
    """Serve until SIGINT/SIGTERM (uvicorn finishes in-flight requests, then returns)."""
    import uvicorn

    config = uvicorn.Config(build_app(mcp, host), host=host, port=port, log_level="warning",
                            access_log=False, lifespan="on")
    log.info("serving MCP", extra={"fields": {"host": host, "port": port, "path": PATH,
                                              "auth": "on" if mcp.keyring else "off"}})
    uvicorn.Server(config).run()
