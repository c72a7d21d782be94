"""The Neo4j circuit breaker's states on a controlled clock: closed -> open after N outage errors,
one probe per cooldown (half-open), closed again on success; other errors do not count."""

from __future__ import annotations

import pytest

from graphmem.errors import StoreUnavailable, ValidationError
from graphmem.stores.neo4j.breaker import Breaker, CircuitOpen


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def down():
    raise StoreUnavailable("refused")


def test_opens_after_consecutive_outages_probes_once_and_closes():
    clock = Clock()
    breaker = Breaker("db", failures=3, cooldown=2.0, clock=clock)
    calls = []

    def counted():
        calls.append(1)
        down()

    for _ in range(3):
        with pytest.raises(StoreUnavailable):
            breaker.call(counted)
    assert breaker.state == "open" and len(calls) == 3
    with pytest.raises(CircuitOpen) as refused:
        breaker.call(counted)
    assert len(calls) == 3 and refused.value.retry_after == 2 and refused.value.status == 503
    clock.now += 2.0
    assert breaker.state == "half-open"
    with pytest.raises(StoreUnavailable):
        breaker.call(counted)                 # the probe fails: open again, full cooldown
    assert len(calls) == 4 and breaker.state == "open"
    clock.now += 2.0
    assert breaker.call(lambda: "up") == "up" and breaker.state == "closed"


def test_other_errors_are_answers_not_outages():
    breaker = Breaker("db", failures=2, cooldown=5.0, clock=Clock())

    def invalid():
        raise ValidationError("bad")

    for _ in range(5):
        with pytest.raises(ValidationError):
            breaker.call(invalid)
    with pytest.raises(StoreUnavailable):
        breaker.call(down)
    assert breaker.state == "closed"          # one outage error after answers: not yet open
