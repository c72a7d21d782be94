"""`graphmem mcp --http` answers only the host names it serves, whatever loopback address it binds.

The SDK turns its own Host/Origin check on only for three exact bind names; graphmem checks every
request with the API's rule (graphmem.hosts), so a server on 127.0.0.2 refuses a rebound page too.
"""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest
import requests
from mcp_helpers import http_client, http_server

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}
JSON = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _add_call(content: str) -> dict:
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "add_memory", "arguments": {"content": content}}}


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with http_server(tmp_path_factory.mktemp("mcp-rebind"), {}, host="127.0.0.2") as endpoint:
        yield endpoint


def test_foreign_host_and_origin_are_refused_and_nothing_runs(url):
    port = urlsplit(url).port
    foreign_host = requests.post(url, json=_add_call("rebound write one"), timeout=30,
                                 headers={**JSON, "Host": f"evil.example:{port}",
                                          "Origin": f"http://evil.example:{port}"})
    assert foreign_host.status_code == 421
    assert foreign_host.json()["error"]["code"] == "host_not_allowed"
    foreign_origin = requests.post(url, json=_add_call("rebound write two"), timeout=30,
                                   headers={**JSON, "Origin": "http://evil.example"})
    assert foreign_origin.status_code == 403
    assert foreign_origin.json()["error"]["code"] == "origin_not_allowed"
    own_origin = requests.post(url, json=INIT, timeout=30, headers={**JSON, "Origin": f"http://127.0.0.2:{port}"})
    assert own_origin.status_code == 200 and own_origin.json()["result"]["serverInfo"]["name"] == "graphmem"
    with http_client(url, None) as client:
        assert client.ok("memory_stats", {})["memories"] == 0, "no refused call wrote anything"


@pytest.mark.parametrize("accept", [None, "text/event-stream"])
def test_get_stream_is_refused_at_once(url, accept):
    """No server-to-client stream is offered (stateless JSON responses): a GET gets 405 at once
    instead of an open connection that never sends a byte."""
    host, port = urlsplit(url).hostname, urlsplit(url).port
    assert host and port
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.settimeout(10)
        lines = ["GET /mcp HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
        if accept:
            lines.append(f"Accept: {accept}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        reply = b""
        while chunk := sock.recv(65536):          # a held-open stream would time out here
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405")
    assert json.loads(body)["error"]["code"] == "method_not_allowed"
