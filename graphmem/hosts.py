"""Which ``Host`` and ``Origin`` a server answers: the defence against DNS rebinding.

A page on any site can rebind its own name to 127.0.0.1 and then call a server on loopback from
the visitor's browser, as same-origin: the request then names the attacker's host in ``Host``.
A server that answers only the names it is reached by closes that door, with keys or without.
The HTTP API and the MCP server share this one rule (``[api] allowed_hosts``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
ANY_HOST = "*"


def host_name(value: str) -> str:
    """``value`` as a bare host name: lower case, no port, no trailing dot, IPv6 in brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[:value.find("]") + 1] if "]" in value else value
    if value.count(":") > 1:                 # a bare IPv6 literal (a bind address such as ::1)
        return f"[{value}]"
    return value.split(":", 1)[0].rstrip(".")


def _unspecified(name: str) -> bool:
    try:
        return ipaddress.ip_address(name.strip("[]")).is_unspecified
    except ValueError:
        return False


@dataclass(frozen=True)
class HostPolicy:
    """The host names a server answers: loopback names, its bind address, and the configured
    ``allowed_hosts`` (an entry ``.example.com`` also admits its subdomains; ``*`` admits any)."""

    names: tuple[str, ...]
    any_host: bool = False

    @classmethod
    def for_bind(cls, bind_host: str, allowed: Iterable[str] = ()) -> HostPolicy:
        configured = [a.strip().lower() for a in allowed if a.strip()]
        names = [*LOOPBACK_NAMES]
        bind = host_name(bind_host)
        if bind and not _unspecified(bind):
            names.append(bind)
        names += [a if a.startswith(".") else host_name(a) for a in configured if a != ANY_HOST]
        return cls(tuple(dict.fromkeys(names)), ANY_HOST in configured)

    def allows_name(self, name: str) -> bool:
        if self.any_host:
            return True
        return any(name == n or (n.startswith(".") and (name.endswith(n) or name == n[1:])) for n in self.names)

    def allows_host(self, header: str | None) -> bool:
        """A request's ``Host`` header (HTTP/1.1 requires one: a request without it is refused)."""
        return bool(header) and self.allows_name(host_name(header or ""))

    def allows_origin(self, header: str | None) -> bool:
        """A request's ``Origin`` header: absent (not sent by a browser) passes; ``null`` and a
        foreign site's origin do not."""
        if header is None:
            return True
        parts = urlsplit(header.strip())
        return (parts.scheme in ("http", "https") and bool(parts.netloc)
                and self.allows_name(host_name(parts.netloc)))

    def refusal(self, host: str | None, origin: str | None) -> tuple[int, dict] | None:
        """The status and error body for a request this policy refuses, or None to serve it."""
        if not self.allows_host(host):
            return 421, {"error": {
                "code": "host_not_allowed", "field": "Host",
                "message": f"this server does not answer the host name {host_name(host or '')!r}; reach it by "
                           f"one of {', '.join(self.names)}, or add the name to [api] allowed_hosts "
                           "(GRAPHMEM_ALLOWED_HOSTS)"}}
        if not self.allows_origin(origin):
            return 403, {"error": {
                "code": "origin_not_allowed", "field": "Origin",
                "message": f"requests from the web origin {origin!r} are refused; add its host name to "
                           "[api] allowed_hosts (GRAPHMEM_ALLOWED_HOSTS) to allow it"}}
        return None
