"""The Neo4j store's connection: the driver, one managed transaction per call (retried within
the budgets, behind the breaker), and the driver's errors mapped to graphmem's (the base every
other part of ``Neo4jStore`` builds on)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_for
from contextlib import contextmanager
from typing import Any, Literal, TypeVar, cast

from neo4j import READ_ACCESS, GraphDatabase, ManagedTransaction, Query, unit_of_work
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConfigurationError,
    ConnectionPoolError,
    DriverError,
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
from graphmem.stores.neo4j.session import WriteSession, lock_keys, named_namespaces

T = TypeVar("T")
_TYPES = list(EDGE_TYPES)
Kind = Literal["read", "write", "admin"]
RETRY_AFTER = 1     # seconds: another process holds a namespace's write lock for one write, rarely longer


def _rows(tx: ManagedTransaction, name: str, params: dict[str, Any]) -> list:
    return list(tx.run(Q.load(name), params))


def _lock(tx: ManagedTransaction, keys: list[str]) -> None:
    """The write locks of ``keys`` (sorted) for the rest of ``tx`` (cypher/namespace_lock.cypher)."""
    tx.run(Q.load("namespace_lock"), {"namespaces": keys}).consume()


class _LockWait(Exception):
    """A namespace's lock was not granted within ``store.write_wait``: the database answered (a lock
    wait says nothing about an outage, so the breaker does not count it)."""


class Neo4jBase:
    def __init__(self, cfg: StoreSettings):
        """Connection and timeouts from ``cfg`` (the ``neo4j_*`` keys of defaults.toml, the one place
        they are set). The timeouts bound how long a call waits on a dead database (an attempt is at
        most ``neo4j_acquisition_timeout``, retried for ``neo4j_max_retry_time``); deadlocks are retried
        for ``neo4j_transient_retry_time``; the breaker then fails calls at once (``retry.py``, ``breaker.py``)."""
        uri, user, password, database = cfg.neo4j.uri, cfg.neo4j.user, cfg.neo4j.password, cfg.neo4j.database
        self.uri = uri
        self.breaker = Breaker(f"Neo4j at {uri}", cfg.neo4j.breaker_failures, cfg.neo4j.breaker_cooldown)
        self.ping_timeout = cfg.neo4j.ping_timeout
        self.open_wait = cfg.neo4j.open_wait
        self.retry_budgets = (cfg.neo4j.max_retry_time, cfg.neo4j.transient_retry_time)
        # Bounded waits (defaults.toml, [store] neo4j_*_timeout): the server-side transaction timeout
        # per kind of call; the caller waits ``deadline_grace`` longer, then gives up (``_bounded``).
        self.timeouts: dict[str, float] = {"read": cfg.neo4j.read_timeout, "write": cfg.neo4j.write_timeout,
                                           "admin": cfg.neo4j.admin_timeout}
        self.deadline_grace = cfg.neo4j.deadline_grace
        self.write_wait = cfg.write_wait    # seconds a write waits for another writer's namespace lock
        self._local = threading.local()     # this thread's open write session (``write_session``)
        self._calls = ThreadPoolExecutor(max_workers=max(1, cfg.neo4j.call_threads),
                                         thread_name_prefix="neo4j-call")
        self._running: set[Future] = set()      # submitted calls not yet done (close waits for them)
        self._ping: Future | None = None
        self._ping_lock = threading.Lock()
        self.server_info_ttl = cfg.neo4j.server_info_ttl  # version/topology refreshed by a ping at most this often
        self._info = ServerInfo("neo4j", "", "", "unknown")
        self._info_at: float | None = None  # time.monotonic() of the last fetch
        self._refresh: Future | None = None
        self.database = database or "neo4j"
        self.dim = 0
        self.server_version = ""
        # Vector recall: ask the index for max(limit * overfetch, min_fetch) nodes, x4 per retry,
        # and scan the namespace exactly once it is no larger than that.
        self.vector_overfetch = max(1, cfg.neo4j.vector_overfetch)
        self.vector_min_fetch = max(1, cfg.neo4j.vector_min_fetch)
        self.as_of_overfetch = max(1, cfg.neo4j.as_of_overfetch)  # first fetches under an as_of filter
        self.vector_paths: Counter[str] = Counter()  # "index" / "scan" (observability, tests)
        try:
            self._driver = GraphDatabase.driver(
                uri, auth=(user, password) if password else None, connection_timeout=cfg.neo4j.connection_timeout,
                connection_acquisition_timeout=cfg.neo4j.acquisition_timeout, max_transaction_retry_time=0,
                notifications_min_severity="OFF")
        except (ConfigurationError, ValueError) as exc:
            raise StoreConfigError(f"invalid Neo4j URI {uri!r}: {exc}", field="store.neo4j.uri") from exc
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

    def _submit(self, work: Callable[..., T], *args: Any) -> Future[T]:
        pending = self._calls.submit(work, *args)
        self._running.add(pending)
        pending.add_done_callback(self._running.discard)
        return pending

    def _bounded(self, timeout: float, work: Callable[[], T]) -> T:
        """``work`` on a call thread while the caller waits at most ``timeout + deadline_grace``.

        The driver has no client-side read timeout (only the server's hint, minutes by default),
        so a query sent to a database that stopped answering blocks its thread in ``recv``. The
        caller stops waiting at the deadline and gets ``StoreUnavailable`` (a 503); the thread is
        freed when the database answers (Neo4j then aborts the transaction past its timeout). A
        call still waiting in line at the deadline is cancelled, so it never runs late."""
        deadline = timeout + self.deadline_grace
        pending = self._submit(work)
        try:
            return pending.result(timeout=deadline)
        except FutureTimeout:
            pending.cancel()
            raise StoreUnavailable(f"Neo4j at {self.uri} (database {self.database!r}) did not answer within "
                                   f"{deadline:g} s", field="store") from None

    def _execute(self, write: bool, work: Callable[[ManagedTransaction], T], kind: Kind | None = None,
                 namespaces: Sequence[str] = ()) -> T:
        """``work`` in one managed transaction (several queries that must see one state). Inside
        this thread's write session, ``work`` runs in the session's transaction instead; a write of
        ``namespaces`` outside one is a write session of its own (their lock first, waited for at
        most ``store.write_wait``, then ``work``, then the commit)."""
        kind = kind or ("write" if write else "read")
        session = self._session()
        if session is not None:
            return self._in_session(session, kind, namespaces, work, write)
        if write and namespaces:
            with self.write_session():
                return self._execute(write, work, kind, namespaces)
        return self._call(kind, lambda timeout: self._attempt(write, work, timeout))

    def _attempt(self, write: bool, work: Callable[[ManagedTransaction], T], timeout: float) -> T:
        bounded = unit_of_work(timeout=timeout)(work)
        with self._driver.session(database=self.database, bookmark_manager=self._bookmarks) as session:
            return session.execute_write(bounded) if write else session.execute_read(bounded)

    def _read(self, name: str, **params: Any) -> list:
        """One query as an auto-commit read (routed to a reader, waits for this process's bookmarks):
        one round trip, where a managed transaction takes two (its COMMIT is a second one). Reads
        are idempotent, so ``with_retries`` may run it again after a lost connection."""
        session = self._session()
        if session is not None:
            return self._in_session(session, "read", named_namespaces(params), lambda tx: _rows(tx, name, params))
        return self._call("read", lambda timeout: self._read_once(Q.load(name), params, timeout))

    def _admin_read(self, name: str, **params: Any) -> list:
        """``_read`` under the admin bound (waits on index builds)."""
        session = self._session()
        if session is not None:
            return self._in_session(session, "admin", named_namespaces(params), lambda tx: _rows(tx, name, params))
        return self._call("admin", lambda timeout: self._read_once(Q.load(name), params, timeout))

    def _read_once(self, query: str, params: dict[str, Any], timeout: float) -> list:
        with self._driver.session(database=self.database, bookmark_manager=self._bookmarks,
                                  default_access_mode=READ_ACCESS) as session:
            return list(session.run(Query(query, timeout=timeout), params))  # type: ignore[arg-type]

    def _guarded(self, attempt: Callable[[], T], timeout: float) -> T:
        """``attempt`` within the retry budgets (conflicts retried no longer than the call's
        ``timeout``), the driver's errors mapped to graphmem's."""
        outage_budget, transient_budget = self.retry_budgets
        return self._mapped(lambda: with_retries(attempt, outage_budget, min(transient_budget, timeout)), timeout)

    def _mapped(self, attempt: Callable[[], T], timeout: float) -> T:
        """``attempt`` with the driver's errors mapped to graphmem's."""
        try:
            return attempt()
        except AuthError as exc:
            raise StoreConfigError(f"Neo4j at {self.uri} refused the credentials: {exc.message}",
                                   field="store.neo4j.password") from exc
        except (ServiceUnavailable, SessionExpired, IncompleteCommit, TransientError, ConnectionPoolError) as exc:
            raise StoreUnavailable(f"Neo4j at {self.uri} (database {self.database!r}) is unavailable: {exc}",
                                   field="store") from exc
        except ClientError as exc:
            if exc.code == "Neo.ClientError.Database.DatabaseNotFound":
                raise StoreConfigError(f"Neo4j at {self.uri} has no database {self.database!r}",
                                       field="store.neo4j.database") from exc
            if "TransactionTimedOut" in (exc.code or ""):
                raise StoreUnavailable(f"Neo4j at {self.uri} did not finish within {timeout:g} s "
                                       "(server-side transaction timeout)", field="store") from exc
            raise

    def _write(self, name: str, **params: Any) -> list:
        return self._execute(True, lambda tx: _rows(tx, name, params), namespaces=named_namespaces(params))

    # -- write sessions (session.py) ---------------------------------------------------------
    def _session(self) -> WriteSession | None:
        return getattr(self._local, "session", None)

    @contextmanager
    def write_session(self) -> Iterator[None]:
        """One transaction held across a read-plan-write sequence, under the write lock of each
        namespace it names (taken before its first call naming it): another process's write to
        that namespace waits until it commits, or gives up after ``store.write_wait`` with a 503.
        Reentrant. Every store call of this thread inside it runs in that transaction; other
        threads' calls (searches) do not. It commits on a clean exit, and is rolled back on an
        error or when it wrote nothing."""
        current = self._session()
        if current is not None:
            current.depth += 1
            try:
                yield
            finally:
                current.depth -= 1
            return
        session = self._local.session = WriteSession()
        clean = False
        try:
            yield
            clean = True
        finally:
            self._local.session = None
            if clean and session.wrote and session.failed is None:
                self._commit(session)
            else:
                self._discard(session)
        if clean and session.failed is not None and session.wrote:
            raise StoreUnavailable(f"the write did not commit: {session.failed}; retry it", field="store",
                                   retry_after=RETRY_AFTER)

    def _in_session(self, session: WriteSession, kind: Kind, namespaces: Sequence[str],
                    work: Callable[[ManagedTransaction], T], write: bool = False) -> T:
        """``work`` in the session's transaction, after the locks of the ``namespaces`` it does not
        hold yet (waited for at most ``store.write_wait``). Not retried: a statement that failed
        ended the transaction, so the session fails and its caller's write is not acknowledged."""
        if session.failed is not None:
            raise StoreUnavailable(f"this write already failed ({session.failed}); retry it", field="store",
                                   retry_after=RETRY_AFTER)
        keys = [k for k in lock_keys(namespaces) if k not in session.locked]
        if keys:
            try:
                self._session_run(session, self.write_wait, lambda tx: _lock(tx, keys), lock=True)
            except _LockWait:
                names = ", ".join(repr(k) for k in keys)
                raise StoreUnavailable(f"the write lock of namespace {names} was not granted within "
                                       "store.write_wait seconds (another writer held it, or Neo4j did not "
                                       "answer); retry", field="store", retry_after=RETRY_AFTER) from None
            session.locked.update(keys)
        session.wrote = session.wrote or write
        return self._session_run(session, self.timeouts[kind], work)

    def _session_run(self, session: WriteSession, timeout: float, work: Callable[[ManagedTransaction], T],
                     lock: bool = False) -> T:
        """One call of the session on a call thread (its transaction begun by the first), behind
        the breaker; the caller waits at most ``timeout`` (+ ``deadline_grace`` but for a lock)."""
        def attempt() -> T:
            if session.closed:          # the caller gave up before this call began: begin nothing
                raise StoreUnavailable("the write session ended before this call ran", field="store")
            if session.tx is None:
                session.session = self._driver.session(database=self.database, bookmark_manager=self._bookmarks)
                # the server-side bound of the whole session (a batch's reads and save, a check --repair
                # of a namespace): the admin one; each call keeps the caller deadline of its kind
                session.tx = session.session.begin_transaction(timeout=self.timeouts["admin"])
            return work(cast(ManagedTransaction, session.tx))

        def wait() -> T:
            pending = session.pending = self._submit(self._mapped, attempt, self.timeouts["admin"])
            try:
                return pending.result(timeout=timeout if lock else timeout + self.deadline_grace)
            except FutureTimeout:
                if lock:
                    raise _LockWait() from None
                raise StoreUnavailable(f"Neo4j at {self.uri} (database {self.database!r}) did not answer within "
                                       f"{timeout + self.deadline_grace:g} s", field="store") from None

        try:
            return self.breaker.call(wait)
        except BaseException as exc:
            session.failed = session.failed or f"{type(exc).__name__}: {exc}"
            raise

    def _commit(self, session: WriteSession) -> None:
        """Commit the session's transaction, bounded like a write (a lost connection meanwhile, an
        unknown outcome, is a 503 like any write's: retry it)."""
        try:
            self._session_run(session, self.timeouts["write"], lambda tx: cast(Any, tx).commit())
        finally:
            self._discard(session)

    def _discard(self, session: WriteSession) -> None:
        """Roll back (if still open) and close the session's transaction on a call thread, once its
        last call has returned: the caller never waits on it, and a call it gave up on (running, or
        still in line) finishes first."""
        if session.closed:
            return
        session.closed = True

        def close() -> None:
            tx, driver_session = session.tx, session.session
            for step in ((tx.close if tx is not None else None),
                         (driver_session.close if driver_session is not None else None)):
                try:
                    if step is not None:
                        step()
                except Exception:       # noqa: BLE001 - a closed or broken connection: nothing to undo
                    pass

        def later(_: Future | None = None) -> None:
            try:
                self._submit(close)
            except RuntimeError:        # the store is closing: close here
                close()

        if session.pending is not None and not session.pending.done():
            session.pending.add_done_callback(later)
        else:
            later()

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
        """Stop taking calls, give the running ones (a session's deferred rollback, a call its caller
        gave up on) ``deadline_grace`` seconds, then close the driver. Closing a connection another
        thread still sends on breaks the driver's buffers (``BufferError``); a call stuck on a
        database that stopped answering leaves its connection to the process's exit."""
        self._calls.shutdown(wait=False, cancel_futures=True)
        wait_for(list(self._running), timeout=self.deadline_grace)
        try:
            self._driver.close()
        except (BufferError, OSError, DriverError):     # a connection still in a stuck call's hands
            pass
