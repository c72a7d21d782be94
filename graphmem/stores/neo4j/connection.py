"""The Neo4j store's connection: the driver, one managed transaction per call (retried within
the budgets, behind the breaker), and the driver's errors mapped to graphmem's (the base every
other part of ``Neo4jStore`` builds on)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Literal, TypeVar

from neo4j import READ_ACCESS, GraphDatabase, ManagedTransaction, Query, unit_of_work
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConfigurationError,
    ConnectionPoolError,
    IncompleteCommit,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graphmem.config import StoreSettings
from graphmem.errors import StoreConfigError, StoreUnavailable
from graphmem.model import EDGE_TYPES, ServerInfo
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.neo4j.breaker import Breaker
from graphmem.stores.neo4j.retry import with_retries

T = TypeVar("T")
_TYPES = list(EDGE_TYPES)
Kind = Literal["read", "write", "admin"]


def _rows(tx: ManagedTransaction, name: str, params: dict[str, Any]) -> list:
    return list(tx.run(Q.load(name), params))


class Neo4jBase:
    def __init__(self, cfg: StoreSettings):
        """Connection and timeouts from ``cfg`` (the ``neo4j_*`` keys of defaults.toml, the one place
        they are set). The timeouts bound how long a call waits on a dead database (an attempt is at
        most ``neo4j_acquisition_timeout``, retried for ``neo4j_max_retry_time``); deadlocks are retried
        for ``neo4j_transient_retry_time``; the breaker then fails calls at once (``retry.py``, ``breaker.py``)."""
        uri, user, password, database = cfg.neo4j_uri, cfg.neo4j_user, cfg.neo4j_password, cfg.neo4j_database
        self.uri = uri
        self.breaker = Breaker(f"Neo4j at {uri}", cfg.neo4j_breaker_failures, cfg.neo4j_breaker_cooldown)
        self.ping_timeout = cfg.neo4j_ping_timeout
        self.retry_budgets = (cfg.neo4j_max_retry_time, cfg.neo4j_transient_retry_time)
        # Bounded waits (defaults.toml, [store] neo4j_*_timeout): the server-side transaction timeout
        # per kind of call; the caller waits ``deadline_grace`` longer, then gives up (``_bounded``).
        self.timeouts: dict[str, float] = {"read": cfg.neo4j_read_timeout, "write": cfg.neo4j_write_timeout,
                                           "admin": cfg.neo4j_admin_timeout}
        self.deadline_grace = cfg.neo4j_deadline_grace
        self._calls = ThreadPoolExecutor(max_workers=max(1, cfg.neo4j_call_threads),
                                         thread_name_prefix="neo4j-call")
        self._ping: Future | None = None
        self._ping_lock = threading.Lock()
        self.server_info_ttl = cfg.neo4j_server_info_ttl  # version/topology refreshed by a ping at most this often
        self._info = ServerInfo("neo4j", "", "", "unknown")
        self._info_at: float | None = None  # time.monotonic() of the last fetch
        self._refresh: Future | None = None
        self.database = database or "neo4j"
        self.dim = 0
        self.server_version = ""
        # Vector recall: ask the index for max(limit * overfetch, min_fetch) nodes, x4 per retry,
        # and scan the namespace exactly once it is no larger than that.
        self.vector_overfetch = max(1, cfg.neo4j_vector_overfetch)
        self.vector_min_fetch = max(1, cfg.neo4j_vector_min_fetch)
        self.as_of_overfetch = max(1, cfg.neo4j_as_of_overfetch)  # first fetches under an as_of filter
        self.vector_paths: Counter[str] = Counter()  # "index" / "scan" (observability, tests)
        try:
            self._driver = GraphDatabase.driver(
                uri, auth=(user, password) if password else None, connection_timeout=cfg.neo4j_connection_timeout,
                connection_acquisition_timeout=cfg.neo4j_acquisition_timeout, max_transaction_retry_time=0,
                notifications_min_severity="OFF")
        except (ConfigurationError, ValueError) as exc:
            raise StoreConfigError(f"invalid Neo4j URI {uri!r}: {exc}", field="store.neo4j_uri") from exc
        # Causal consistency within this process: every session waits for the bookmarks of the
        # process's earlier transactions, so on a cluster a read after a write sees the write
        # (README: Clusters and Aura). Other processes do not share them.
        self._bookmarks = GraphDatabase.bookmark_manager()

    # -- plumbing ----------------------------------------------------------------------
    def _call(self, kind: Kind, attempt: Callable[[float], T]) -> T:
        """``attempt(timeout)`` behind the breaker, within the retry budgets and the caller's deadline."""
        timeout = self.timeouts[kind]
        return self.breaker.call(lambda: self._bounded(timeout, lambda: self._guarded(lambda: attempt(timeout),
                                                                                        timeout)))

    def _bounded(self, timeout: float, work: Callable[[], T]) -> T:
        """``work`` on a call thread while the caller waits at most ``timeout + deadline_grace``.

        The driver has no client-side read timeout (only the server's hint, minutes by default),
        so a query sent to a database that stopped answering blocks its thread in ``recv``. The
        caller stops waiting at the deadline and gets ``StoreUnavailable`` (a 503); the thread is
        freed when the database answers (Neo4j then aborts the transaction past its timeout). A
        call still waiting in line at the deadline is cancelled, so it never runs late."""
        deadline = timeout + self.deadline_grace
        pending = self._calls.submit(work)
        try:
            return pending.result(timeout=deadline)
        except FutureTimeout:
            pending.cancel()
            raise StoreUnavailable(f"Neo4j at {self.uri} (database {self.database!r}) did not answer within "
                                   f"{deadline:g} s", field="store") from None

    def _execute(self, write: bool, work: Callable[[ManagedTransaction], T], kind: Kind | None = None) -> T:
        """``work`` in one managed transaction (several queries that must see one state)."""
        kind = kind or ("write" if write else "read")
        return self._call(kind, lambda timeout: self._attempt(write, work, timeout))

    def _attempt(self, write: bool, work: Callable[[ManagedTransaction], T], timeout: float) -> T:
        bounded = unit_of_work(timeout=timeout)(work)
        with self._driver.session(database=self.database, bookmark_manager=self._bookmarks) as session:
            return session.execute_write(bounded) if write else session.execute_read(bounded)

    def _read(self, name: str, **params: Any) -> list:
        """One query as an auto-commit read (routed to a reader, waits for this process's bookmarks):
        one round trip, where a managed transaction takes two (its COMMIT is a second one). Reads
        are idempotent, so ``with_retries`` may run it again after a lost connection."""
        return self._call("read", lambda timeout: self._read_once(Q.load(name), params, timeout))

    def _admin_read(self, name: str, **params: Any) -> list:
        """``_read`` under the admin bound (waits on index builds)."""
        return self._call("admin", lambda timeout: self._read_once(Q.load(name), params, timeout))

    def _read_once(self, query: str, params: dict[str, Any], timeout: float) -> list:
        with self._driver.session(database=self.database, bookmark_manager=self._bookmarks,
                                  default_access_mode=READ_ACCESS) as session:
            return list(session.run(Query(query, timeout=timeout), params))  # type: ignore[arg-type]

    def _guarded(self, attempt: Callable[[], T], timeout: float) -> T:
        """``attempt`` within the retry budgets (conflicts retried no longer than the call's
        ``timeout``), the driver's errors mapped to graphmem's."""
        outage_budget, transient_budget = self.retry_budgets
        try:
            return with_retries(attempt, outage_budget, min(transient_budget, timeout))
        except AuthError as exc:
            raise StoreConfigError(f"Neo4j at {self.uri} refused the credentials: {exc.message}",
                                   field="store.neo4j_password") from exc
        except (ServiceUnavailable, SessionExpired, IncompleteCommit, TransientError, ConnectionPoolError) as exc:
            raise StoreUnavailable(f"Neo4j at {self.uri} (database {self.database!r}) is unavailable: {exc}",
                                   field="store") from exc
        except ClientError as exc:
            if exc.code == "Neo.ClientError.Database.DatabaseNotFound":
                raise StoreConfigError(f"Neo4j at {self.uri} has no database {self.database!r}",
                                       field="store.neo4j_database") from exc
            if "TransactionTimedOut" in (exc.code or ""):
                raise StoreUnavailable(f"Neo4j at {self.uri} did not finish within {timeout:g} s "
                                       "(server-side transaction timeout)", field="store") from exc
            raise

    def _write(self, name: str, **params: Any) -> list:
        return self._execute(True, lambda tx: _rows(tx, name, params))

    def _auto_commit(self, name: str, params: dict[str, Any]) -> None:
        """Queries that batch with CALL ... IN TRANSACTIONS cannot run in a managed transaction
        (schema, namespace drop: the admin bound). Not retried: a batch may have committed."""
        timeout = self.timeouts["admin"]
        self.breaker.call(lambda: self._bounded(timeout, lambda: self._auto_commit_once(name, params, timeout)))

    def _auto_commit_once(self, name: str, params: dict[str, Any], timeout: float) -> None:
        try:
            with self._driver.session(database=self.database, bookmark_manager=self._bookmarks) as session:
                session.run(Query(Q.load(name), timeout=timeout), params).consume()  # type: ignore[arg-type]
        except (ServiceUnavailable, SessionExpired, ConnectionPoolError) as exc:
            raise StoreUnavailable(f"Neo4j at {self.uri} is unavailable: {exc}", field="store") from exc

    def close(self) -> None:
        self._calls.shutdown(wait=False, cancel_futures=True)
        self._driver.close()
