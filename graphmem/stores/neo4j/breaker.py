"""A circuit breaker for the Neo4j store: when the database is down, fail at once.

Without it, every request waits out the driver's connection and retry timeouts, so during an
outage all worker threads sit on a dead store and requests pile up. After ``failures``
consecutive outage errors the breaker opens: calls fail immediately with ``StoreUnavailable``
(and a ``retry_after`` hint) for ``cooldown`` seconds. Then one call is let through as a probe
(half-open); its success closes the breaker, its failure opens it again. Only outage errors
count: a query error or bad input says nothing about the store being up.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from graphmem.errors import StoreUnavailable

T = TypeVar("T")


class CircuitOpen(StoreUnavailable):
    """Refused without trying: the store failed recently."""


class Breaker:
    def __init__(self, name: str, failures: int, cooldown: float, clock=time.monotonic):
        self.name = name
        self.failures = max(1, failures)
        self.cooldown = cooldown
        self.clock = clock
        self._lock = threading.Lock()
        self._consecutive = 0
        self._opened_at: float | None = None
        self._probing = False

    @property
    def state(self) -> str:
        with self._lock:
            if self._opened_at is None:
                return "closed"
            return "half-open" if self.clock() - self._opened_at >= self.cooldown else "open"

    def _refuse(self) -> bool:
        """True when this call must fail at once: open, and not the one probe let through per cooldown."""
        with self._lock:
            if self._opened_at is None:
                return False
            if self.clock() - self._opened_at < self.cooldown or self._probing:
                return True
            self._probing = True
            return False

    def call(self, work: Callable[[], T]) -> T:
        if self._refuse():
            with self._lock:
                opened = self._opened_at or self.clock()
            wait = max(1, math.ceil(self.cooldown - (self.clock() - opened)))
            raise CircuitOpen(f"{self.name} is unavailable (failed {self._consecutive} times in a row); "
                              f"not retried for {wait} s", field="store", retry_after=wait)
        try:
            result = work()
        except StoreUnavailable:
            self._record(ok=False)
            raise
        except BaseException:
            self._record(ok=True)       # the store answered (with an error of another kind)
            raise
        self._record(ok=True)
        return result

    def _record(self, ok: bool) -> None:
        with self._lock:
            probing, self._probing = self._probing, False
            if ok:
                self._consecutive = 0
                self._opened_at = None
                return
            self._consecutive += 1
            if probing or self._consecutive >= self.failures:
                self._opened_at = self.clock()
