"""``graphmem mcp``: the MCP server over stdio (default) or streamable HTTP (``--http``)."""

from __future__ import annotations

import contextlib
import logging
import os
import sys

import click

from graphmem.cli.context import CliContext, pass_cli, store_fields
from graphmem.cli.serve_cmd import configure_logging, is_loopback


@click.command()
@click.option("--namespace", "-n", default=None,
              help="Namespace used when a tool call names none (default: 'default', or the key's only one).")
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP at /mcp instead of stdio.")
@click.option("--host", default=None, help="HTTP bind address (default [api].host = 127.0.0.1).")
@click.option("--port", type=int, default=None, help="HTTP port (default [mcp].port).")
@pass_cli
def mcp(cli: CliContext, namespace: str | None, use_http: bool, host: str | None, port: int | None) -> None:
    """Run graphmem as an MCP server for agents (Claude Code, Claude Desktop, Cursor, ...)."""
    import anyio

    from graphmem.auth import Keyring
    from graphmem.contract import validate_value
    from graphmem.contract.types import Namespace
    from graphmem.mcp.server import GraphmemMcp

    configure_logging(logging.INFO if use_http else logging.WARNING)
    settings = cli.settings()
    if namespace is not None:
        validate_value(Namespace, namespace, "namespace")
    keyring = Keyring.from_settings(settings, os.environ) if use_http else None
    host = host or settings.api.host
    if use_http and not keyring and not is_loopback(host):
        raise click.ClickException(
            f"refusing to listen on {host!r} without API keys: anyone who can reach it could read and write "
            "every namespace. Configure [api].keys or GRAPHMEM_API_KEYS, or bind to 127.0.0.1.")
    cli.announce = not use_http           # --http logs JSON lines: the store goes in a log line
    with contextlib.redirect_stdout(sys.stderr):     # stdout is the protocol's wire: nothing else on it
        engine = cli.engine()
    if use_http:
        logging.getLogger("graphmem.mcp").info("store opened", extra={"fields": store_fields(settings)})
    try:
        server = GraphmemMcp(engine, namespace, keyring)
        if use_http:
            from graphmem.mcp.http import serve_http

            serve_http(server, host, settings.mcp.port if port is None else port)
        else:
            anyio.run(server.run_stdio)
    finally:
        engine.close()
