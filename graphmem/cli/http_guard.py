"""waitress, guarded against a blocked store and against slow clients (``graphmem serve``).

- ``/healthz`` (GET) is answered by whichever thread hands the request over (the I/O loop for
  a connection's first request), never by a worker: liveness holds while every worker thread
  waits on a hung database. It reports the process, not the store (``/readyz`` does that).
- ``/readyz`` runs on its own probe threads, so readiness is reported within
  ``store.neo4j.ping_timeout`` even when the workers are all busy.
- A client has ``api.request_timeout`` seconds to send a whole request (headers and body); a
  connection still sending after that gets a 408 and is closed. waitress's own
  ``channel_timeout`` only closes connections with no activity, so a client sending one byte a
  second would otherwise hold its connection for ever, and ``connection_limit`` of them stop the
  server accepting new ones.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from waitress.channel import HTTPChannel
from waitress.task import ThreadedTaskDispatcher

from graphmem.config import ApiSettings

log = logging.getLogger("graphmem.serve")

HEALTH_BODY = json.dumps({"status": "ok"}, separators=(",", ":")).encode()
_TIMEOUT_BODY = json.dumps({"error": {"code": "request_timeout", "message": "request not received in time",
                                      "field": None}}, separators=(",", ":")).encode()
TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(_TIMEOUT_BODY)}\r\n\r\n".encode() + _TIMEOUT_BODY)


def _is(request: Any, path: str) -> bool:
    return request.command == "GET" and request.path == path and not request.error


def waitress_options(api: ApiSettings) -> dict[str, Any]:
    """The waitress adjustments taken from ``[api]`` (defaults.toml documents each)."""
    return {"channel_timeout": api.channel_timeout, "connection_limit": api.connection_limit,
            "cleanup_interval": api.cleanup_interval, "backlog": api.backlog, "recv_bytes": api.recv_bytes}


class GuardedDispatcher(ThreadedTaskDispatcher):
    """waitress's worker pool, with the probes taken off it (see the module docstring).

    ``add_task`` receives a channel whose first queued request is due; waitress calls it with
    the channel's ``requests_lock`` held, from the I/O loop or from a worker finishing the
    previous request of the connection."""

    def __init__(self, probe_threads: int = 2):
        super().__init__()
        self.probes = ThreadPoolExecutor(max_workers=probe_threads, thread_name_prefix="graphmem-probe")

    def add_task(self, task: Any) -> None:
        requests = getattr(task, "requests", None)
        if requests and len(requests) == 1 and _is(requests[0], "/healthz"):
            self._answer_health(task, requests[0])
        elif requests and _is(requests[0], "/readyz"):
            self.probes.submit(self._service, task)
        else:
            super().add_task(task)

    @staticmethod
    def _answer_health(channel: Any, request: Any) -> None:
        close = request.version != "1.1" or "close" in request.headers.get("CONNECTION", "").lower()
        head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
                f"Content-Length: {len(HEALTH_BODY)}\r\nX-Request-ID: {uuid.uuid4().hex}\r\n"
                + ("Connection: close\r\n" if close else "") + "\r\n")
        try:
            channel.write_soon(head.encode() + HEALTH_BODY)
        except Exception:                   # the client went away: nothing to answer
            close = True
        request.close()
        channel.requests.pop(0)
        if close:
            channel.close_when_flushed = True
        channel.server.pull_trigger()       # wake the I/O loop when called from a worker

    @staticmethod
    def _service(channel: Any) -> None:
        try:
            channel.service()
        except Exception:                   # as waitress's own workers: log, keep the thread
            log.exception("probe request failed")

    def shutdown(self, cancel_pending: bool = True, timeout: int = 5) -> bool:
        self.probes.shutdown(wait=False, cancel_futures=cancel_pending)
        return super().shutdown(cancel_pending, timeout)


class GuardedChannel(HTTPChannel):
    """An ``HTTPChannel`` that records when the request it is receiving began."""

    receiving: Any = None            # the request being received, when its start was recorded
    receiving_since = 0.0

    def received(self, data: bytes) -> bool:
        done = super().received(data)
        if self.request is not None and self.request is not self.receiving:
            self.receiving, self.receiving_since = self.request, time.monotonic()
        return done


def close_slow(channels: list[Any], request_timeout: float, now: float | None = None) -> int:
    """408 and close every connection that has been sending one request for over
    ``request_timeout`` seconds (run from the I/O loop; a connection with a request in a worker
    is left alone). The number closed."""
    now = time.monotonic() if now is None else now
    closed = 0
    for channel in channels:
        if (isinstance(channel, GuardedChannel) and channel.receiving is None and channel.request is None
                and not channel.requests and not channel.will_close
                and time.time() - channel.creation_time > request_timeout):
            channel.will_close = True         # connected, never sent a byte
            closed += 1
        elif (isinstance(channel, GuardedChannel) and channel.request is not None
                and channel.request is channel.receiving and not channel.requests
                and not channel.close_when_flushed and not channel.will_close
                and now - channel.receiving_since > request_timeout):
            channel.request = None
            with channel.outbuf_lock:
                channel.outbufs[-1].append(TIMEOUT_RESPONSE)
                channel.total_outbufs_len += len(TIMEOUT_RESPONSE)
            channel.close_when_flushed = True
            closed += 1
    if closed:
        log.warning("closed slow connections", extra={"fields": {"connections": closed,
                                                                 "request_timeout_s": request_timeout}})
    return closed
