"""DNS rebinding: a web page that rebinds its own name to 127.0.0.1 cannot drive a local server.

Real `graphmem serve` processes: a request naming a host the server does not answer gets 421 and
a foreign web origin 403, with keys or without, before anything is read or written.
"""

from __future__ import annotations

import socket

import pytest
import requests
from hypothesis import given
from hypothesis import strategies as st

from graphmem.hosts import HostPolicy, host_name
from tests.helpers.server import Server

NOTE = {"id": "rebind-probe", "content": "The ledger database backs up every night at two."}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rebind")
    srv = Server(tmp / "data", tmp / "server.log",
                 env={"GRAPHMEM_ALLOWED_HOSTS": "graphmem.internal,.corp.example"})
    yield srv
    srv.stop()


def _call(srv: Server, method: str, path: str, host: str | None = None, **headers: str) -> requests.Response:
    sent = {**headers, **({"Host": host} if host else {})}
    return requests.request(method, srv.url + path, headers=sent, timeout=30,
                            json=NOTE if method == "POST" else None)


def test_a_rebound_name_is_refused_and_writes_nothing(server):
    evil = f"evil.example:{server.port}"
    for method, path in (("POST", "/v1/memories"), ("GET", "/v1/memories"), ("GET", "/ui"),
                         ("DELETE", "/v1/memories/rebind-probe")):
        reply = _call(server, method, path, evil, Origin=f"http://{evil}")
        assert reply.status_code == 421, (method, path, reply.text)
        error = reply.json()["error"]
        assert error["code"] == "host_not_allowed" and error["field"] == "Host"
        assert "allowed_hosts" in error["message"]
    assert _call(server, "GET", "/v1/memories/rebind-probe").status_code == 404, "the refused create wrote nothing"


def test_a_foreign_origin_is_refused(server):
    reply = _call(server, "POST", "/v1/memories", Origin="http://evil.example")
    assert reply.status_code == 403 and reply.json()["error"]["code"] == "origin_not_allowed"
    assert _call(server, "POST", "/v1/memories", Origin="null").status_code == 403
    assert _call(server, "GET", "/v1/memories/rebind-probe").status_code == 404


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "graphmem.internal", "api.corp.example", "LOCALHOST."])
def test_names_it_serves_are_answered(server, host):
    assert _call(server, "GET", "/v1/stats", f"{host}:{server.port}",
                 Origin=f"http://{host}:{server.port}").status_code == 200
    assert _call(server, "GET", "/ui", host).status_code == 200, "the inspector answers the name it is opened by"


def test_a_request_without_host_is_refused(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /v1/stats HTTP/1.0\r\n\r\n")
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    assert reply.split(b"\r\n", 1)[0].split()[1] == b"421"


def test_keys_do_not_change_the_answer(tmp_path):
    srv = Server(tmp_path / "data", tmp_path / "server.log", "agent:secret-key-1:default")
    try:
        evil = _call(srv, "GET", "/v1/memories", f"evil.example:{srv.port}", Authorization="Bearer secret-key-1")
        assert evil.status_code == 421, "refused before authentication"
        assert _call(srv, "GET", "/v1/stats", Authorization="Bearer secret-key-1").status_code == 200
    finally:
        srv.stop()


def test_policy_names():
    policy = HostPolicy.for_bind("0.0.0.0", ["Memory.Example.com", ".corp.example"])
    assert policy.allows_host("memory.example.com:443") and policy.allows_host("[::1]:8080")
    assert policy.allows_host("corp.example") and policy.allows_host("a.b.corp.example")
    assert not policy.allows_host("0.0.0.0:8080"), "the unspecified address is not a name clients use"
    assert not policy.allows_host("evilcorp.example") and not policy.allows_host("")
    assert HostPolicy.for_bind("::1").allows_host("[::1]")
    assert HostPolicy.for_bind("127.0.0.2").allows_origin("http://127.0.0.2:8081")
    assert not HostPolicy.for_bind("127.0.0.1").allows_origin("file://")
    assert HostPolicy.for_bind("127.0.0.1", ["*"]).allows_host("anything.example")
    assert host_name("[::1]:80") == "[::1]" and host_name("Example.COM.:8080") == "example.com"


@given(st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z][a-z0-9-]{0,10}){0,3}", fullmatch=True),
       st.integers(min_value=1, max_value=65535))
def test_no_other_name_passes(name, port):
    policy = HostPolicy.for_bind("127.0.0.1", ["graphmem.internal"])
    expected = name in ("localhost", "graphmem.internal")
    assert policy.allows_host(f"{name}:{port}") is expected
    assert policy.allows_origin(f"http://{name}:{port}") is expected
