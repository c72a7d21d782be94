"""API keys and namespace authorisation (shared by the HTTP API and MCP; no Flask here).

A key maps to the namespaces it may read and write; only SHA-256 digests are held in
memory and compared with ``hmac.compare_digest``. Namespaces are the tenancy boundary:
a request naming a namespace its key does not hold is refused (403) before the engine is
called, and every engine call is scoped to exactly one authorised namespace, so ids in
other namespaces are simply "not found".
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from graphmem.config import Settings
from graphmem.contract import validate_value
from graphmem.contract.types import Namespace
from graphmem.errors import AuthError, ConfigError, ForbiddenError, ValidationError

ENV_VAR = "GRAPHMEM_API_KEYS"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
DEFAULT_NAMESPACE = "default"


def hash_key(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()

class HasHeaders(Protocol):
    """A request as authentication sees it: Flask's (the API) or Starlette's (MCP over HTTP)."""

    @property
    def headers(self) -> Any: ...


@dataclass(frozen=True)
class ApiKey:
    name: str
    sha256: str
    namespaces: tuple[str, ...]


@dataclass(frozen=True)
class Principal:
    """Who is calling: a key's name and namespaces, or the open (no-keys) principal."""

    name: str
    namespaces: tuple[str, ...] | None    # None: auth is off, every namespace is allowed

    def may_use(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces

    def namespace(self, requested: Any, field: str = "namespace") -> str:
        """The namespace a request acts on: the requested one if allowed, else the default."""
        if requested is None or requested == "":
            if self.namespaces is None:
                return DEFAULT_NAMESPACE
            if len(self.namespaces) == 1:
                return self.namespaces[0]
            raise ValidationError("this key may use several namespaces; name one with 'namespace' ("
                                  + ", ".join(self.namespaces) + ")", field=field)
        ns: str = validate_value(Namespace, requested, field)
        if not self.may_use(ns):
            raise ForbiddenError(f"this key may not use namespace {ns!r}", field, code="forbidden_namespace")
        return ns


OPEN = Principal("anonymous", None)


class Keyring:
    """The configured keys; empty means auth is off (and the server binds to loopback only)."""

    def __init__(self, keys: list[ApiKey]):
        self.keys = keys

    def __bool__(self) -> bool:
        return bool(self.keys)

    @classmethod
    def from_settings(cls, settings: Settings, environ: Mapping[str, str] | None = None) -> Keyring:
        keys = [_key_from_config(entry, i) for i, entry in enumerate(settings.api.keys)]
        keys += parse_env_keys((environ or {}).get(ENV_VAR, ""))
        seen: dict[str, str] = {}
        for key in keys:
            if key.sha256 in seen:
                raise ConfigError(f"API keys {seen[key.sha256]!r} and {key.name!r} have the same secret",
                                  field="api.keys")
            seen[key.sha256] = key.name
        return cls(keys)

    def authenticate(self, request: HasHeaders) -> Principal:
        if not self.keys:
            return OPEN
        presented = presented_key(request)
        if presented is None:
            raise AuthError("an API key is required: send 'Authorization: Bearer <key>' "
                            "or 'X-API-Key: <key>'", headers={"WWW-Authenticate": 'Bearer realm="graphmem"'})
        digest = hash_key(presented)
        match: ApiKey | None = None
        for key in self.keys:       # no early exit: every key is compared
            if hmac.compare_digest(digest, key.sha256):
                match = key
        if match is None:
            raise AuthError("the API key is not valid", code="invalid_api_key",
                            headers={"WWW-Authenticate": 'Bearer realm="graphmem", error="invalid_token"'})
        return Principal(match.name, match.namespaces)


def presented_key(request: HasHeaders) -> str | None:
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError("Authorization must be 'Bearer <key>'",
                            headers={"WWW-Authenticate": 'Bearer realm="graphmem"'})
        return token.strip()
    key = request.headers.get("X-API-Key", "").strip()
    return key or None


def _namespaces(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not value:
        raise ConfigError(f"{where}: namespaces must be a non-empty list", field="api.keys")
    try:
        return tuple(dict.fromkeys(validate_value(Namespace, ns, "namespace") for ns in value))
    except ValidationError as exc:
        raise ConfigError(f"{where}: {exc.message}", field="api.keys") from None


def _key_from_config(entry: Any, index: int) -> ApiKey:
    where = f"api.keys[{index}]"
    if not isinstance(entry, dict) or set(entry) - {"name", "sha256", "namespaces"}:
        raise ConfigError(f"{where} must be {{name, sha256, namespaces}}", field="api.keys")
    name = entry.get("name")
    digest = str(entry.get("sha256", "")).lower()
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{where}: name is required", field="api.keys")
    if not _HEX64.match(digest):
        raise ConfigError(f"{where}: sha256 must be 64 hex characters (the SHA-256 of the key)",
                          field="api.keys")
    return ApiKey(name, digest, _namespaces(entry.get("namespaces"), where))


def parse_env_keys(text: str) -> list[ApiKey]:
    """``name:secret:ns1|ns2,name2:secret2:ns3`` -> keys (secrets are hashed at once)."""
    keys: list[ApiKey] = []
    for i, item in enumerate(p.strip() for p in text.split(",")):
        if not item:
            continue
        name, _, rest = item.partition(":")
        secret, _, namespaces = rest.rpartition(":")
        if not name or not secret or not namespaces:
            raise ConfigError(f"{ENV_VAR} entry {i + 1} must be name:secret:ns1|ns2", field=ENV_VAR)
        keys.append(ApiKey(name, hash_key(secret), _namespaces(namespaces.split("|"), f"{ENV_VAR} entry {i + 1}")))
    return keys
