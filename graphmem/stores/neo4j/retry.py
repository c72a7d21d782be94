"""Retries for Neo4j transactions, with a separate budget per kind of failure.

The driver's own retry loop treats a refused connection like a deadlock and keeps a request
waiting on a dead database for its whole retry time. Here a transient conflict (deadlock, lock
timeout) is retried for ``transient_budget`` seconds, while a lost or refused connection is
retried only for ``outage_budget`` seconds so an outage surfaces fast (then the breaker takes
over). An ``IncompleteCommit`` is never retried: the commit may have happened.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from neo4j.exceptions import (
    ConnectionPoolError,
    IncompleteCommit,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

T = TypeVar("T")
FIRST_DELAY = 0.05
MAX_DELAY = 1.0


def with_retries(attempt: Callable[[], T], outage_budget: float, transient_budget: float,
                 sleep: Callable[[float], None] = time.sleep) -> T:
    started = time.monotonic()
    delay = FIRST_DELAY
    failure: Exception
    while True:
        try:
            return attempt()
        except IncompleteCommit:
            raise
        except TransientError as exc:
            if not exc.is_retryable():
                raise
            budget, failure = transient_budget, exc
        except (ServiceUnavailable, SessionExpired, ConnectionPoolError) as exc:
            budget, failure = outage_budget, exc
        wait = delay * random.uniform(0.8, 1.2)
        if time.monotonic() - started + wait > budget:
            raise failure
        sleep(wait)
        delay = min(delay * 2, MAX_DELAY)
