"""``graphmem serve``: the HTTP API under waitress with JSON logs and a graceful drain.

Why a custom loop instead of ``waitress.serve``: on SIGTERM waitress stops its event loop
at once, and since responses are flushed by that loop, requests still running in worker
threads would lose their answers. Here a signal only sets a flag; the loop then closes the
listening sockets (new connections are refused), keeps flushing until every in-flight
request has been answered (or ``--shutdown-timeout`` passes), closes idle keep-alive
connections, and exits 0.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import logging
import os
import signal
import sys
import threading
import time
from datetime import datetime, timezone
from typing import Any

import click

from graphmem.cli.context import CliContext, pass_cli, store_fields
from graphmem.config import ApiSettings, load_settings

log = logging.getLogger("graphmem.serve")


class JsonFormatter(logging.Formatter):
    """One JSON object per line; ``extra={"fields": {...}}`` is merged in (access logs)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "level": record.levelname.lower(), "logger": record.name, "event": record.getMessage()}
        out.update(getattr(record, "fields", None) or {})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _busy(channel: Any) -> bool:
    """A connection with a request being received, run, or flushed."""
    return bool(channel.requests or channel.request is not None or channel.total_outbufs_len)


def run_server(app: Any, host: str, port: int, threads: int, shutdown_timeout: float = 30.0,
               max_body_bytes: int = 4 * 1024 * 1024, ready: threading.Event | None = None,
               api: ApiSettings | None = None, log_fields: dict[str, Any] | None = None) -> None:
    """Serve ``app`` until SIGTERM/SIGINT, then drain in-flight requests and return. ``api``
    gives the connection bounds (``http_guard``; defaults.toml [api] when None); ``log_fields``
    are added to the start line (the store it serves)."""
    from waitress import wasyncore
    from waitress.channel import HTTPChannel
    from waitress.server import BaseWSGIServer, create_server

    from graphmem.cli.http_guard import GuardedChannel, GuardedDispatcher, close_slow, waitress_options

    api = api or load_settings(use_env=False).api
    dispatcher = GuardedDispatcher(api.probe_threads)
    dispatcher.set_thread_count(threads)
    server = create_server(app, host=host, port=port, threads=threads, ident="graphmem",
                           asyncore_use_poll=True, max_request_body_size=16 * max_body_bytes,
                           _dispatcher=dispatcher, **waitress_options(api))
    sock_map = server.map if hasattr(server, "map") else server._map
    listeners = [obj for obj in list(sock_map.values()) if isinstance(obj, BaseWSGIServer)]
    for srv in listeners:
        srv.channel_class = GuardedChannel
    sweep_every = min(1.0, api.request_timeout / 4)
    next_sweep = time.monotonic() + sweep_every
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("shutdown requested", extra={"fields": {"signal": signal.Signals(signum).name}})
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        for srv in listeners:
            log.info("serving", extra={"fields": {"host": srv.effective_host, "port": int(srv.effective_port),
                                                  "threads": threads, **(log_fields or {})}})
        if ready is not None:
            ready.set()
        while not stop.is_set():
            wasyncore.loop(timeout=0.2, map=sock_map, use_poll=True, count=1)
            if time.monotonic() >= next_sweep:
                close_slow(list(sock_map.values()), api.request_timeout)
                next_sweep = time.monotonic() + sweep_every
        for srv in listeners:                 # stop accepting; keep the trigger for worker wake-ups
            srv.accepting = False
            wasyncore.dispatcher.close(srv)
        deadline = time.monotonic() + shutdown_timeout
        while True:
            channels = [c for c in list(sock_map.values()) if isinstance(c, HTTPChannel)]
            for channel in channels:
                if not _busy(channel):
                    channel.will_close = True
            busy = [c for c in channels if _busy(c)]
            if not busy and not channels:
                break
            if time.monotonic() > deadline:
                log.warning("shutdown timeout; closing busy connections",
                            extra={"fields": {"busy": len(busy)}})
                break
            wasyncore.loop(timeout=0.05, map=sock_map, use_poll=True, count=1)
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        wasyncore.close_all(sock_map)
        log.info("stopped")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@click.command()
@click.option("--host", default=None, help="Bind address (default [api].host = 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port (default [api].port; 0 picks a free one).")
@click.option("--threads", type=click.IntRange(1, 256), default=None, help="Worker threads ([api].threads).")
@click.option("--shutdown-timeout", type=float, default=30.0, show_default=True,
              help="Seconds to let in-flight requests finish on SIGTERM/SIGINT.")
@pass_cli
def serve(cli: CliContext, host: str | None, port: int | None, threads: int | None,
          shutdown_timeout: float) -> None:
    """Run the HTTP API (waitress). Without API keys it binds to loopback only."""
    from graphmem.api import create_app
    from graphmem.auth import Keyring

    configure_logging()
    settings = cli.settings()
    keyring = Keyring.from_settings(settings, os.environ)
    host = host or settings.api.host
    port = settings.api.port if port is None else port
    threads = threads or settings.api.threads
    if not keyring and not is_loopback(host):
        raise click.ClickException(
            f"refusing to listen on {host!r} without API keys: anyone who can reach it could read and write "
            "every namespace. Configure [api].keys or GRAPHMEM_API_KEYS, or bind to 127.0.0.1.")
    if not keyring:
        log.warning("auth is off: no API keys configured; serving loopback only",
                    extra={"fields": {"auth": "off"}})
    else:
        log.info("auth is on", extra={"fields": {"auth": "on", "keys": len(keyring.keys)}})
    cli.announce = False                 # stderr is JSON lines here: the store is in the "serving" line
    engine = cli.engine()
    try:
        app = create_app(engine, settings, keyring=keyring, bind_host=host)
        run_server(app, host, port, threads, shutdown_timeout, settings.limits.max_body_bytes, api=settings.api,
                   log_fields=store_fields(settings))
    except OSError as exc:
        raise click.ClickException(listen_error(host, port, exc)) from exc
    finally:
        engine.close()


def listen_error(host: str, port: int, exc: OSError) -> str:
    """Why the server cannot listen, with the next step when the port is taken."""
    if exc.errno == errno.EADDRINUSE:
        return (f"cannot listen on {host}:{port}: the port is in use (another graphmem serve?). "
                f"Pick another with --port, e.g. `graphmem serve --port {port + 1}` or "
                f"`make serve PORT={port + 1}` (--port 0 picks a free one), or stop the process holding it.")
    return f"cannot listen on {host}:{port}: {exc}"
