"""Streamable HTTP transport for the MCP server, behind the HTTP API's keys.

Every request to ``/mcp`` must name a host the server answers, and a browser's ``Origin`` must
be one of them (``graphmem.hosts``, the API's rule: 421 / 403, whatever the bind address), then
it is authenticated before the SDK sees it (401 with the API's error body, no session is opened),
and each tool call is authorised again for its namespace in ``GraphmemMcp``. The SDK's own
transport security is given the same host list. Stateless mode with JSON responses: no session
state lives on the server, so each request stands alone and carries its own key, and there is no
server-to-client stream: a GET answers 405, as the protocol allows, instead of an idle stream.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from uvicorn.protocols.http.h11_impl import H11Protocol

from graphmem.auth import Keyring
from graphmem.errors import AuthError
from graphmem.hosts import HostPolicy
from graphmem.mcp.server import GraphmemMcp, error_body

log = logging.getLogger("graphmem.mcp")

PATH = "/mcp"


_NO_STREAM = {"error": {"code": "method_not_allowed", "field": None,
                        "message": "this server offers no event stream: send JSON-RPC requests with POST"}}


class KeyAuth:
    """ASGI middleware: refuse HTTP requests naming a host the server does not answer, GETs (no
    stream is offered), and requests whose key the API's keyring does not accept."""

    def __init__(self, app: Any, keyring: Keyring, hosts: HostPolicy):
        self.app = app
        self.keyring = keyring
        self.hosts = hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            request = Request(scope)
            refused = self.hosts.refusal(request.headers.get("host"), request.headers.get("origin"))
            if refused is not None:
                await JSONResponse(refused[1], status_code=refused[0])(scope, receive, send)
                return
            if request.method == "GET" and scope["path"].rstrip("/") == PATH:
                await JSONResponse(_NO_STREAM, status_code=405, headers={"Allow": "POST"})(
                    scope, receive, send)
                return
        if scope["type"] == "http" and self.keyring:
            try:
                self.keyring.authenticate(Request(scope))
            except AuthError as exc:
                response = JSONResponse(error_body(exc), status_code=exc.status, headers=exc.headers)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def transport_security(hosts: HostPolicy) -> TransportSecuritySettings:
    """The SDK's Host/Origin check over the same names (``host:*`` admits any port)."""
    if hosts.any_host or any(n.startswith(".") for n in hosts.names):
        # the SDK matches names exactly: a subdomain rule or "*" is left to HostPolicy alone
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[p for n in hosts.names for p in (n, f"{n}:*")],
        allowed_origins=[p for n in hosts.names for s in ("http", "https") for p in (f"{s}://{n}", f"{s}://{n}:*")])


def build_app(mcp: GraphmemMcp, host: str) -> Any:
    """The ASGI app: the SDK's streamable HTTP endpoint at ``/mcp``, wrapped in host and key checks."""
    assert mcp.keyring is not None, "the HTTP transport needs a keyring (possibly empty: auth off)"
    hosts = HostPolicy.for_bind(host, mcp.engine.settings.api.allowed_hosts)
    app = mcp.server.streamable_http_app(
        streamable_http_path=PATH, stateless_http=True, json_response=True, host=host,
        transport_security=transport_security(hosts),
        max_request_body_size=mcp.engine.settings.limits.max_body_bytes)
    return KeyAuth(app, mcp.keyring, hosts)


_TIMEOUT_BODY = b'{"error":{"code":"request_timeout","message":"request not received in time","field":null}}'
TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-type: application/json\r\n"
                    + f"content-length: {len(_TIMEOUT_BODY)}\r\n\r\n".encode() + _TIMEOUT_BODY)


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on receiving each request (headers and body).

    uvicorn bounds idle keep-alive connections (``timeout_keep_alive``) but not a request that
    arrives a byte at a time; such a connection is cheap on the event loop, yet it counts
    against ``limit_concurrency`` for ever. Here it gets a 408 and is closed after
    ``request_timeout`` seconds (``[mcp].request_timeout``)."""

    request_timeout = 30.0
    _deadline: asyncio.TimerHandle | None = None

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)
        super().data_received(data)
        if self._deadline is not None and self.cycle is not None and not self.cycle.more_body:
            self._deadline.cancel()         # the whole request is in
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()              # the app's receive() then reports a disconnect

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)


def serve_http(mcp: GraphmemMcp, host: str, port: int) -> None:
    """Serve until SIGINT/SIGTERM (uvicorn finishes in-flight requests, then returns), with the
    connection bounds of ``[mcp]`` (defaults.toml)."""
    import uvicorn

    cfg = mcp.engine.settings.mcp
    protocol = type("McpDeadlineProtocol", (DeadlineProtocol,), {"request_timeout": cfg.request_timeout})
    config = uvicorn.Config(build_app(mcp, host), host=host, port=port, log_level="warning",
                            access_log=False, lifespan="on", http=protocol,
                            timeout_keep_alive=cfg.keep_alive_timeout, limit_concurrency=cfg.limit_concurrency,
                            backlog=cfg.backlog)
    log.info("serving MCP", extra={"fields": {"host": host, "port": port, "path": PATH,
                                              "auth": "on" if mcp.keyring else "off"}})
    uvicorn.Server(config).run()
